/**
 * Datasets with blocks on disk (language/eval/cold-blocks.ts): the same events, some kept as cold
 * blocks read through a reader and the rest in memory, answer every query as the all-in-memory
 * engine does. The reader here serves chunks from a map (the service reads block files, see
 * test/server/http/cold-store.test.ts); it counts its reads, so the tests can say what was read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine, type ColdBlock, type ColdBlockReader, type ColdDataset, type Engine, type QueryOptions } from '../../../language/eval/engine.js';
import { AplQueryError } from '../../../language/eval/errors.js';
import { DatasetStore, type ColumnChunk, type ColumnarChunk } from '../../../language/eval/tables.js';
import { Frame, detachedFrame } from '../../../language/eval/frame.js';
import { StrColumn } from '../../../language/eval/columns.js';
import { normalizeEvents } from '../../../language/ingest/normalize-event.js';
import { newSyncState } from '../../../language/eval/replica.js';
import { toColumns } from '../../../server/ingest/columnar.js';
import { comparable, mixedEvents } from '../../support/parallel-fixtures.js';
import { countingChunk } from '../../support/counting-chunk.js';
import { keyHash64 } from '../../../language/eval/sketches.js';

const OPTS: QueryOptions = { startTime: '2026-10-01T00:00:00Z', endTime: '2026-12-01T00:00:00Z', now: '2026-11-05T00:00:00Z' };
const SYS = 1_700_000_000_000_000_000n;

/** Events as one batch (seq) in columns, as a store block holds them. */
function chunkOf(events: Record<string, unknown>[], seq: number): ColumnarChunk {
    const n = normalizeEvents(events, { receiveTimeNs: SYS });
    const rows = n.fields.length;
    return {
        rows,
        times: n.times,
        batchOf: new Uint32Array(rows),
        rowInBatch: Uint32Array.from({ length: rows }, (_, i) => i),
        batches: [{ seq, sysTime: SYS }],
        columns: toColumns(n.fields),
    };
}

/** The block's header as the store writes it; `counts`: with the value counts of its fields of few values. */
function blockOf(id: string, chunk: ColumnarChunk, counts = true): ColdBlock {
    const s = new DatasetStore('probe');
    s.appendColumns(chunk);
    let min = chunk.times[0];
    let max = chunk.times[0];
    for (const t of chunk.times) {
        if (t < min) min = t;
        if (t > max) max = t;
    }
    // Value ranges as the store's block headers give them (server/store/block.ts).
    const ranges: NonNullable<ColdBlock['ranges']> = {};
    const valueCounts: Record<string, (readonly [string, number])[]> = {};
    const valueRows: string[] = [];
    for (const c of chunk.columns) {
        if (c.kind === 'f64') {
            const xs = [...c.values].filter((_, i) => c.present === null || ((c.present[i >> 3] >> (i & 7)) & 1) === 1);
            if (xs.length) Object.assign(ranges, { [c.name]: { min: Math.min(...xs), max: Math.max(...xs) } });
        } else if (c.kind === 'str' && c.dict.length) {
            const d = [...c.dict].sort();
            Object.assign(ranges, { [c.name]: { min: d[0], max: d[d.length - 1] } });
            // Few values: each with its rows, as the store's headers list them.
            if (counts && c.dict.length <= 64 && c.dict.join('').length <= 2048) valueCounts[c.name] = c.dict.map((v, k) => [v, c.codes.filter(x => x === k + 1).length] as const);
            // More values: each with its rows in a section of the block (MapReader.valueRows).
            else if (counts && c.dict.length <= 4096) valueRows.push(c.name);
        }
    }
    return { id, rows: chunk.rows, minTime: min, maxTime: max, fields: s.fieldList().map(f => ({ name: f.name, type: f.type, axiomType: f.axiomType })), ranges, counts: valueCounts, valueRows };
}

/**
 * An answer without the block statistics: the in-memory engine's blocks are runs of 65,536 rows of
 * the whole table, the tiered engine's are its cold blocks plus those of the rows in memory; and
 * the tiered engine does not examine the rows of blocks outside a `_time` condition at all.
 */
function same(v: unknown, apl = ''): unknown {
    // `… [| sort by _time] | take N` reads sources until N rows: its rowsMatched counts the rows of those read.
    const drop = ['blocksExamined', 'blocksSkipped', 'minBlockTime', 'maxBlockTime', 'rowsExamined', ...(/\| take \d+$/.test(apl) ? ['rowsMatched'] : [])];
    return JSON.parse(JSON.stringify(comparable(v)), (k, x: unknown) => (drop.includes(k) ? undefined : x));
}

class MapReader implements ColdBlockReader {
    readonly chunks = new Map<string, ColumnarChunk>();
    reads: string[] = [];
    /** Headers without value counts: every query that reads a field reads the block (the tests of reading itself). */
    constructor(private readonly counts = true) {}
    /** Stores `chunk` as the k-th block file and gives its header. */
    put(k: number, chunk: ColumnarChunk): ColdBlock {
        const id = `${String(k).padStart(8, '0')}.blk`;
        this.chunks.set(id, chunk);
        return blockOf(id, chunk, this.counts);
    }
    /** The fields decoded per read, for the tests that check the query asked for few. */
    fieldsRead: string[][] = [];
    read(_dataset: string, block: ColdBlock, field?: (name: string) => boolean): ColumnarChunk | undefined {
        this.reads.push(block.id);
        const c = this.chunks.get(block.id);
        // As the store's reader does: only the columns asked for.
        const columns = c?.columns.filter(col => field === undefined || field(col.name));
        if (columns) this.fieldsRead.push(columns.map(col => col.name));
        return c && { ...c, columns: columns! };
    }
    /** The rows read alone (readRows), and the fields decoded for them. */
    rowReads: { id: string; rows: number[]; fields: string[] }[] = [];
    /** As the store's reader: those rows alone, in their order, only the columns asked for. */
    readRows(_dataset: string, block: ColdBlock, rows: Uint32Array, field?: (name: string) => boolean): ColumnarChunk | undefined {
        const c = this.chunks.get(block.id);
        if (!c) return undefined;
        const columns = c.columns.filter(col => field === undefined || field(col.name)).map(col => pickRows(col, rows));
        this.rowReads.push({ id: block.id, rows: [...rows], fields: columns.map(col => col.name) });
        const pick = <T extends BigInt64Array | Uint32Array>(a: T): T => a.constructor === BigInt64Array ? (BigInt64Array.from(rows, r => (a as BigInt64Array)[r]) as T) : (Uint32Array.from(rows, r => (a as Uint32Array)[r]) as T);
        return { ...c, rows: rows.length, times: pick(c.times), batchOf: pick(c.batchOf), rowInBatch: pick(c.rowInBatch), columns };
    }
    /** The values of a field the header lists in valueRows and each one's rows, as the store's reader reads them from the block's section. */
    valueRowsRead: string[] = [];
    valueRows(_dataset: string, block: ColdBlock, field: string): { values: string[]; rows: Uint32Array } | undefined {
        const c = this.chunks.get(block.id)?.columns.find(col => col.name === field);
        if (c?.kind !== 'str' || !block.valueRows?.includes(field)) return undefined;
        this.valueRowsRead.push(block.id);
        const rows = new Uint32Array(c.dict.length + 1);
        for (const code of c.codes) rows[code]++;
        return { values: [...c.dict], rows: rows.subarray(1) };
    }
    /** As the store's reader: the header's rows while the block is there, none once it is gone. */
    rows(_dataset: string, block: ColdBlock): number {
        return this.chunks.has(block.id) ? block.rows : 0;
    }
}

