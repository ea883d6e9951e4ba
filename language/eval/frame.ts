/**
 * Frames: the column batches that flow between plan operators.
 *
 * A frame column refers to a stored or computed column plus an optional selection vector (`sel`,
 * physical row indexes). Filtering, sorting and `take` only compose selection vectors; columns
 * are copied (gathered) only when an operator needs dense data. Columns that share a selection
 * vector share the composed one.
 */
import type { AplValue } from '../values.js';
import type { AggInfo } from '../api/tabular.js';
import { type Column, type ScalarType, StrBuilder, StrColumn, builderFor, gatherColumn } from './columns.js';

export type { AggInfo };

export interface FrameCol {
    name: string;
    type: ScalarType;
    data: Column;
    sel: Uint32Array | null;
    /** Set on columns produced by an aggregation (tabular `fields[].agg`). */
    agg?: AggInfo;
    /** Internal columns (row ids) that are carried along but not shown. */
    hidden?: boolean;
}

export interface FrameMeta {
    order?: { field: string; desc: boolean }[];
    groups?: string[];
    buckets?: { field: string; size: number };
    /** The rows are the result of summarize by bin(_time) (+ keys): the limit rule of inventory §7.6 applies. */
    timeBinned?: { timeField: string; keys: string[]; firstAgg?: string };
    /** A totals table (legacy `buckets.totals` / tabular `_totals`). */
    totals?: Frame;
    /** The frame is in the default (newest first) dataset order. */
    datasetOrder?: 'desc' | 'asc';
}

export class Frame {
    constructor(
        public cols: FrameCol[],
        public length: number,
        public meta: FrameMeta = {},
    ) {}

    find(name: string): FrameCol | undefined {
        for (let i = this.cols.length - 1; i >= 0; i--) if (this.cols[i].name === name) return this.cols[i];
        return undefined;
    }

    visible(): FrameCol[] {
        return this.cols.filter(c => !c.hidden);
    }

    with(cols: FrameCol[], meta: FrameMeta = this.meta): Frame {
        return new Frame(cols, this.length, meta);
    }
}

export const ROWID = '$rowid';
/** A scan's `_time`, carried hidden through row-wise steps (which may drop or redefine `_time`) to merge sources in time order. */
export const SCAN_TIME = '$scantime';

export function cellOf(c: FrameCol, i: number): AplValue {
    return c.data.get(c.sel ? c.sel[i] : i);
}

/** Keeps the rows at logical positions `idx` (in that order). */
export function selectRows(frame: Frame, idx: Uint32Array, meta: FrameMeta = frame.meta): Frame {
    const cache = new Map<Uint32Array | null, Uint32Array>();
    const n = idx.length;
    const cols = frame.cols.map(c => {
        let sel = cache.get(c.sel);
        if (sel === undefined) {
            if (c.sel === null) sel = idx;
            else {
                sel = new Uint32Array(n);
                const s = c.sel;
                for (let i = 0; i < n; i++) sel[i] = s[idx[i]];
            }
            cache.set(c.sel, sel);
        }
        return { ...c, sel };
    });
    return new Frame(cols, n, meta);
}

/** The first `n` rows. */
export function takeRows(frame: Frame, n: number): Frame {
    if (n >= frame.length) return frame;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    return selectRows(frame, idx);
}

/**
 * A dense copy that keeps nothing of its source alive: string columns get a dictionary of their
 * own values only (a gathered string column shares its source's whole dictionary, which for a
 * block read from disk holds the block's strings). For a few rows kept from many sources.
 */
export function detachedFrame(frame: Frame): Frame {
    const n = frame.length;
    return frame.with(
        frame.cols.map(c => {
            const d = dense(c, n);
            if (!(d instanceof StrColumn)) return { ...c, data: d, sel: null };
            const b = new StrBuilder(n);
            for (let i = 0; i < n; i++) b.push(d.get(i));
            return { ...c, data: b.build(), sel: null };
        }),
    );
}

/** A dense copy of a frame column. */
export function dense(c: FrameCol, n: number): Column {
    return gatherColumn(c.data, c.sel, n);
}

/** Concatenates columns (each with its own selection) into one column of `type`. */
export function concatColumns(parts: { col: FrameCol | undefined; n: number }[], type: ScalarType): Column {
    const total = parts.reduce((s, p) => s + p.n, 0);
    const b = builderFor(type, total);
    for (const p of parts) {
        if (!p.col) {
            for (let i = 0; i < p.n; i++) b.push(null);
            continue;
        }
        for (let i = 0; i < p.n; i++) b.push(cellOf(p.col, i));
    }
    return b.build();
}
