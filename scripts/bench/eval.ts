/**
 * Section "eval" (issue 4): 1M generated `sample-http-logs` events loaded into our engine and into
 * DuckDB (in memory, appender) in the same process; Q1–Q8 timed on both; engine memory and load rate.
 */
import { generateSample } from '../../language/samples/index.js';
import { SAMPLE_HTTP_LOGS } from '../../language/samples/sample-datasets.js';
import {
    type BenchContext, type Row, type SectionResult, Skip, firstLine, fmtBytes, fmtRate, fmtRatio, geomean, importOptional, inBatches, memory, settleRss, timePair, timeRow,
} from './harness.js';
import { EVAL_QUERIES, LOGS_TABLE } from './queries.js';

const DATASET = 'sample-http-logs';
const SEED = 7;
const END = new Date('2025-01-01T00:00:00Z');
const CHUNK = 50_000;

/** The parts of language/eval/engine.ts used here. */
export interface TabularTable {
    fields: { name: string; type: string }[];
    columns: unknown[][];
}
interface Engine {
    ingest(dataset: string, events: Iterable<Record<string, unknown>>): { ingested: number; failed: number };
    query(apl: string, options?: { limit?: number }): Promise<{ tables: TabularTable[] }>;
}
interface EngineModule {
    createEngine(options?: Record<string, unknown>): Engine;
}

/** DuckDB, as far as used here. */
export interface DuckAppender {
    appendVarchar(v: string): void;
    appendDouble(v: number): void;
    appendBigInt(v: bigint): void;
    appendBoolean(v: boolean): void;
    appendTimestamp(v: unknown): void;
    appendNull(): void;
    endRow(): void;
    flushSync(): void;
    closeSync(): void;
}
export interface DuckConnection {
    run(sql: string): Promise<unknown>;
    runAndReadAll(sql: string): Promise<{ columnNames(): string[]; getRowsJson(): unknown[][] }>;
    createAppender(table: string): Promise<DuckAppender>;
    closeSync(): void;
}
export interface DuckModule {
    DuckDBInstance: { create(path?: string, options?: Record<string, string>): Promise<{ connect(): Promise<DuckConnection>; closeSync(): void }> };
    DuckDBTimestampValue: new (micros: bigint) => unknown;
}

/** The section's `rows` generated events, in chunks of CHUNK. */
export function chunks(rows: number): Generator<Record<string, unknown>[]> {
    return inBatches(generateSample(DATASET, { rows, seed: SEED, end: END }), CHUNK);
}