/** A chunk's column of `rows` alone. */
function pickRows(col: ColumnChunk, rows: Uint32Array): ColumnChunk {
    switch (col.kind) {
        case 'f64': {
            const present = col.present && new Uint8Array((rows.length + 7) >> 3);
            if (present) rows.forEach((r, k) => ((col.present![r >> 3] >> (r & 7)) & 1 ? (present[k >> 3] |= 1 << (k & 7)) : 0));
            return { ...col, values: Float64Array.from(rows, r => col.values[r]), present };
        }
        case 'bool': return { ...col, values: Uint8Array.from(rows, r => col.values[r]) };
        case 'str': {
            // As the store's reader: a dictionary of the rows' values, each read alone where the column can.
            const dict: string[] = [];
            const mine = new Map<number, number>();
            const codes = Uint32Array.from(rows, r => {
                const k = col.codes[r];
                if (k === 0) return 0;
                let m = mine.get(k);
                if (m === undefined) {
                    dict.push(col.valueAt ? col.valueAt(k) : col.dict[k - 1]);
                    mine.set(k, (m = dict.length));
                }
                return m;
            });
            return { name: col.name, kind: 'str', dict, codes };
        }
        case 'json': return { ...col, values: Array.from(rows, r => col.values[r]) };
    }
}

interface Pair {
    whole: Engine;
    tiered: Engine;
    reader: MapReader;
    cold: ColdDataset;
}

/**
 * The same batches loaded whole into one engine, and into another with the first `coldBatches` as
 * cold blocks. Batches are in time order except `shuffled` ones, which overlap the others.
 */
function pair(opts: { batches: number; per: number; coldBatches: number; cacheBytes?: number; shuffled?: boolean; keep?: ColdDataset['keep']; counts?: boolean; paths?: number }): Pair {
    const events = mixedEvents(opts.batches * opts.per);
    // A field of many values (too many for a header's counts): `paths` of them, every ninth row without one.
    if (opts.paths) events.forEach((e, i) => i % 9 !== 0 && Object.assign(e, { path: `/api/p${(i * 7) % opts.paths!}` }));
    if (!opts.shuffled) events.sort((a, b) => String(a._time).localeCompare(String(b._time)));
    const chunks = Array.from({ length: opts.batches }, (_, b) => chunkOf(events.slice(b * opts.per, (b + 1) * opts.per), b + 1));
    const reader = new MapReader(opts.counts);
    const whole = createEngine();
    const tiered = createEngine({ coldReader: reader, coldCacheBytes: opts.cacheBytes });
    const lw = whole.loadDataset('d');
    const lt = tiered.loadDataset('d');
    const blocks: ColdBlock[] = [];
    chunks.forEach((c, b) => {
        if (b < opts.coldBatches) blocks.push(reader.put(b, c));
        else lt.appendColumns(c);
        lw.appendColumns(c);
    });
    const cold: ColdDataset = { blocks, keep: opts.keep ?? { trims: [] } };
    lt.setCold(cold);
    lw.commit();
    lt.commit();
    return { whole, tiered, reader, cold };
}

const QUERIES = [
    // Mergeable: block by block.
    "['d'] | count",
    "['d'] | where status == '500' | count",
    // Counted from the dictionary's table, not listed (Compiled.countRows): !=, string predicates, after another where.
    "['d'] | where label != 'l3' | count",
    "['d'] | where method contains 'os' | count",
    "['d'] | where n > 300 | where status !in ('200', '404') | count",
    "['d'] | where ok | where label startswith 'l1' | count",
    "['d'] | summarize count() by status",
    "['d'] | summarize c = count(), s = sum(n), a = avg(r), mn = min(r), mx = max(n) by status, method",
    "['d'] | summarize count() by bin(_time, 1d), status | order by _time asc",
    "['d'] | top 10 by r",
    "['d'] | top 7 by n asc",
    "['d'] | where ok | sort by n asc | take 25",
    "['d'] | where ok | top 5 by status asc, r desc | project status, r, n",
    "['d'] | summarize dcount(status), percentile(n, 90) by method",
    // One scan over the blocks.
    "['d'] | take 10",
    "['d'] | project _time, status, n | take 30",
    "['d'] | where n > 500 | project _time, n, label",
    "['d'] | summarize make_set(status) by method | order by method asc",
    "['d'] | order by _time asc | take 15",
    "['d'] | sort by n desc, _time asc | take 12",
    "['d'] | extend k = n % 7 | summarize total = sum(n) by k | order by k asc",
    "['d'] | where _time > datetime(2026-11-02) | summarize count() by status",
    "['d'] | where label == 'l3' | count",
    "['d'] | join kind=inner (['d'] | summarize c = count() by status) on status | summarize sum(c) by status",
    "union ['d'], ['d'] | count",
    "search in (['d']) 'POST' | count",
];

describe('a dataset with blocks on disk answers as in memory', () => {
    for (const shuffled of [false, true]) {
        const p = pair({ batches: 6, per: 700, coldBatches: 4, shuffled });
        for (const apl of QUERIES) {
            it(`${apl}${shuffled ? ' (blocks overlap in time)' : ''}`, async () => {
                expect(same(await p.tiered.query(apl, OPTS), apl)).toEqual(same(await p.whole.query(apl, OPTS), apl));
                expect(same(await p.tiered.queryLegacyFormat(apl, OPTS), apl)).toEqual(same(await p.whole.queryLegacyFormat(apl, OPTS), apl));
            });
        }
    }

    it("['d'] | project _time, n paged by cursor", async () => {
        const p = pair({ batches: 5, per: 300, coldBatches: 3, shuffled: true });
        const pages = async (e: Engine) => {
            const out: unknown[] = [];
            let cursor: string | undefined;
            for (let i = 0; i < 4; i++) {
                const r = await e.query("['d'] | project _time, n", { ...OPTS, limit: 200, cursor, includeCursor: false, includeCursorField: true });
                out.push(same(r.tables[0]));
                cursor = r.status.maxCursor ?? undefined;
                if (!cursor) break;
            }
            return out;
        };
        expect(await pages(p.tiered)).toEqual(await pages(p.whole));
    });

    it('the dataset lists the fields of its blocks and counts their rows', () => {
        const p = pair({ batches: 3, per: 100, coldBatches: 3 });
        expect(p.tiered.fields('d')).toEqual(p.whole.fields('d'));
        expect(p.tiered.stats('d')?.rows).toBe(300);
        expect(p.tiered.stats('d')?.minTime).toBe(p.whole.stats('d')?.minTime);
    });
});

