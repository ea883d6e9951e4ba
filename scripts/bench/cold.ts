/**
 * Section "cold" (issue 14 part 2, data larger than memory), against the service running as
 * deployed (`node out/apl.cjs serve`, in a child process) with
 * `--memory-limit L` (`APL_BENCH_COLD_LIMIT`; default 512m, 256m with --quick so that its 2M events
 * do not fit half of it either) and 2 query workers:
 * - N generated sample-http-logs events (`APL_BENCH_COLD_EVENTS`; default 20M, 2M with --quick,
 *   the events of the eval section's generator) ingested over HTTP in NDJSON bodies of 10k events,
 *   2 requests in flight; the rate excludes generation (bodies are serialised in batches before
 *   the timed requests). The dataset does not fit half of L, so its blocks stay on disk;
 * - Q1–Q8 over the whole time range, the blocks they read (`status.blocksExamined`); a query that
 *   needs all its blocks in memory at once and exceeds the block cache is refused (HTTP 400
 *   `limit`) and shown as such (a miss: Q1–Q8 all run block by block; Q4's dcount and Q5's
 *   percentile are estimates past their exact states' budget, language/eval/merge-states.ts);
 * - `count` over the last hour of the data: the blocks it reads of those on disk;
 * - the server's resident memory (VmRSS sampled every 100 ms through ingest and queries, and
 *   VmHWM) against L plus the service's fixed overhead (its threads: 2 ingest and 2 query workers,
 *   V8 heaps, the write-ahead-log tail, bodies in flight; it appears as soon as it ingests at full
 *   speed and does not depend on the data). The overhead is measured first by a calibration run: the
 *   same flags and workload (body size, requests in flight, queries) on max(200k, N / 40) events
 *   under `--memory-limit 32m` in its own data directory; its peak RSS minus 32 MiB. So the bar
 *   says that the RSS does not grow with the data beyond L;
 * - correctness and cost: the same data directory served again with everything in memory
 *   (`--memory-limit 64g`); the queries that answered with blocks on disk, plus Q4 and Q5 over the
 *   last day, must answer the same (statistics aside, reals to 9 significant digits; an answer
 *   marked `isEstimate` within the sketches' documented error: dcount 3 standard errors of
 *   HyperLogLog, 2.43%; percentile 1%, plus rounding to a whole number for an integer field); the
 *   ratio column is the time with blocks on disk ÷ the time in memory.
 */
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseSizeOption } from '../../client/cli/options.js';
import { type BenchContext, type Row, type SectionResult, Skip, firstLine, fmtBytes, fmtMs, fmtRate, summarize } from './harness.js';
import { call, procBytes, serveCommand, startServer, stopServer, type Started } from './service.js';
import { chunks } from './eval.js';
import { EVAL_QUERIES } from './queries.js';
import { decodeBlock, readBlockHeaderOnly } from '../../server/store/block.js';
import { ZONE_ROWS } from '../../language/eval/zone-maps.js';

const DATASET = 'sample-http-logs';
/** The whole time range of the generated events (they end on 2025-01-01), as in the service section. */
const RANGE = { startTime: '2024-01-01T00:00:00Z', endTime: '2025-01-02T00:00:00Z' };
const BODY_EVENTS = 10_000;
const IN_FLIGHT = 2;
/** Bodies serialised ahead of each timed stretch of requests (200k events). */
const BODIES_PER_BATCH = 20;
const HOUR_MS = 3_600_000;
/**
 * Status fields that legitimately differ between the two modes: how a query read the data, not
 * what it answered. `blocksSkipped` is the other half of `blocksExamined` (the zones a query's
 * pruning left unread): which rows are still in the write-ahead log's tail decides which zones a
 * `top` can leave out, and the tail differs between the two services (Q6 was one zone off).
 */
const VOLATILE = new Set(['elapsedTime', 'blocksExamined', 'blocksSkipped', 'rowsExamined', 'minBlockTime', 'maxBlockTime', 'rowsMatched']);
/** The documented error of an estimated dcount (3 standard errors of a HyperLogLog of 2^14 registers) and percentile (relative). */
const DCOUNT_ERROR = 3 * (1.04 / 128);
const PERCENTILE_ERROR = 0.01;