/** The flattened field value of a generated (nested) event: `geo.country` → ev.geo.country. */
export function flatValue(ev: Record<string, unknown>, name: string): unknown {
    if (name in ev) return ev[name];
    let v: unknown = ev;
    for (const part of name.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    return v;
}

const SQL_TYPES: Record<string, string> = { string: 'VARCHAR', real: 'DOUBLE', long: 'BIGINT', bool: 'BOOLEAN', datetime: 'TIMESTAMP' };

/** RFC 3339 with up to 9 fractional digits → µs since the epoch (DuckDB TIMESTAMP precision). */
export function micros(s: string): bigint {
    const m = /^([^.]+)(?:\.(\d+))?(.*)$/.exec(s);
    if (!m) throw new Error(`bad time '${s}'`);
    const ms = Date.parse(m[1]! + (m[3] || 'Z'));
    return BigInt(ms) * 1000n + BigInt(((m[2] ?? '') + '000000').slice(0, 6));
}

export async function evalSection(ctx: BenchContext): Promise<SectionResult> {
    const rowsWanted = ctx.quick ? 100_000 : 1_000_000;
    const label = ctx.quick ? '100k' : '1M';
    const { createEngine } = await importOptional<EngineModule>('language/eval/engine.ts', 'the engine');
    const duck = await importDuckDb();
    const rows: Row[] = [];
    const notes: string[] = [];

    // --- Our engine first, right after a collection, so its RSS delta is not mixed with DuckDB's.
    await settleRss();
    const before = memory();
    const engine = createEngine();
    let engineMs = 0;
    let ingested = 0;
    ctx.log(`eval: generating ${label} events and loading them into the engine`);
    for (const chunk of chunks(rowsWanted)) {
        const t0 = performance.now();
        const counts = engine.ingest(DATASET, chunk);
        engineMs += performance.now() - t0;
        ingested += counts.ingested;
        if (counts.failed > 0) notes.push(`warning: the engine rejected ${counts.failed} events of a chunk`);
    }
    await settleRss();
    const after = memory();
    const rssDelta = after.rss - before.rss;
    const heapDelta = after.heapUsed + after.external - before.heapUsed - before.external;
    if (ingested !== rowsWanted) notes.push(`warning: the engine ingested ${ingested} of ${rowsWanted} events`);

    // --- DuckDB: in memory, one typed table, loaded through an appender.
    ctx.log(`eval: generating the same ${label} events again and appending them to DuckDB`);
    const { instance, db, ms: duckMs } = await loadDuckDb(duck, rowsWanted);
    const threads = (await db.runAndReadAll(`SELECT current_setting('threads')`)).getRowsJson()[0]![0];

    rows.push({
        name: `load ${label} events`,
        ours: fmtRate((rowsWanted / engineMs) * 1000, 'ev'),
        baseline: fmtRate((rowsWanted / duckMs) * 1000, 'ev'),
        ratio: duckMs / engineMs,
        bar: '—',
        pass: null,
    });
    rows.push({
        name: `engine memory, ${label} events (RSS Δ)`,
        ours: fmtBytes(rssDelta),
        baseline: '—',
        ratio: null,
        // The bar is for 1M events; --quick only shows the figure.
        bar: ctx.quick ? '(1M: ≤ 200 MB)' : '≤ 200 MB',
        pass: ctx.quick ? null : rssDelta <= 200 * 1024 * 1024,
    });
    notes.push(`engine memory: RSS ${fmtBytes(before.rss)} → ${fmtBytes(after.rss)} (heap+external Δ ${fmtBytes(heapDelta)}), measured after full GCs and once RSS stops falling (V8 returns freed pages on a background thread), before DuckDB is touched`);
    notes.push(`load times exclude event generation (timed per ${CHUNK / 1000}k-event chunk); DuckDB: appender (one N-API call per value), ${String(threads)} threads; load ratio = our events/s ÷ DuckDB's`);

    // --- Q1–Q8, alternating runs of both sides; each side returns JSON-ready rows.
    const timed = await timeQueries(ctx, 'eval', apl => engine.query(apl), db);
    rows.push(...timed.rows);
    notes.push(...timed.notes);
    const answers = timed.answers;
    notes.push(...sanityCheck(answers));

    db.closeSync();
    instance.closeSync();
    return { rows, notes };
}

export async function importDuckDb(): Promise<DuckModule> {
    try {
        return (await import('@duckdb/node-api')) as unknown as DuckModule;
    } catch (err) {
        throw new Skip(`@duckdb/node-api does not load: ${firstLine(err)}`);
    }
}

/** The sample's top-level fields that DuckDB gets as columns (no _sysTime: ingestion sets it). */
const DUCK_FIELDS = SAMPLE_HTTP_LOGS.fields.filter(f => f.name !== '_sysTime');

/** Creates LOGS_TABLE with a column per DUCK_FIELDS field. */
export async function createLogsTable(db: DuckConnection): Promise<void> {
    await db.run(`CREATE TABLE ${LOGS_TABLE} (${DUCK_FIELDS.map(f => `"${f.name}" ${SQL_TYPES[f.type] ?? 'VARCHAR'}`).join(', ')})`);
}

/** Appends generated events to a LOGS_TABLE appender, a row each. */
export function appendEvents(duck: DuckModule, appender: DuckAppender, events: Iterable<Record<string, unknown>>): void {
    for (const ev of events) {
        for (const f of DUCK_FIELDS) {
            const v = flatValue(ev, f.name);
            if (v === undefined || v === null) appender.appendNull();
            else if (f.type === 'string') appender.appendVarchar(String(v));
            else if (f.type === 'real') appender.appendDouble(Number(v));
            else if (f.type === 'long') appender.appendBigInt(BigInt(v as number));
            else if (f.type === 'bool') appender.appendBoolean(Boolean(v));
            else if (f.type === 'datetime') appender.appendTimestamp(new duck.DuckDBTimestampValue(micros(String(v))));
            else appender.appendVarchar(JSON.stringify(v));
        }
        appender.endRow();
    }
}

/** `rows` generated events in an in-memory DuckDB table (LOGS_TABLE); `ms` is the append time, generation excluded. */
export async function loadDuckDb(duck: DuckModule, rowsWanted: number): Promise<{ instance: { closeSync(): void }; db: DuckConnection; ms: number }> {
    const instance = await duck.DuckDBInstance.create(':memory:');
    const db = await instance.connect();
    await createLogsTable(db);
    const appender = await db.createAppender(LOGS_TABLE);
    let duckMs = 0;
    for (const chunk of chunks(rowsWanted)) {
        const t0 = performance.now();
        appendEvents(duck, appender, chunk);
        duckMs += performance.now() - t0;
    }
    const t0 = performance.now();
    appender.flushSync();
    appender.closeSync();
    duckMs += performance.now() - t0;
    return { instance, db, ms: duckMs };
}

/** Per-query bar and geomean bar of issue 14 (goal: geomean ≤ 0.7×). */
export const QUERY_BAR = 2;
export const GEOMEAN_BAR = 1;

export type Answers = Map<string, { ours: TabularTable; theirs: { names: string[]; rows: unknown[][] } }>;

/** Q1–Q8 on our side (`ours` answers the first table) and on DuckDB, alternating; a row per query and the geomean. */
export async function timeQueries(
    ctx: BenchContext,
    label: string,
    /** Our answer: the result, or its JSON text (parsed after the timing, as the service sends it as it is). */
    ours: (apl: string) => Promise<{ tables: TabularTable[] } | string>,
    db: DuckConnection,
    suffix = '',
): Promise<{ rows: Row[]; notes: string[]; answers: Answers; geomean?: number }> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const ratios: number[] = [];
    const answers: Answers = new Map();
    for (const q of EVAL_QUERIES) {
        ctx.log(`${label}: ${q.id}${suffix}`);
        let raw: { tables: TabularTable[] } | string | undefined;
        let theirs: { names: string[]; rows: unknown[][] } | undefined;
        try {
            const [a, b] = await timePair(
                async () => { raw = await ours(q.apl); },
                async () => {
                    const r = await db.runAndReadAll(q.sql);
                    theirs = { names: r.columnNames(), rows: r.getRowsJson() };
                },
                { warmup: 1, runs: 5 },
            );
            const row = timeRow(`${q.label ?? q.id}${suffix}`, a.median, b.median, q.bar ?? QUERY_BAR);
            rows.push(row);
            ratios.push(row.ratio!);
            const mine = typeof raw === 'string' ? (JSON.parse(raw) as { tables: TabularTable[] }).tables[0] : raw?.tables[0];
            if (mine && theirs) answers.set(q.id, { ours: mine, theirs });
        } catch (err) {
            rows.push({ name: `${q.label ?? q.id}${suffix}`, ours: `error: ${firstLine(err).slice(0, 60)}`, baseline: '', ratio: null, bar: `≤ ${(q.bar ?? QUERY_BAR).toFixed(1)}×`, pass: false });
        }
    }
    let g: number | undefined;
    if (ratios.length > 0) {
        g = geomean(ratios);
        rows.push({ name: `geomean of ${ratios.length} queries${suffix}`, ours: '', baseline: '', ratio: g, bar: `≤ ${GEOMEAN_BAR.toFixed(1)}×`, pass: g <= GEOMEAN_BAR && ratios.length === EVAL_QUERIES.length });
        notes.push(`goal${suffix}: geomean ≤ 0.7× (now ${fmtRatio(g)})`);
    }
    return { rows, notes, answers, geomean: g };
}