describe('fields that differ between blocks', () => {
    // Block 1: x is whole numbers, y absent; block 2: x has fractions, y strings; memory: y numbers, z new.
    const batches = [
        Array.from({ length: 50 }, (_, i) => ({ _time: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 60_000).toISOString(), x: i })),
        Array.from({ length: 50 }, (_, i) => ({ _time: new Date(Date.parse('2026-11-02T00:00:00Z') + i * 60_000).toISOString(), x: i + 0.5, y: `s${i % 4}` })),
        Array.from({ length: 50 }, (_, i) => ({ _time: new Date(Date.parse('2026-11-03T00:00:00Z') + i * 60_000).toISOString(), x: i, y: i % 3, z: true })),
    ];
    const chunks = batches.map((b, k) => chunkOf(b, k + 1));
    const reader = new MapReader();
    const whole = createEngine();
    const tiered = createEngine({ coldReader: reader });
    const lw = whole.loadDataset('d');
    const lt = tiered.loadDataset('d');
    chunks.forEach(c => lw.appendColumns(c));
    lt.appendColumns(chunks[2]);
    const blocks = chunks.slice(0, 2).map((c, k) => reader.put(k, c));
    lt.setCold({ blocks, keep: { trims: [] } });
    lw.commit();
    lt.commit();
    for (const apl of [
        "['d'] | summarize sum(x), count() by tostring(y)",
        "['d'] | summarize countif(z), max(x)",
        "['d'] | where isnull(z) | count",
        "['d'] | top 4 by x",
        "['d'] | project x, y, z | take 200",
        "['d'] | getschema",
    ]) {
        it(apl, async () => {
            expect(same(await tiered.query(apl, OPTS))).toEqual(same(await whole.query(apl, OPTS)));
        });
    }
    it('fields() widens as one table would', () => {
        expect(JSON.stringify(tiered.fields('d'))).toEqual(JSON.stringify(whole.fields('d')));
    });
});