interface Answer {
    status: number;
    /** Median of the runs, ms. */
    ms: number;
    runs: number;
    text: string;
    json?: { status?: { blocksExamined?: number; isEstimate?: boolean }; tables?: { columns: unknown[][] }[]; detail?: { errorType?: string } };
}

interface QuerySpec {
    id: string;
    apl: string;
    range: { startTime: string; endTime: string };
}

/** Samples a process's VmRSS every 100 ms (when the event loop is free) and keeps the peak. */
class RssSampler {
    peak = 0;
    samples = 0;
    private readonly timer: NodeJS.Timeout;
    constructor(private readonly pid: number | undefined) {
        this.sample();
        this.timer = setInterval(() => this.sample(), 100);
        this.timer.unref();
    }
    sample(): void {
        const rss = procBytes(this.pid, 'VmRSS');
        if (rss === undefined) return;
        this.samples++;
        if (rss > this.peak) this.peak = rss;
    }
    stop(): void {
        clearInterval(this.timer);
    }
}

function countLabel(n: number): string {
    return n >= 1e6 && n % 1e5 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 100 === 0 ? `${n / 1e3}k` : String(n);
}

async function query(base: string, apl: string, range: { startTime: string; endTime: string }): Promise<{ status: number; ms: number; text: string }> {
    const t0 = performance.now();
    const r = await call(base, 'POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl, ...range }));
    return { status: r.status, ms: performance.now() - t0, text: r.text };
}

/** One run; two more when it is quick (< 3 s) and answered, for a median of 3. */
async function timed(base: string, apl: string, range: { startTime: string; endTime: string }): Promise<Answer> {
    const first = await query(base, apl, range);
    const times = [first.ms];
    let last = first;
    if (first.status === 200 && first.ms < 3000) {
        for (let i = 0; i < 2; i++) {
            last = await query(base, apl, range);
            times.push(last.ms);
            if (last.status !== 200) break;
        }
    }
    let json: Answer['json'];
    try {
        json = JSON.parse(last.text) as Answer['json'];
    } catch {
        json = undefined;
    }
    return { status: last.status, ms: summarize(times).median, runs: times.length, text: last.text, json };
}

/**
 * Where an estimated answer (blocks on disk) is past the documented error of the exact one (in
 * memory), or undefined: dcount columns within DCOUNT_ERROR, percentile ones within
 * PERCENTILE_ERROR (+ 0.5 for the rounding of an integer field), the rest as `comparable`.
 */
function estimateDifference(estimated: string, exact: string): string | undefined {
    type Tabular = { tables: { fields: { name: string; agg?: { name?: string } }[]; columns: unknown[][] }[]; status?: Record<string, unknown> };
    const a = comparable(estimated) as Tabular;
    const b = comparable(exact) as Tabular;
    for (const x of [a, b]) {
        delete x.status?.isEstimate;
        delete x.status?.messages;
    }
    for (const [t, table] of a.tables.entries()) {
        table.fields.forEach((f, j) => {
            const agg = f.agg?.name ?? '';
            const bound = agg.startsWith('distinct') ? (v: number) => DCOUNT_ERROR * Math.abs(v) : agg.startsWith('percentiles') ? (v: number) => PERCENTILE_ERROR * Math.abs(v) + 0.5 : undefined;
            const other = b.tables[t]?.columns[j];
            if (!bound || !other) return;
            // Within the bound: take the exact value, so that the rest compares as usual.
            table.columns[j] = table.columns[j].map((v, i) => (typeof v === 'number' && typeof other[i] === 'number' && Math.abs(v - other[i]) <= bound(other[i]) ? other[i] : v));
        });
    }
    return firstDifference(a, b);
}

function isLimit(a: Answer): boolean {
    return a.status === 400 && a.json?.detail?.errorType === 'limit';
}

/** The answer without what legitimately differs between the modes; reals to 9 significant digits. */
function comparable(text: string): unknown {
    return JSON.parse(text, (k, x: unknown) => (VOLATILE.has(k) ? undefined : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(9)) : x));
}

