/**
 * Replicas of the engine's datasets for query worker threads (server/query).
 *
 * The bulk of a dataset (typed columns: numbers, times, bools, string codes and the system
 * columns) lives on SharedArrayBuffers, which a worker reads without a copy. What cannot be shared
 * (string dictionaries, dynamic values, batch ids, row-id overrides, per-field kinds) is
 * append-only in the owning thread; a worker's replica is brought up to date by a *delta*: what
 * was appended since that worker's last sync, plus the buffers that were replaced (growth,
 * widening) and whole datasets that were reloaded or deleted (a new store instance id).
 *
 * The row count of each dataset is fixed when the delta is made: the replica's snapshot is exactly
 * the snapshot the owning thread would have taken at that moment, so answers are identical.
 * Pure data in and out (no threads here): `DatasetStore.exportDelta` / `applyDelta` and the
 * engine's `exportChanges` / `applyChanges` use these types.
 */
import type { ColdDataset } from './cold-blocks.js';
import { Datetime, Timespan, type AplValue } from '../values.js';

export type FieldKind = 'string' | 'long' | 'real' | 'bool' | 'datetime' | 'timespan' | 'dynamic' | 'empty';

/** Entries appended to an append-only list since `from` (`from` = 0 with a new list replaces it). */
export interface Appended<T> {
    from: number;
    entries: T[];
}

export interface FieldDelta {
    name: string;
    kind: FieldKind;
    length: number;
    seen: string[];
    seenBits: number;
    /** Present when the buffer is not the one the replica holds. */
    codes?: Uint32Array;
    vals?: Float64Array;
    nulls?: Uint8Array | null;
    sub?: Int32Array;
    bools?: Uint8Array;
    dict?: Appended<string>;
    dyn?: Appended<EncodedValue>;
}

export interface SystemColumns {
    timeMs: Float64Array;
    timeSub: Int32Array;
    sysMs: Float64Array;
    sysSub: Int32Array;
    batchOf: Uint32Array;
    seqOf: Uint32Array;
}

export interface DatasetDelta {
    name: string;
    instanceId: number;
    /** The replica starts from an empty store (first sync, or a reloaded dataset). */
    full: boolean;
    rows: number;
    sortedAsc: boolean;
    batchesAscending: boolean;
    system?: SystemColumns;
    batches: Appended<string>;
    overrides: [number, string][];
    /** Fields that changed, new ones in the dataset's field order. */
    fields: FieldDelta[];
}

export interface EngineDelta {
    datasets: DatasetDelta[];
    /** Datasets the replica must forget. */
    deleted: string[];
    /** Datasets whose blocks on disk changed (cold-blocks.ts): the whole list; null = none any more. */
    cold?: { name: string; cold: ColdDataset | null }[];
}

/** What one replica holds of one field (kept by the sender, per replica). */
export interface FieldSyncState {
    codes?: Uint32Array;
    vals?: Float64Array;
    nulls?: Uint8Array | null;
    sub?: Int32Array;
    bools?: Uint8Array;
    dict?: string[];
    dictSent: number;
    dyn?: AplValue[];
    dynSent: number;
    kind: FieldKind;
    length: number;
    seenSize: number;
    seenBits: number;
}

export interface DatasetSyncState {
    instanceId: number;
    rows: number;
    timeMs?: Float64Array;
    batchesSent: number;
    fields: Map<string, FieldSyncState>;
}

/** What one replica holds of the whole engine (kept by the sender). */
export interface EngineSyncState {
    datasets: Map<string, DatasetSyncState>;
    /** The version of each dataset's cold list the replica holds. */
    cold: Map<string, number>;
}

export function newSyncState(): EngineSyncState {
    return { datasets: new Map(), cold: new Map() };
}

/**
 * A dynamic cell across threads: structured clone keeps JSON but drops the `Datetime`/`Timespan`
 * classes, so those travel tagged (and a user object that happens to have a `$apl` key is wrapped,
 * so it never reads back as a tag).
 */
export type EncodedValue = AplValue | { $apl: 'datetime' | 'timespan'; ns: string } | { $apl: 'json'; v: AplValue };

export function encodeValue(v: AplValue): EncodedValue {
    if (v instanceof Datetime) return { $apl: 'datetime', ns: v.ns.toString() };
    if (v instanceof Timespan) return { $apl: 'timespan', ns: v.ns.toString() };
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, '$apl')) return { $apl: 'json', v };
    return v;
}

export function decodeValue(v: EncodedValue): AplValue {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, '$apl')) {
        const t = v as { $apl: string; ns?: string; v?: AplValue };
        if (t.$apl === 'datetime') return new Datetime(BigInt(t.ns!));
        if (t.$apl === 'timespan') return new Timespan(BigInt(t.ns!));
        return t.v ?? null;
    }
    return v as AplValue;
}