describe('reading only what a query needs', () => {
    it("['d'] | where _time >= datetime(…last hour…) | count reads the blocks of that hour only", async () => {
        // 30 days, one block a day (in time order), the last day in memory.
        const day = 86_400_000;
        const t0 = Date.parse('2026-10-01T00:00:00Z');
        const reader = new MapReader();
        const e = createEngine({ coldReader: reader });
        const l = e.loadDataset('d');
        const blocks: ColdBlock[] = [];
        for (let d = 0; d < 30; d++) {
            const events = Array.from({ length: 240 }, (_, i) => ({ _time: new Date(t0 + d * day + i * 360_000).toISOString(), v: i }));
            const c = chunkOf(events, d + 1);
            if (d < 29) blocks.push(reader.put(d, c));
            else l.appendColumns(c);
        }
        l.setCold({ blocks, keep: { trims: [] } });
        l.commit();
        const end = new Date(t0 + 30 * day).toISOString();
        const hourAgo = new Date(t0 + 30 * day - 3_600_000).toISOString();
        const r = await e.query("['d'] | count", { startTime: hourAgo, endTime: end, now: end });
        expect(r.tables[0].columns[0]).toEqual([10]);
        expect(reader.reads).toEqual([]);
        expect(r.status.blocksExamined).toBe(1);
        // The hour before midnight of day 28 is in block 27: that block only.
        const r2 = await e.query(`['d'] | where _time >= datetime(${new Date(t0 + 28 * day - 3_600_000).toISOString()}) and _time < datetime(${new Date(t0 + 28 * day).toISOString()}) | count`, { now: end });
        expect(r2.tables[0].columns[0]).toEqual([10]);
        expect(reader.reads).toEqual(['00000027.blk']);
        expect(r2.status.blocksExamined).toBe(1);
    });

    it("['d'] | where v == 250 and host == 'h2' | count reads the block whose value ranges allow it", async () => {
        // Block b holds v in [100b, 100b + 99] and host 'h<b>'. A fresh engine per query: nothing cached.
        const chunks = Array.from({ length: 4 }, (_, b) =>
            chunkOf(Array.from({ length: 100 }, (_, i) => ({ _time: new Date(Date.parse('2026-11-01T00:00:00Z') + (b * 100 + i) * 1000).toISOString(), v: b * 100 + i, host: `h${b}` })), b + 1),
        );
        const whole = createEngine();
        const lw = whole.loadDataset('d');
        chunks.forEach(c => lw.appendColumns(c));
        lw.commit();
        const fresh = () => {
            const reader = new MapReader(false);
            const e = createEngine({ coldReader: reader });
            const l = e.loadDataset('d');
            l.setCold({ blocks: chunks.map((c, b) => reader.put(b, c)), keep: { trims: [] } });
            l.commit();
            return { e, reader };
        };
        for (const [apl, reads] of [
            ["['d'] | where v == 250 | count", ['00000002.blk']],
            ["['d'] | where host == 'h1' | count", ['00000001.blk']],
            ["['d'] | where v >= 250 and host == 'h3' | count", ['00000003.blk']],
            ["['d'] | where v > 399 | count", []],
            ["['d'] | where v < 100 | summarize max(v)", ['00000000.blk']],
            ["['d'] | where host == 'nope' | project v", []],
            // A number compared with a string field decides nothing: every block is read.
            ["['d'] | where host == 5 | count", ['00000000.blk', '00000001.blk', '00000002.blk', '00000003.blk']],
        ] as const) {
            const { e, reader } = fresh();
            const r = await e.query(apl, OPTS);
            expect(reader.reads, apl).toEqual(reads);
            expect(same(r), apl).toEqual(same(await whole.query(apl, OPTS)));
        }
    });

    it("['d'] | where n > 10 | summarize sum(r) by status decodes only n, r and status", async () => {
        const p = pair({ batches: 3, per: 200, coldBatches: 2 });
        const apl = "['d'] | where n > 10 | summarize sum(r) by status";
        expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(await p.whole.query(apl, OPTS)));
        expect(p.reader.fieldsRead.map(f => f.sort())).toEqual([['n', 'r', 'status'], ['n', 'r', 'status']]);
        // A listing reads every field (and the cache keeps both forms apart).
        await p.tiered.query("['d'] | take 1000", OPTS);
        expect(p.reader.fieldsRead.slice(2).map(f => f.length)).toEqual([6, 6]);
    });

    it("['d'] | where status == '500' | count and summarize count() by status read no block's times or row ids; bin(_time, 1d) reads the times alone", async () => {
        const p = pair({ batches: 4, per: 500, coldBatches: 3, counts: false });
        const reads: string[] = [];
        const read = p.reader.read.bind(p.reader);
        p.reader.read = (dataset, block, field) => {
            const c = read(dataset, block, field);
            return c && countingChunk(c, reads);
        };
        for (const apl of ["['d'] | where status == '500' | count", "['d'] | summarize count() by status", "['d'] | summarize c = count(), s = sum(n) by status, method"]) {
            expect(same(await p.tiered.query(apl, OPTS)), apl).toEqual(same(await p.whole.query(apl, OPTS)));
        }
        // The first two read the same field (the cache serves the second), the third three.
        expect(p.reader.reads).toHaveLength(6);
        expect(reads).toEqual([]);
        const binned = "['d'] | summarize count() by bin(_time, 1d), status | order by _time asc";
        expect(same(await p.tiered.query(binned, OPTS))).toEqual(same(await p.whole.query(binned, OPTS)));
        expect(new Set(reads)).toEqual(new Set(['times']));
    });

    it("['d'] | summarize count() by status over more blocks than the cache holds keeps the blocks it read first: run again, it reads only the others", async () => {
        const probe = pair({ batches: 8, per: 2000, coldBatches: 7, counts: false });
        const apl = "['d'] | summarize count() by status";
        await probe.tiered.query(apl, OPTS);
        const perBlock = probe.tiered.coldCacheStats().bytes / 7;
        // Room for three of the seven blocks.
        const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: Math.floor(3.5 * perBlock), counts: false });
        const want = same(await p.whole.query(apl, OPTS));
        expect(same(await p.tiered.query(apl, OPTS))).toEqual(want);
        expect(p.reader.reads).toHaveLength(7);
        expect(p.tiered.coldCacheStats().blocks).toBe(3);
        expect(same(await p.tiered.query(apl, OPTS))).toEqual(want);
        // A least recently used cache would have read all seven again, each pushed out before its turn came.
        expect(p.reader.reads).toHaveLength(11);
        expect(p.tiered.coldCacheStats().blocks).toBe(3);
    });

    it("['d'] | summarize count() by bin(_time, 1d), status after by status counts the times it decoded in the cache's bytes, and max(_time) the times it split", async () => {
        const p = pair({ batches: 4, per: 1000, coldBatches: 3, counts: false });
        await p.tiered.query("['d'] | summarize count() by status", OPTS);
        const before = p.tiered.coldCacheStats();
        await p.tiered.query("['d'] | summarize count() by bin(_time, 1d), status", OPTS);
        const binned = p.tiered.coldCacheStats();
        // The same blocks (the same fields), each with its times decoded (8 bytes a row): a binned
        // time key reads them as stored, unsplit.
        expect(binned.reads).toBe(before.reads);
        expect(binned.bytes - before.bytes).toBe(8 * 3000);
        await p.tiered.query("['d'] | summarize max(_time) by status", OPTS);
        // Split now (12 bytes a row), not decoded again.
        expect(p.tiered.coldCacheStats().bytes - binned.bytes).toBe(12 * 3000);
    });

    it("['d'] | top 3 by n reads the blocks whose header's largest n may be among the 3, and answers as in memory", async () => {
        // Seven blocks on disk whose n lie in [100b, 100b + 99], then rows in memory with small n.
        const batches = Array.from({ length: 8 }, (_, b) =>
            Array.from({ length: 300 }, (_, i) => ({ _time: new Date(Date.UTC(2026, 10, 1 + b, 0, i)).toISOString(), n: b < 7 ? b * 100 + (i % 100) : i % 50, s: `s${i % 7}` })),
        );
        // A fresh pair per query: the block cache would hide the second query's reads.
        const build = () => {
            const reader = new MapReader();
            const whole = createEngine();
            const tiered = createEngine({ coldReader: reader });
            const lw = whole.loadDataset('d');
            const lt = tiered.loadDataset('d');
            const blocks: ColdBlock[] = [];
            batches.forEach((events, b) => {
                const c = chunkOf(events, b + 1);
                if (b < 7) blocks.push(reader.put(b, c));
                else lt.appendColumns(c);
                lw.appendColumns(c);
            });
            lt.setCold({ blocks, keep: { trims: [] } });
            lw.commit();
            lt.commit();
            return { reader, whole, tiered };
        };
        for (const apl of ["['d'] | top 3 by n", "['d'] | top 150 by n desc"]) {
            const { reader, whole, tiered } = build();
            const got = await tiered.query(apl, OPTS);
            expect(same(got), apl).toEqual(same(await whole.query(apl, OPTS)));
            // The narrow pass reads the first block (it tells the blocks) and, largest first, the last; the
            // rows' pass reads the block holding them. The five in between are skipped unread.
            expect(new Set(reader.reads), apl).toEqual(new Set(['00000000.blk', '00000006.blk']));
            expect(got.status.blocksSkipped, apl).toBe(5);
            // Of that block, every field of the answer's rows alone.
            expect(reader.rowReads.map(r => [r.id, r.rows.length]), apl).toEqual([['00000006.blk', apl.includes('150') ? 150 : 3]]);
        }
        // Ascending, or after a filter: every block is read.
        for (const apl of ["['d'] | top 3 by n asc", "['d'] | where s != 'x' | top 3 by n"]) {
            const { reader, whole, tiered } = build();
            expect(same(await tiered.query(apl, OPTS)), apl).toEqual(same(await whole.query(apl, OPTS)));
            expect(new Set(reader.reads).size, apl).toBe(7);
        }
    });

    it("['d'] | summarize count() by status holds one block at a time", async () => {
        const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 1, counts: false });
        const stats = () => p.tiered.coldCacheStats();
        expect(same(await p.tiered.query("['d'] | summarize count() by status", OPTS))).toEqual(same(await p.whole.query("['d'] | summarize count() by status", OPTS)));
        expect(p.reader.reads.length).toBe(7);
        // The bound is below one block: the cache keeps just the block in use.
        expect(stats().blocks).toBe(1);
        await p.tiered.query("['d'] | top 3 by n", OPTS);
        expect(stats().blocks).toBe(1);
        // 7 parts read n; of the blocks holding the 3 best rows, their parts' rows alone are read
        // (each part copies its rows out); the merge reads no block.
        expect(p.reader.reads.length).toBe(14);
        expect(p.reader.rowReads.length).toBeGreaterThanOrEqual(1);
        expect(p.reader.rowReads.length).toBeLessThanOrEqual(3);
    });

    it("['d'] | top 3 by n decodes n of every block, and every field only of the 3 rows of the answer", async () => {
        const p = pair({ batches: 8, per: 2000, coldBatches: 7, shuffled: true });
        const apl = "['d'] | top 3 by n";
        expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(await p.whole.query(apl, OPTS)));
        // The chunks' columns (the times are apart): n alone of every block, then every field of the
        // answer's rows from blocks (3 at most: some may be rows in memory), from at most 3 blocks.
        expect(p.reader.fieldsRead).toEqual(Array.from({ length: 7 }, () => ['n']));
        const full = p.reader.rowReads;
        expect(full.every(r => r.fields.length === 6)).toBe(true);
        expect(full.reduce((n, r) => n + r.rows.length, 0)).toBeGreaterThanOrEqual(1);
        expect(full.reduce((n, r) => n + r.rows.length, 0)).toBeLessThanOrEqual(3);
        expect(full.length).toBeGreaterThanOrEqual(1);
        expect(full.length).toBeLessThanOrEqual(3);
    });

    it("['d'] | top 5 by n: a read of the winners' rows alone gives the status a read of their blocks gives", async () => {
        const apl = "['d'] | top 5 by n";
        const rowsAlone = pair({ batches: 8, per: 1500, coldBatches: 7, shuffled: true });
        const blocks = pair({ batches: 8, per: 1500, coldBatches: 7, shuffled: true });
        // A reader that can only read blocks whole.
        Object.defineProperty(blocks.reader, 'readRows', { value: undefined });
        const a = await rowsAlone.tiered.query(apl, OPTS);
        const b = await blocks.tiered.query(apl, OPTS);
        expect(rowsAlone.reader.rowReads.length).toBeGreaterThan(0);
        expect(blocks.reader.rowReads).toEqual([]);
        expect(comparable(a)).toEqual(comparable(b));
    });

    for (const apl of ["['d'] | where ok | top 4 by r desc, n asc | project r, n, label", "['d'] | where status != '404' | sort by n asc, r desc | take 9 | extend k = n * 2", "['d'] | where n == -5 | top 3 by r", "['d'] | where n == 999 and ok | top 20 by r asc"]) {
        it(`${apl} reads the keys first and answers as in memory`, async () => {
            const p = pair({ batches: 8, per: 1500, coldBatches: 7, shuffled: true, cacheBytes: 1 });
            expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(await p.whole.query(apl, OPTS)));
            expect(same(await p.tiered.queryLegacyFormat(apl, OPTS))).toEqual(same(await p.whole.queryLegacyFormat(apl, OPTS)));
            expect(p.reader.fieldsRead.slice(0, 7).every(f => !f.includes('method'))).toBe(true);
        });
    }

    it("['d'] | summarize make_set(n) over more blocks than the memory limit holds fails with a limit error", async () => {
        const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 300_000 });
        const err = await p.tiered.query("['d'] | summarize make_set(n)", OPTS).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AplQueryError);
        expect((err as AplQueryError).kind).toBe('limit');
        // A narrower time range needs fewer blocks and runs.
        const last = p.cold.blocks[6];
        const narrow = { ...OPTS, startTime: new Date(Number(last.minTime / 1_000_000n)).toISOString() };
        expect(same(await p.tiered.query("['d'] | summarize make_set(n)", narrow))).toEqual(same(await p.whole.query("['d'] | summarize make_set(n)", narrow)));
    });

    // 16,000 events, 300 KB of blocks: 150 KB for the exact states of dcount and percentile (merge-states.ts).
    for (const apl of ["['d'] | summarize dcount(n) by method", "['d'] | summarize percentile(n, 90)", "['d'] | summarize percentiles_array(n, 10, 50), dcountif(status, ok) by bin(_time, 7d)"]) {
        it(`${apl} over more blocks than the memory limit holds runs block by block, exactly`, async () => {
            const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 300_000 });
            const r = await p.tiered.query(apl, OPTS);
            expect(r.status.isEstimate).toBe(false);
            expect(same(r)).toEqual(same(await p.whole.query(apl, OPTS)));
            expect(p.reader.reads.length).toBe(7);
        });
    }

    it("['d'] | summarize dcount(r), percentile(n, 90) by method past the exact states' budget is an estimate within the sketches' bounds", async () => {
        const apl = "['d'] | summarize dcount(r), percentile(n, 90) by method";
        // r has thousands of distinct values a method: their exact state outgrows a sketch (16 KB). n's
        // thousand would stay exact (16 bytes a value), so it is the percentile's.
        const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 60_000 });
        const est = await p.tiered.query(apl, OPTS);
        const exact = await p.whole.query(apl, OPTS);
        expect(est.status.isEstimate).toBe(true);
        expect(est.status.messages?.map(m => m.code)).toEqual(['apl_estimate', 'apl_estimate']);
        expect(exact.status.isEstimate).toBe(false);
        const [methods, dc, pc] = est.tables[0].columns as [string[], number[], number[]];
        const [methods2, dc2, pc2] = exact.tables[0].columns as [string[], number[], number[]];
        expect(methods).toEqual(methods2);
        // HyperLogLog (2^14 registers): standard error 0.81%, 3 of them; the quantile sketch: 1%.
        dc.forEach((d, i) => expect(Math.abs(d - dc2[i]) / dc2[i]).toBeLessThanOrEqual(3 * 0.0081));
        pc.forEach((x, i) => expect(Math.abs(x - pc2[i]) / pc2[i]).toBeLessThanOrEqual(0.01));
    });
});