/** Where two JSON values first differ (a path and both values), or undefined. */
function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
    if (a === b) return undefined;
    if (a && b && typeof a === 'object' && typeof b === 'object') {
        if (Array.isArray(a) !== Array.isArray(b)) return `${at || '.'}: array vs object`;
        if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${at || '.'}: length ${a.length} vs ${b.length}`;
        const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
        for (const k of keys) {
            const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
            if (d) return d;
        }
        return undefined;
    }
    return `${at || '.'}: ${JSON.stringify(a)?.slice(0, 60)} vs ${JSON.stringify(b)?.slice(0, 60)}`;
}

function blockFiles(dataDir: string): number {
    try {
        return readdirSync(path.join(dataDir, 'datasets', DATASET, 'blocks')).length;
    } catch {
        return 0;
    }
}

/**
 * How many zones a query over `_time` in [start, end] has to read when it prunes by the zones' time
 * spans: those of the blocks on disk (the server reads each block as its own table, zones of
 * ZONE_ROWS rows in stored order) whose span meets the range, plus the zones of the WAL tail held
 * in memory (`total` minus the blocks' rows: the newest events, which hold the latest times).
 */
async function zonesMeeting(dataDir: string, start: bigint, end: bigint, total: number): Promise<number> {
    const dir = path.join(dataDir, 'datasets', DATASET, 'blocks');
    let zones = 0;
    let blockRows = 0;
    for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        const header = await readBlockHeaderOnly(file);
        blockRows += header.rows;
        if (BigInt(header.maxTime) < start || BigInt(header.minTime) > end) continue;
        const { times, rows } = decodeBlock(await readFile(file), () => false);
        for (let z = 0; z < rows; z += ZONE_ROWS) {
            let lo = times[z];
            let hi = lo;
            for (let i = z + 1; i < Math.min(rows, z + ZONE_ROWS); i++) {
                if (times[i] < lo) lo = times[i];
                else if (times[i] > hi) hi = times[i];
            }
            if (hi >= start && lo <= end) zones++;
        }
    }
    return zones + Math.ceil(Math.max(0, total - blockRows) / ZONE_ROWS);
}

function* bodies(n: number): Generator<Buffer> {
    for (const chunk of chunks(n)) {
        for (let i = 0; i < chunk.length; i += BODY_EVENTS) {
            yield Buffer.from(chunk.slice(i, i + BODY_EVENTS).map(e => JSON.stringify(e)).join('\n'));
        }
    }
}

async function count(base: string): Promise<number> {
    const r = await query(base, `['${DATASET}'] | count`, RANGE);
    if (r.status !== 200) throw new Error(`count: HTTP ${r.status}: ${r.text.slice(0, 200)}`);
    return Number((JSON.parse(r.text) as { tables: { columns: unknown[][] }[] }).tables[0]?.columns[0]?.[0]);
}

const SERVER_FLAGS = ['--query-workers', '2', '--query-timeout', '1h'];
/** The memory limit of the calibration run: its peak RSS minus this is the fixed overhead. */
const CALIBRATION_LIMIT = '32m';

async function serve(bundle: string[], dataDir: string, memoryLimit: string): Promise<Started> {
    try {
        return await startServer(bundle, dataDir, ['--memory-limit', memoryLimit, ...SERVER_FLAGS]);
    } catch (err) {
        throw new Skip(`the service does not start: ${firstLine(err)}`);
    }
}

/** What one run under a memory limit measured (the server is stopped when it returns). */
interface LimitedRun {
    events: number;
    label: string;
    limitText: string;
    ingested: number;
    failed: number;
    /** The events the service counted once the compactions settled. */
    counted: number;
    bytes: number;
    ingestMs: number;
    totalBlocks: number;
    maxTime: string;
    specs: QuerySpec[];
    hourSpec: QuerySpec;
    /** The zones whose time span meets the last hour (zonesMeeting): what its query may read. */
    hourZones: number;
    answers: Map<string, Answer>;
    /** RSS right after start-up, peak during ingest, right after it, peak during the queries. */
    startRss: number;
    ingestPeak: number;
    afterIngest: number;
    queryPeak: number;
    /** Peak of the 100 ms VmRSS samples, their count, VmHWM, and the larger of the two peaks. */
    sampledPeak: number;
    rssSamples: number;
    hwm: number;
    peak: number;
    /** Per query: `id before → peak` (MB). */
    perQuery: string[];
    /** The service's line saying that the dataset keeps its blocks on disk, if it said so. */
    onDiskLog: string | undefined;
    serverLog: string[];
}

/**
 * One run of the workload under `--memory-limit limitText` on an empty data directory: start the
 * service, ingest `events` over HTTP (bodies of BODY_EVENTS, IN_FLIGHT in flight), let the
 * compactions settle, run the queries with blocks on disk, sampling the server's RSS throughout;
 * then stop the service (also on failure). `tag` prefixes the progress lines.
 */
async function runUnderLimit(ctx: BenchContext, bundle: string[], dataDir: string, limitText: string, events: number, tag: string): Promise<LimitedRun> {
    const label = countLabel(events);
    const server = await serve(bundle, dataDir, limitText);
    let sampler: RssSampler | undefined;
    try {
        const pid = server.child.pid;
        const startRss = procBytes(pid, 'VmRSS');
        if (startRss === undefined) throw new Skip('no /proc/<pid>/status to read the server memory from (Linux only)');
        sampler = new RssSampler(pid);
        const base = server.base;
        // The service logs (stderr) when a dataset starts keeping its blocks on disk.
        let onDiskLog: string | undefined;
        const serverLog: string[] = [];
        let partial = '';
        server.child.stderr!.on('data', (d: Buffer) => {
            const lines = (partial + d.toString()).split('\n');
            partial = lines.pop()!;
            for (const line of lines) {
                if (serverLog.length < 200) serverLog.push(line);
                if (onDiskLog === undefined && /stay on disk/.test(line)) onDiskLog = line;
            }
        });
        const created = await call(base, 'POST', '/v2/datasets', JSON.stringify({ name: DATASET }));
        if (created.status < 200 || created.status >= 300) throw new Error(`creating ${DATASET}: HTTP ${created.status}: ${created.text.slice(0, 200)}`);

        // --- Ingest: serialise a batch of bodies (untimed), send it with IN_FLIGHT requests (timed).
        ctx.log(`${tag}: ingesting ${label} events over HTTP (bodies of ${BODY_EVENTS / 1000}k, ${IN_FLIGHT} in flight) under --memory-limit ${limitText}`);
        let ingestMs = 0;
        let ingested = 0;
        let failed = 0;
        let bytes = 0;
        const source = bodies(events);
        let lastLog = performance.now();
        for (;;) {
            const batch: Buffer[] = [];
            for (let i = 0; i < BODIES_PER_BATCH; i++) {
                const next = source.next();
                if (next.done) break;
                batch.push(next.value);
            }
            if (batch.length === 0) break;
            sampler.sample();
            let i = 0;
            const t0 = performance.now();
            const worker = async () => {
                while (i < batch.length) {
                    const body = batch[i++]!;
                    const r = await call(base, 'POST', `/v1/datasets/${DATASET}/ingest`, body, 'application/x-ndjson');
                    if (r.status !== 200) throw new Error(`ingest: HTTP ${r.status}: ${r.text.slice(0, 200)}`);
                    const s = JSON.parse(r.text) as { ingested?: number; failed?: number };
                    ingested += s.ingested ?? 0;
                    failed += s.failed ?? 0;
                }
            };
            await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
            ingestMs += performance.now() - t0;
            bytes += batch.reduce((s, b) => s + b.length, 0);
            if (performance.now() - lastLog > 15_000) {
                lastLog = performance.now();
                ctx.log(`${tag}: ${countLabel(Math.round(ingested / 1e5) * 1e5)} ingested, server RSS ${fmtBytes(procBytes(pid, 'VmRSS') ?? 0)}`);
            }
        }
        const ingestPeak = sampler.peak;

        // Let the compactions settle (the block count stops growing), so the queries see the blocks.
        for (let last = -1, stable = 0, t0 = performance.now(); stable < 4 && performance.now() - t0 < 60_000;) {
            await new Promise(r => setTimeout(r, 500));
            const n = blockFiles(dataDir);
            stable = n === last ? stable + 1 : 0;
            last = n;
        }
        const totalBlocks = blockFiles(dataDir);
        const counted = await count(base);

        // --- Q1–Q8 over the whole range, the last hour and the last day, blocks on disk.
        const specs: QuerySpec[] = EVAL_QUERIES.map(q => ({ id: q.id, apl: q.apl, range: RANGE }));
        const maxTimeAnswer = await query(base, `['${DATASET}'] | summarize m = max(_time)`, RANGE);
        if (maxTimeAnswer.status !== 200) throw new Error(`max(_time): HTTP ${maxTimeAnswer.status}: ${maxTimeAnswer.text.slice(0, 200)}`);
        const maxTime = String((JSON.parse(maxTimeAnswer.text) as { tables: { columns: unknown[][] }[] }).tables[0]?.columns[0]?.[0]);
        const maxMs = Date.parse(maxTime);
        if (!Number.isFinite(maxMs)) throw new Error(`max(_time) is not a time: ${maxTime}`);
        const lastHour = { startTime: new Date(maxMs - HOUR_MS).toISOString(), endTime: RANGE.endTime };
        const lastDay = { startTime: new Date(maxMs - 24 * HOUR_MS).toISOString(), endTime: RANGE.endTime };
        const hourSpec: QuerySpec = { id: 'count, last hour', apl: `['${DATASET}'] | count`, range: lastHour };
        const hourZones = await zonesMeeting(dataDir, BigInt(Date.parse(lastHour.startTime)) * 1_000_000n, BigInt(Date.parse(lastHour.endTime)) * 1_000_000n, counted);
        specs.push(hourSpec);
        for (const id of ['Q4', 'Q5']) specs.push({ id: `${id}, last day`, apl: EVAL_QUERIES.find(q => q.id === id)!.apl, range: lastDay });

        const afterIngest = procBytes(pid, 'VmRSS') ?? 0;
        const querySampler = new RssSampler(pid);
        const answers = new Map<string, Answer>();
        // The server's RSS before each query and its peak while the query runs (sampled every 100 ms).
        const perQuery: string[] = [];
        try {
            for (const s of specs) {
                ctx.log(`${tag}: ${s.id} (${label}, blocks on disk)`);
                const before = procBytes(pid, 'VmRSS') ?? 0;
                const during = new RssSampler(pid);
                try {
                    answers.set(s.id, await timed(base, s.apl, s.range));
                    during.sample();
                } finally {
                    during.stop();
                }
                perQuery.push(`${s.id} ${Math.round(before / 2 ** 20)} → ${Math.round(during.peak / 2 ** 20)}`);
            }
        } finally {
            querySampler.stop();
        }
        sampler.sample();
        sampler.stop();
        const hwm = procBytes(pid, 'VmHWM') ?? 0;
        const sampledPeak = sampler.peak;
        return {
            events, label, limitText, ingested, failed, counted, bytes, ingestMs, totalBlocks, maxTime, specs, hourSpec, hourZones, answers,
            startRss, ingestPeak, afterIngest, queryPeak: querySampler.peak, sampledPeak, rssSamples: sampler.samples, hwm, peak: Math.max(sampledPeak, hwm),
            perQuery, onDiskLog, serverLog,
        };
    } finally {
        sampler?.stop();
        await stopServer(server).catch(() => undefined);
    }
}

export async function coldSection(ctx: BenchContext): Promise<SectionResult> {
    // --quick: 2M events take about 230 MB in memory, which fits half of 512m; 256m keeps them on disk.
    const limitText = process.env.APL_BENCH_COLD_LIMIT ?? (ctx.quick ? '256m' : '512m');
    const limit = parseSizeOption('APL_BENCH_COLD_LIMIT', limitText, 16 * 1024 * 1024);
    const envEvents = process.env.APL_BENCH_COLD_EVENTS;
    const events = envEvents !== undefined ? Number(envEvents) : ctx.quick ? 2_000_000 : 20_000_000;
    if (!Number.isInteger(events) || events < BODY_EVENTS) throw new Error(`APL_BENCH_COLD_EVENTS must be a whole number ≥ ${BODY_EVENTS}, not '${envEvents}'`);
    const label = countLabel(events);
    // The calibration: the same workload on a small dataset (one timed batch of bodies at least).
    const calibrationEvents = Math.max(BODY_EVENTS * BODIES_PER_BATCH, Math.ceil(events / 40 / BODY_EVENTS) * BODY_EVENTS);
    const calibrationLimit = parseSizeOption('calibration limit', CALIBRATION_LIMIT, 16 * 1024 * 1024);
    const rows: Row[] = [];
    const notes: string[] = [];
    const bundle = serveCommand(ctx);
    const calibrationDir = mkdtempSync(path.join(tmpdir(), 'apl-bench-cold-calibration-'));
    let dataDir: string | undefined;
    let server: Started | undefined;
    try {
        // --- Calibration: the fixed overhead of the service at full speed (threads, V8 heaps, the
        // write-ahead-log tail, bodies in flight), independent of the data: the peak RSS of the same
        // workload on a small dataset under a small limit, minus that limit.
        const cal = await runUnderLimit(ctx, bundle, calibrationDir, CALIBRATION_LIMIT, calibrationEvents, 'cold calibration');
        rmSync(calibrationDir, { recursive: true, force: true });
        const overhead = Math.max(0, cal.peak - calibrationLimit);

        // --- The main run, under the limit.
        dataDir = mkdtempSync(path.join(tmpdir(), 'apl-bench-cold-'));
        const run = await runUnderLimit(ctx, bundle, dataDir, limitText, events, 'cold');
        const { specs, hourSpec, totalBlocks, peak, startRss } = run;
        const cold = run.answers;
        if (run.ingested !== events || run.failed > 0) notes.push(`warning: the service ingested ${run.ingested} of ${events} events (${run.failed} failed)`);
        const rate = (run.ingested / run.ingestMs) * 1000;
        rows.push({ name: `HTTP ingest, ${label} events, bodies of ${BODY_EVENTS / 1000}k`, ours: `${fmtRate(rate, 'ev')} (${((run.bytes / run.ingestMs) * 1000 / 2 ** 20).toFixed(1)} MB/s)`, baseline: '—', ratio: null, bar: '—', pass: null });
        notes.push(`ingest: ${(run.bytes / 2 ** 20).toFixed(0)} MB NDJSON in ${fmtMs(run.ingestMs)} of requests (generation and serialisation excluded: ${BODIES_PER_BATCH} bodies serialised before each timed stretch), ${IN_FLIGHT} in flight, each acknowledged durably`);
        if (run.counted !== events) notes.push(`warning: the service counts ${run.counted} events, expected ${events}`);

        ctx.log('cold: restarting the service on the same data with --memory-limit 64g (everything in memory)');
        // --- The same data, all in memory.
        server = await serve(bundle, dataDir, '64g');
        const loadT0 = performance.now();
        let loadedCount = -1;
        while ((loadedCount = await count(server.base)) !== events && performance.now() - loadT0 < 600_000) await new Promise(r => setTimeout(r, 500));
        notes.push(`in memory: the restarted service (--memory-limit 64g) counted ${loadedCount} events ${fmtMs(performance.now() - loadT0)} after it first answered`);
        const hot = new Map<string, Answer>();
        for (const s of specs) {
            // Refused ones too (their in-memory time is shown beside the refusal), not compared.
            ctx.log(`cold: ${s.id} (${label}, in memory)`);
            hot.set(s.id, await timed(server.base, s.apl, s.range));
        }

        // --- Rows: one per query, cold time vs in-memory time.
        const mismatches: string[] = [];
        let compared = 0;
        for (const s of specs) {
            const c = cold.get(s.id)!;
            const h = hot.get(s.id);
            const name = `${s.id} (${label}, blocks on disk)`;
            if (s === hourSpec) continue;
            if (isLimit(c)) {
                rows.push({ name, ours: 'refused: needs all blocks at once', baseline: h?.status === 200 ? `${fmtMs(h.ms)} in memory` : '—', ratio: null, bar: '—', pass: false });
                continue;
            }
            if (c.status !== 200) {
                rows.push({ name, ours: `HTTP ${c.status}: ${(c.json as { message?: string } | undefined)?.message?.slice(0, 50) ?? c.text.slice(0, 50)}`, baseline: '—', ratio: null, bar: '—', pass: false });
                continue;
            }
            const blocks = c.json?.status?.blocksExamined;
            rows.push({
                name,
                ours: `${fmtMs(c.ms)}, ${blocks ?? '?'} blocks${c.json?.status?.isEstimate ? ' (estimate)' : ''}`,
                baseline: h && h.status === 200 ? `${fmtMs(h.ms)} in memory` : `HTTP ${h?.status ?? '—'} in memory`,
                ratio: h && h.status === 200 ? c.ms / h.ms : null,
                bar: '—',
                pass: null,
            });
        }
        for (const s of specs) {
            const c = cold.get(s.id)!;
            const h = hot.get(s.id);
            if (c.status !== 200 || !h) continue;
            compared++;
            if (h.status !== 200) {
                mismatches.push(`${s.id}: HTTP ${h.status} in memory`);
                continue;
            }
            const d = c.json?.status?.isEstimate ? estimateDifference(c.text, h.text) : firstDifference(comparable(c.text), comparable(h.text));
            if (d) mismatches.push(`${s.id}: ${d}`);
        }

        // --- The last hour: the blocks of that hour only, i.e. no zone whose time span misses it.
        const hc = cold.get(hourSpec.id)!;
        const hb = hc.json?.status?.blocksExamined;
        const hh = hot.get(hourSpec.id);
        rows.push({
            name: `count, last hour (${label}, blocks on disk)`,
            ours: hc.status === 200 ? `${fmtMs(hc.ms)}, ${hb} of ${totalBlocks} blocks` : `HTTP ${hc.status}`,
            baseline: hh?.status === 200 ? `${fmtMs(hh.ms)} in memory` : '—',
            ratio: hh?.status === 200 && hc.status === 200 ? hc.ms / hh.ms : null,
            bar: `≤ ${run.hourZones} (the hour's)`,
            pass: hc.status === 200 && hb !== undefined && hb <= run.hourZones,
        });
        rows.push({
            name: `fixed overhead (calibration: ${countLabel(calibrationEvents)} events under ${CALIBRATION_LIMIT})`,
            ours: fmtBytes(overhead),
            baseline: `${fmtBytes(cal.peak)} peak − ${fmtBytes(calibrationLimit)}`,
            ratio: null,
            bar: '—',
            pass: null,
        });
        rows.push({
            name: 'server RSS peak',
            ours: fmtBytes(peak),
            baseline: `${fmtBytes(startRss)} at start`,
            ratio: null,
            bar: `≤ ${fmtBytes(limit)} limit + ${fmtBytes(overhead)} overhead = ${fmtBytes(limit + overhead)}`,
            pass: peak <= limit + overhead,
        });
        rows.push({
            name: 'answers equal to the in-memory engine',
            ours: `${compared - mismatches.length} of ${compared}`,
            baseline: '—',
            ratio: null,
            bar: `${compared} of ${compared}`,
            pass: compared > 0 && mismatches.length === 0,
        });

        notes.push(`memory: --memory-limit ${limitText} (${fmtBytes(limit)}): half for datasets in memory, a quarter (${fmtBytes(limit / 4)}) for blocks read from disk, split among 2 query workers; the dataset's ${totalBlocks} blocks (${countLabel(events)} events) stay on disk`);
        if (run.onDiskLog === undefined) notes.push(`warning: the service never said that ${DATASET} keeps its blocks on disk: it fits half of the limit, and the figures are those of a dataset in memory`);
        else notes.push(`the service: ${run.onDiskLog.replace(/^\[apl serve\] /, '')}`);
        const errors = run.serverLog.filter(l => /error|fail|crash|heap/i.test(l));
        for (const l of errors.slice(0, 5)) notes.push(`service log: ${l.slice(0, 200)}`);
        notes.push(`RSS per query, blocks on disk (MB, before → peak while it runs): ${run.perQuery.join('; ')}`);
        notes.push(`RSS by phase: ${fmtBytes(startRss)} at start, peak ${fmtBytes(run.ingestPeak)} during ingest, ${fmtBytes(run.afterIngest)} after it, peak ${fmtBytes(run.queryPeak)} during the queries`);
        notes.push(`RSS peak: the larger of VmRSS sampled every 100 ms through ingest and queries (${run.rssSamples} samples, peak ${fmtBytes(run.sampledPeak)}) and VmHWM (${fmtBytes(run.hwm)}); bar: the limit (${fmtBytes(limit)}) plus the fixed overhead (${fmtBytes(overhead)}), so that the RSS does not grow with the data beyond the limit`);
        notes.push(`fixed overhead: the peak RSS of a calibration run minus its limit: the same server flags and workload (bodies of ${BODY_EVENTS / 1000}k, ${IN_FLIGHT} in flight, the same queries) on ${countLabel(calibrationEvents)} events (max(${countLabel(BODY_EVENTS * BODIES_PER_BATCH)}, N / 40)) under --memory-limit ${CALIBRATION_LIMIT}, in its own data directory; its RSS: ${fmtBytes(cal.startRss)} at start, peak ${fmtBytes(cal.ingestPeak)} during ingest, peak ${fmtBytes(cal.queryPeak)} during the queries, VmHWM ${fmtBytes(cal.hwm)}, ${cal.totalBlocks} blocks${cal.onDiskLog === undefined ? ' (the service never said that they stay on disk)' : ' on disk'}; per query (MB): ${cal.perQuery.join('; ')}`);
        if (cal.ingested !== calibrationEvents || cal.failed > 0 || cal.counted !== calibrationEvents) notes.push(`warning: calibration: the service ingested ${cal.ingested} of ${calibrationEvents} events (${cal.failed} failed) and counts ${cal.counted}`);
        for (const l of cal.serverLog.filter(l => /error|fail|crash|heap/i.test(l)).slice(0, 3)) notes.push(`service log (calibration): ${l.slice(0, 200)}`);
        notes.push(`last hour: its bar is the number of zones whose span of _time meets the hour (the bench decodes the times of the blocks on disk whose span meets it, 64k-row zones in stored order as the server reads a block, plus the zones of the WAL tail in memory): a query that prunes by time spans reads those and nothing else`);
        notes.push(`queries: POST /v1/datasets/_apl?format=tabular over ${RANGE.startTime} … ${RANGE.endTime} (the last hour / day: from max(_time) ${run.maxTime} − 1h / − 24h); time = median of 3 runs when one takes < 3 s, else 1 run; "N blocks" = status.blocksExamined (the engine's 64k-row zones it read; a block file on disk holds one or two); ratio = blocks on disk ÷ in memory (the same directory served with --memory-limit 64g)`);
        const refused = specs.filter(s => isLimit(cold.get(s.id)!)).map(s => s.id);
        if (refused.length > 0) notes.push(`refused with blocks on disk (HTTP 400 limit: they need all their blocks in memory at once, more than the block cache holds): ${refused.join(', ')}`);
        notes.push(`answers compared (statistics elapsedTime, blocksExamined, blocksSkipped, rowsExamined, min/maxBlockTime, rowsMatched left out; reals to 9 significant digits): ${specs.filter(s => cold.get(s.id)!.status === 200 && hot.has(s.id)).map(s => s.id).join(', ')}`);
        for (const m of mismatches) notes.push(`warning: answers differ: ${m}`);
    } finally {
        if (server) await stopServer(server).catch(() => undefined);
        rmSync(calibrationDir, { recursive: true, force: true });
        if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    }
    return { rows, notes };
}