function column(t: TabularTable, name: string): unknown[] {
    const i = t.fields.findIndex(f => f.name === name);
    if (i < 0) throw new Error(`no field '${name}' in our result (fields: ${t.fields.map(f => f.name).join(', ')})`);
    return t.columns[i]!;
}

/** Q1, Q2 and Q6 must agree between the two sides; a warning line for each that does not. */
export function sanityCheck(answers: Map<string, { ours: TabularTable; theirs: { names: string[]; rows: unknown[][] } }>): string[] {
    const out: string[] = [];
    const check = (id: string, fn: (ours: TabularTable, theirs: { names: string[]; rows: unknown[][] }) => string | undefined) => {
        const a = answers.get(id);
        if (!a) return out.push(`warning: ${id}: no answers to compare`);
        try {
            const problem = fn(a.ours, a.theirs);
            out.push(problem ? `warning: ${id} answers differ: ${problem}` : `${id}: same answer on both sides`);
        } catch (err) {
            out.push(`warning: ${id}: could not compare: ${firstLine(err)}`);
        }
        return undefined;
    };
    check('Q1', (ours, theirs) => {
        const mine = Number(ours.columns[0]![0]);
        const other = Number(theirs.rows[0]![0]);
        return mine === other ? undefined : `count ${mine} vs DuckDB ${other}`;
    });
    check('Q2', (ours, theirs) => {
        const mine = new Map<string, number>();
        const statuses = column(ours, 'status');
        const counts = column(ours, 'count_');
        statuses.forEach((s, i) => mine.set(String(s), Number(counts[i])));
        const other = new Map(theirs.rows.map(r => [String(r[0]), Number(r[1])] as const));
        if (mine.size !== other.size) return `${mine.size} groups vs DuckDB ${other.size}`;
        for (const [k, v] of other) if (mine.get(k) !== v) return `status ${k}: ${mine.get(k)} vs DuckDB ${v}`;
        return undefined;
    });
    check('Q6', (ours, theirs) => {
        const mine = column(ours, 'req_duration_ms').map(Number);
        const di = theirs.names.indexOf('req_duration_ms');
        const other = theirs.rows.map(r => Number(r[di]));
        if (mine.length !== other.length) return `${mine.length} rows vs DuckDB ${other.length}`;
        for (let i = 0; i < mine.length; i++) if (mine[i] !== other[i]) return `row ${i}: ${mine[i]} vs DuckDB ${other[i]}`;
        const ids = column(ours, 'id').map(String).sort().join();
        const otherIds = theirs.rows.map(r => String(r[theirs.names.indexOf('id')])).sort().join();
        return ids === otherIds ? undefined : 'same durations but different events (ties?)';
    });
    return out;
}