describe('a column whose block stores its key hashes and its dictionary in parts', () => {
    /**
     * Blocks whose id column is as the store's reader gives it: key hashes, the strings on demand
     * (`dict`), and one value at a time (`valueAt`); both counted. The last batch stays in memory.
     */
    function hashedPair(): { whole: Engine; tiered: Engine; reads: { dict: number; values: number } } {
        const reader = new MapReader();
        const whole = createEngine();
        const tiered = createEngine({ coldReader: reader });
        const lw = whole.loadDataset('d');
        const lt = tiered.loadDataset('d');
        const reads = { dict: 0, values: 0 };
        const blocks: ColdBlock[] = [];
        for (let b = 0; b < 4; b++) {
            const events = Array.from({ length: 3000 }, (_, i) => ({ _time: new Date(Date.UTC(2026, 10, 1 + b, 0, 0, i)).toISOString(), id: `u${(i * 7 + b * 1000) % 2500}`, g: `g${i % 3}`, n: (i * 7919 + b) % 10007 }));
            const c = chunkOf(events, b + 1);
            lw.appendColumns(c);
            if (b === 3) {
                lt.appendColumns(c);
                continue;
            }
            const columns = c.columns.map(col => {
                if (col.kind !== 'str' || col.name !== 'id') return col;
                const keyHashes = new Uint32Array(2 * col.dict.length);
                col.dict.forEach((v, k) => keyHash64(v, true, keyHashes, 2 * k));
                const dict = col.dict;
                return {
                    name: col.name,
                    kind: 'str' as const,
                    codes: col.codes,
                    keyHashes,
                    get dict() {
                        reads.dict++;
                        return dict;
                    },
                    valueAt: (k: number) => {
                        reads.values++;
                        return dict[k - 1];
                    },
                };
            });
            blocks.push(reader.put(b, { ...c, columns }));
        }
        lt.setCold({ blocks, keep: { trims: [] } });
        lw.commit();
        lt.commit();
        // The headers were made from the dictionaries (blockOf): only the queries' reads count.
        Object.assign(reads, { dict: 0, values: 0 });
        return { whole, tiered, reads };
    }

    it("['d'] | summarize dcount(id) by g reads the hashes, not the strings, and answers as in memory", async () => {
        const { whole, tiered, reads } = hashedPair();
        for (const apl of ["['d'] | summarize dcount(id) by g", "['d'] | summarize dcount(id), dcountif(id, g == 'g1')"]) {
            expect(same(await tiered.query(apl, OPTS)), apl).toEqual(same(await whole.query(apl, OPTS)));
        }
        expect(reads.dict).toBe(0);
        // Anything else that reads the values makes the dictionary.
        const apl = "['d'] | where id == 'u7' | summarize count() by g";
        expect(same(await tiered.query(apl, OPTS))).toEqual(same(await whole.query(apl, OPTS)));
        expect(reads.dict).toBeGreaterThan(0);
    });

    for (const apl of ["['d'] | top 3 by n", "['d'] | sort by n desc | take 3", "['d'] | where g == 'g1' | top 2 by n asc"]) {
        it(`${apl} reads the ids of its rows one at a time, not the dictionary, and answers as in memory`, async () => {
            const { whole, tiered, reads } = hashedPair();
            expect(same(await tiered.query(apl, OPTS), apl)).toEqual(same(await whole.query(apl, OPTS), apl));
            expect(reads.dict).toBe(0);
            expect(reads.values).toBeGreaterThan(0);
            // Each block's part copies out its own best rows (3 at most), the merge picks among them.
            expect(reads.values).toBeLessThanOrEqual(3 * 3);
        });
    }
});

describe('a count from the block headers', () => {
    it("['d'] | count over blocks the request's range covers whole reads none of them and equals the count in memory", async () => {
        const p = pair({ batches: 6, per: 700, coldBatches: 4 });
        const tiered = await p.tiered.query("['d'] | count", OPTS);
        expect(p.reader.reads).toEqual([]);
        expect(tiered.tables[0].columns[0]).toEqual([4200]);
        expect(same(tiered)).toEqual(same(await p.whole.query("['d'] | count", OPTS)));
        expect(same(await p.tiered.queryLegacyFormat("['d'] | count", OPTS))).toEqual(same(await p.whole.queryLegacyFormat("['d'] | count", OPTS)));
    });

    // A field of few values (status, method, label: the header lists each value's rows) makes the
    // block without reading it, for a query that reads only that field, in no order, over every row.
    for (const apl of [
        "['d'] | where status == '500' | count",
        "['d'] | summarize count() by status",
        "['d'] | where method != 'GET' | summarize c = count(), d = dcount(method) by method",
        "['d'] | where isnull(label) | count",
        "['d'] | summarize countif(label startswith 'l1') by label",
        "['d'] | summarize count()",
        // Parts over each value and its rows (weighted-counts.ts): counts add rows, the rest see each value once.
        "['d'] | where status in ('500', '404') | summarize c = count(), ci = countif(status == '500'), d = dcount(status), mx = max(status), mn = min(status)",
        "['d'] | where label !has 'l2' | summarize count() by s = strcat(label, '/')",
        "['d'] | where status == 'nope' | summarize count() by status",
    ]) {
        it(`${apl} over blocks the request's range covers whole reads none of them and answers as in memory`, async () => {
            const p = pair({ batches: 6, per: 700, coldBatches: 4 });
            const tiered = await p.tiered.query(apl, OPTS);
            expect(p.reader.reads).toEqual([]);
            expect(same(tiered)).toEqual(same(await p.whole.query(apl, OPTS)));
            // Run again: the same (the made blocks are cached like read ones).
            expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(tiered));
        });
    }

    // A field of more values: the block keeps each value's rows in a section, read without the rows.
    for (const apl of [
        "['d'] | where path contains '1' | summarize count() by path | top 5 by count_",
        "['d'] | where path startswith '/api/p2' | count",
        "['d'] | summarize c = count(), d = dcount(path), mx = max(path), e = countif(isempty(path))",
    ]) {
        it(`${apl} over blocks of a field of 150 values reads their value rows, not the blocks, and answers as in memory`, async () => {
            const p = pair({ batches: 6, per: 700, coldBatches: 4, paths: 150 });
            expect(p.cold.blocks.every(b => b.valueRows?.includes('path'))).toBe(true);
            const tiered = await p.tiered.query(apl, OPTS);
            expect(p.reader.reads).toEqual([]);
            expect([...p.reader.valueRowsRead].sort()).toEqual(p.cold.blocks.map(b => b.id));
            expect(same(tiered)).toEqual(same(await p.whole.query(apl, OPTS)));
            // Run again: the same, and the value rows come from the cache.
            expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(tiered));
            expect(p.reader.valueRowsRead.length).toBe(p.cold.blocks.length);
        });
    }

    // Blocks over their value counts run together as one part (weighted-counts.ts countedSources): the
    // answer and its statistics (rows and blocks examined, block times) are those of reading every block.
    for (const apl of [
        "['d'] | where status == '500' | count",
        "['d'] | summarize count() by status",
        "['d'] | where path contains '1' | summarize c = count(), d = dcount(path) by path",
        "['d'] | summarize count(), max(label)",
    ]) {
        it(`${apl}: the status of blocks taken over their counts is that of blocks read`, async () => {
            const counted = pair({ batches: 7, per: 600, coldBatches: 5, paths: 150 });
            const read = pair({ batches: 7, per: 600, coldBatches: 5, paths: 150, counts: false });
            const a = await counted.tiered.query(apl, OPTS);
            expect(counted.reader.reads).toEqual([]);
            const b = await read.tiered.query(apl, OPTS);
            expect(read.reader.reads.length).toBe(5);
            expect(comparable(a)).toEqual(comparable(b));
            expect(a.status.rowsExamined).toBe(7 * 600);
        });
    }

    it("['d'] | summarize make_list(path) and ['d'] | summarize sum(n) by path read the blocks of a field of 150 values", async () => {
        for (const apl of ["['d'] | summarize make_list(path)", "['d'] | summarize sum(n) by path"]) {
            const p = pair({ batches: 6, per: 700, coldBatches: 4, paths: 150 });
            expect(same(await p.tiered.query(apl, OPTS), apl), apl).toEqual(same(await p.whole.query(apl, OPTS), apl));
            expect(p.reader.reads.length, apl).toBeGreaterThan(0);
            expect(p.reader.valueRowsRead, apl).toEqual([]);
        }
    });

    it("two fields (their counts do not pair their values), a field without counts (n), a time (bin(_time, 1d)), an order (make_list), a range that cuts a block or a trim: the blocks are read", async () => {
        for (const apl of [
            "['d'] | where method != 'GET' | summarize count() by status",
            "['d'] | summarize countif(status startswith '4') by label",
            "['d'] | where status == '500' and n > 5 | count",
            "['d'] | summarize count() by bin(_time, 1d), status",
            "['d'] | summarize make_list(status)",
        ]) {
            const p = pair({ batches: 6, per: 700, coldBatches: 4 });
            expect(same(await p.tiered.query(apl, OPTS), apl), apl).toEqual(same(await p.whole.query(apl, OPTS), apl));
            expect(p.reader.reads.length, apl).toBeGreaterThan(0);
        }
        const apl = "['d'] | summarize count() by status";
        const p = pair({ batches: 6, per: 700, coldBatches: 4 });
        const b = p.cold.blocks[1];
        const opts = { ...OPTS, startTime: new Date(Number((b.minTime + b.maxTime) / 2n / 1_000_000n)).toISOString() };
        expect(same(await p.tiered.query(apl, opts))).toEqual(same(await p.whole.query(apl, opts)));
        expect(p.reader.reads).toEqual([b.id]);
        const first = p.cold.blocks;
        // Block 0 (batch 1) all before the trim, block 1 (batch 2) in part: both read, the others not.
        const trimmed = pair({ batches: 6, per: 700, coldBatches: 4, keep: { trims: [{ seq: 2, before: first[1].minTime + 1n }] } });
        const byStatus = (await trimmed.tiered.query(apl, OPTS)).tables[0].columns[1] as number[];
        expect([...trimmed.reader.reads].sort()).toEqual([first[0].id, first[1].id]);
        // The trim hides batch 1 and part of batch 2 (the whole engine has no trims): the groups add up to the count.
        const total = (await trimmed.tiered.query("['d'] | count", OPTS)).tables[0].columns[0][0] as number;
        expect(total).toBeLessThan(6 * 700 - 700);
        expect(byStatus.reduce((a, b) => a + b, 0)).toBe(total);
    });

    it("counts that come to more rows than the block has are not trusted: the block is read", async () => {
        const p = pair({ batches: 3, per: 300, coldBatches: 2 });
        Object.assign(p.cold.blocks[0], { counts: { ...p.cold.blocks[0].counts, status: [['200', 1000]] } });
        const apl = "['d'] | summarize count() by status";
        expect(same(await p.tiered.query(apl, OPTS))).toEqual(same(await p.whole.query(apl, OPTS)));
        expect(p.reader.reads).toEqual([p.cold.blocks[0].id]);
    });

    it("['d'] | count with a request range that cuts a block reads that block only", async () => {
        const p = pair({ batches: 6, per: 700, coldBatches: 4 });
        const b = p.cold.blocks[1];
        const mid = new Date(Number((b.minTime + b.maxTime) / 2n / 1_000_000n)).toISOString();
        const opts = { ...OPTS, startTime: mid };
        const tiered = await p.tiered.query("['d'] | count", opts);
        expect(p.reader.reads).toEqual([b.id]);
        expect(same(tiered)).toEqual(same(await p.whole.query("['d'] | count", opts)));
    });

    it("['d'] | count reads the blocks whose rows a trim or the retention cut-off hides, and only those", async () => {
        const first = pair({ batches: 5, per: 400, coldBatches: 4 }).cold.blocks;
        // The cut-off inside block 0 (batch 1), a trim of batches up to 2 inside block 1: blocks 2 and 3 show every row.
        const keep = { cutoff: first[0].minTime + 1n, trims: [{ seq: 2, before: first[1].minTime + 1n }] };
        const p = pair({ batches: 5, per: 400, coldBatches: 4, keep });
        const r = await p.tiered.query("['d'] | count", OPTS);
        expect([...p.reader.reads].sort()).toEqual([first[0].id, first[1].id]);
        let hidden = 0;
        [...p.reader.chunks.values()].forEach((c, b) => {
            for (const t of c.times) if (t < keep.cutoff || (b + 1 <= 2 && t < keep.trims[0].before)) hidden++;
        });
        expect(hidden).toBeGreaterThan(0);
        expect(r.tables[0].columns[0]).toEqual([2000 - hidden]);
    });

    it("['d'] | where n > 500 | count reads every block (a filter needs the rows)", async () => {
        const p = pair({ batches: 6, per: 700, coldBatches: 4 });
        const q = "['d'] | where n > 500 | count";
        expect(same(await p.tiered.query(q, OPTS))).toEqual(same(await p.whole.query(q, OPTS)));
        expect(p.reader.reads).toHaveLength(4);
    });
});

describe('row-wise pipelines stream block by block', () => {
    // Room for one block: a scan that held the blocks it needs would fail (see above).
    const p = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 1 });
    // Every block of these spans the whole time range (late events everywhere): merged by time.
    const overlapping = pair({ batches: 8, per: 2000, coldBatches: 7, cacheBytes: 1, shuffled: true });
    for (const apl of [
        "['d'] | where n > 500 | project _time, n, status | take 20",
        "['d'] | where n > 990",
        "['d'] | take 3",
        "['d'] | where status == 'nope'",
        "['d'] | extend k = n * 2 | where k > 1990 | take 5000",
        "['d'] | project n, label | take 9",
        "['d'] | where ok | sort by _time asc | take 11",
        "['d'] | extend _time = datetime(2020-01-01) | take 4",
        "['d'] | take 0",
        "['d'] | where n > 500 | take 0",
        "['d'] | where ok | sort by _time asc | take 0",
        "['d'] | sort by _time desc | take 0",
        "['d'] | top 0 by n",
        "['d'] | sort by n | take 0",
        "['d'] | where n > 500 | summarize count() by status | take 0",
    ]) {
        it(apl, async () => {
            for (const q of [p, overlapping]) {
                expect(same(await q.tiered.query(apl, OPTS), apl)).toEqual(same(await q.whole.query(apl, OPTS), apl));
                expect(same(await q.tiered.query(apl, { ...OPTS, limit: 7 }), apl)).toEqual(same(await q.whole.query(apl, { ...OPTS, limit: 7 }), apl));
            }
        });
    }

    // Blocks larger than a batch of the limit pushdown (4,096 rows), all on disk: a take runs the
    // steps over the first rows of a block until it has its rows, not over the whole block; after
    // a sort by time (the paging query) every block it reads is read whole, so that `rowsMatched`
    // counts their matches.
    const large = pair({ batches: 3, per: 12_000, coldBatches: 3 });
    const largeOverlapping = pair({ batches: 3, per: 12_000, coldBatches: 3, shuffled: true });
    const examined = (r: unknown) => (r as { status: { rowsExamined: number } }).status.rowsExamined;
    for (const [apl, least, most] of [
        ["['d'] | where n > 500 | take 100", 0, 4096],
        ["['d'] | extend k = n * 2 | where k > 1990 | project _time, k | take 3", 0, 12_000],
        // Two blocks whole (a third of their rows match), then one batch of the third.
        ["['d'] | where ok | take 9000", 0, 24_000 + 4096],
        ["['d'] | where status == '500' and n > 900 | take 40", 0, 12_000],
        ["['d'] | where status == 'nope' | take 5", 0, 36_000],
        ["['d'] | where n > 500 | sort by _time desc | take 100", 12_000, 12_000],
        ["['d'] | where n > 500 | sort by _time asc | take 100", 12_000, 12_000],
    ] as const) {
        it(`${apl} (blocks of 12,000 rows)`, async () => {
            const tiered = await large.tiered.query(apl, OPTS);
            expect(same(tiered, apl)).toEqual(same(await large.whole.query(apl, OPTS), apl));
            expect(examined(tiered)).toBeGreaterThanOrEqual(least);
            expect(examined(tiered)).toBeLessThanOrEqual(most);
        });
    }

    // Random row-wise steps and a take over those blocks: the rows of the all-in-memory engine.
    it('<random row-wise steps> [| sort by _time asc] | take N (blocks of 12,000 rows)', async () => {
        const step = fc.oneof(
            fc.integer({ min: -1, max: 1000 }).map(c => `where n > ${c}`),
            fc.constantFrom('200', '404', '500', 'nope').map(v => `where status == '${v}'`),
            fc.constant('where ok'),
            fc.constantFrom('l1', 'l2', '3').map(v => `where label contains '${v}'`),
            fc.integer({ min: 1, max: 9 }).map(c => `extend k = n * ${c}`),
            fc.constant('project _time, n, status, label, ok'),
        );
        await fc.assert(
            fc.asyncProperty(fc.array(step, { maxLength: 4 }), fc.boolean(), fc.oneof(fc.constantFrom(0, 1), fc.integer({ min: 0, max: 15_000 })), async (steps, asc, n) => {
                const apl = ["['d']", ...steps, ...(asc ? ['sort by _time asc'] : []), `take ${n}`].join(' | ');
                for (const q of [large, largeOverlapping]) expect(same(await q.tiered.query(apl, OPTS), apl)).toEqual(same(await q.whole.query(apl, OPTS), apl));
            }),
            { numRuns: 30 },
        );
    });

    it("['d'] | take 3 reads no block (the rows in memory are the newest)", async () => {
        p.reader.reads = [];
        await p.tiered.query("['d'] | take 3", OPTS);
        // The in-memory rows are the newest and hold 3 rows: no block is read.
        expect(p.reader.reads).toEqual([]);
        // Oldest first: the oldest block only (it may still be in the cache: then nothing is read).
        await p.tiered.query("['d'] | order by _time asc | take 3", OPTS);
        expect(p.reader.reads.filter(id => id !== '00000000.blk')).toEqual([]);
    });

    it("['d'] | where n > 990 | order by _time asc pages by cursor as in memory", async () => {
        const pages = async (e: Engine) => {
            const out: unknown[] = [];
            let cursor: string | undefined;
            for (let i = 0; i < 3; i++) {
                const r = await e.query("['d'] | where n > 990 | order by _time asc", { ...OPTS, limit: 50, cursor });
                out.push(same(r.tables[0]));
                cursor = r.status.maxCursor ?? undefined;
            }
            return out;
        };
        expect(await pages(p.tiered)).toEqual(await pages(p.whole));
    });
});

describe('visibility of cold rows', () => {
    it('trims and the retention cut-off hide rows of blocks', async () => {
        const cutoff = BigInt(Date.parse('2026-11-01T12:00:00Z')) * 1_000_000n;
        const p = pair({ batches: 4, per: 500, coldBatches: 3, keep: { cutoff, trims: [{ seq: 2, before: BigInt(Date.parse('2026-11-02T00:00:00Z')) * 1_000_000n }] } });
        const all = (await p.whole.query("['d'] | project _time, n, status", { ...OPTS, limit: 5000 })).tables[0];
        const r = await p.tiered.query("['d'] | count", OPTS);
        const times = all.columns[0] as string[];
        const cutMs = Date.parse('2026-11-01T12:00:00Z');
        const trimMs = Date.parse('2026-11-02T00:00:00Z');
        // Cold batches are seqs 1-3; seq 4 is in memory and not filtered (the store filtered it when loading).
        const chunks = [...p.reader.chunks.values()];
        let hidden = 0;
        chunks.forEach((c, b) => {
            for (const t of c.times) {
                const ms = Number(t / 1_000_000n);
                if (ms < cutMs || (b + 1 <= 2 && ms < trimMs)) hidden++;
            }
        });
        expect(hidden).toBeGreaterThan(0);
        expect(r.tables[0].columns[0]).toEqual([times.length - hidden]);
    });

    it('a block gone from disk hides its rows', async () => {
        const p = pair({ batches: 3, per: 100, coldBatches: 2 });
        p.reader.chunks.delete(p.cold.blocks[0].id);
        expect((await p.tiered.query("['d'] | count", OPTS)).tables[0].columns[0]).toEqual([200]);
        // The batches are consecutive stretches of time: what is left is what follows the gone block.
        const after = `where _time > datetime(${new Date(Number(p.cold.blocks[0].maxTime / 1_000_000n)).toISOString()})`;
        for (const q of ['summarize dcount(n), sum(n)', 'project n, status']) {
            expect(same(await p.tiered.query(`['d'] | ${q}`, OPTS))).toEqual(same(await p.whole.query(`['d'] | ${after} | ${q}`, OPTS)));
        }
    });
});

describe('the block cache across reloads', () => {
    it('keeps the blocks a reload still lists, and drops those of another incarnation of the dataset', async () => {
        const events = mixedEvents(900);
        const reader = new MapReader(false);
        const e = createEngine({ coldReader: reader });
        const c1 = chunkOf(events.slice(0, 300), 1);
        const c2 = chunkOf(events.slice(300, 600), 2);
        reader.chunks.set('00000001.blk', c1);
        reader.chunks.set('00000002.blk', c2);
        const load = (blocks: ColdBlock[], epoch: number) => {
            const l = e.loadDataset('d');
            l.setCold({ blocks, keep: { trims: [] }, epoch });
            l.commit();
        };
        load([blockOf('00000001.blk', c1, false)], 1);
        // `summarize count(), sum(n)` reads the blocks (a query of no field would answer from their headers).
        await e.query("['d'] | summarize count(), sum(n)", OPTS);
        expect(reader.reads).toEqual(['00000001.blk']);
        // A compaction added block 2: block 1 stays cached.
        load([blockOf('00000001.blk', c1, false), blockOf('00000002.blk', c2, false)], 1);
        expect((await e.query("['d'] | summarize count(), sum(n)", OPTS)).tables[0].columns[0]).toEqual([600]);
        expect(reader.reads).toEqual(['00000001.blk', '00000002.blk']);
        // Deleted and made again: block 1 is another block now.
        const other = chunkOf(events.slice(600, 700), 1);
        reader.chunks.set('00000001.blk', other);
        load([blockOf('00000001.blk', other, false)], 2);
        expect((await e.query("['d'] | summarize count(), sum(n)", OPTS)).tables[0].columns[0]).toEqual([100]);
        expect(reader.reads).toEqual(['00000001.blk', '00000002.blk', '00000001.blk']);
    });
});

describe('rows kept from a block', () => {
    it('detachedFrame keeps a dictionary of the rows kept only', () => {
        const codes = Uint32Array.from({ length: 1000 }, (_, i) => (i % 500) + 1);
        const dict = ['', ...Array.from({ length: 500 }, (_, i) => `id-${i}`)];
        const frame = new Frame([{ name: 'id', type: 'string', data: new StrColumn(codes, dict), sel: Uint32Array.of(7, 3, 507) }], 3);
        const copy = detachedFrame(frame);
        const col = copy.cols[0].data as StrColumn;
        expect(col.dict).toEqual(['', 'id-7', 'id-3']);
        expect([0, 1, 2].map(i => col.get(i))).toEqual(['id-7', 'id-3', 'id-7']);
        expect(copy.cols[0].sel).toBeNull();
    });
});

describe('replicas', () => {
    it('a replica gets the cold list with its deltas and reads the blocks itself', async () => {
        const events = mixedEvents(900);
        const reader = new MapReader();
        const main = createEngine({ sharedMemory: true, coldReader: reader });
        const l = main.loadDataset('d');
        const c1 = chunkOf(events.slice(0, 600), 1);
        reader.chunks.set('00000001.blk', c1);
        l.appendColumns(chunkOf(events.slice(600), 2));
        l.setCold({ blocks: [blockOf('00000001.blk', c1)], keep: { trims: [] } });
        l.commit();
        const replica = createEngine({ coldReader: reader });
        const state = newSyncState();
        replica.applyChanges(main.exportChanges(state));
        expect((await replica.query("['d'] | count", OPTS)).tables[0].columns[0]).toEqual([900]);
        // Nothing changed: no cold list in the next delta. Reloaded without blocks: the replica drops them.
        expect(main.exportChanges(state).cold).toEqual([]);
        const l2 = main.loadDataset('d');
        l2.appendColumns(chunkOf(events.slice(600), 2));
        l2.commit();
        replica.applyChanges(main.exportChanges(state));
        expect((await replica.query("['d'] | count", OPTS)).tables[0].columns[0]).toEqual([300]);
    });

    it('planParallel leaves a dataset with blocks on disk to one job', () => {
        const p = pair({ batches: 2, per: 100, coldBatches: 1 });
        expect(p.tiered.planParallel("['d'] | count")).toBeUndefined();
        expect(p.whole.planParallel("['d'] | count")?.kind).toBe('count');
    });
});
