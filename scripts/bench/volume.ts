/**
 * Section "volume" (issue 31), on only with `npm run bench -- --scale 100m` (or 10m, 2m, 500k …):
 * N sample-http-logs events, generated in a stream (never written as NDJSON: ~57 GB at 100M), go
 * batch by batch both
 * - over HTTP into `apl serve --memory-limit 2g` (the built CLI in a child process, data directory
 *   under the temp dir; NDJSON bodies of 10k events, IN_FLIGHT requests in flight, each
 *   acknowledged durably), and
 * - into DuckDB in its own database file (`SET memory_limit='2GB'`, default threads) through its
 *   appender, in the bench process while the service ingests.
 * Then Q1–Q8 over the last hour, day and week of the data and over its whole range, on both,
 * alternating: time, `status.blocksExamined` of the dataset's blocks (64k-row zones), the answers
 * of Q1, Q2 and Q6 compared. Printed: ingest rate, disk used by each, the service's peak RSS
 * (VmHWM) and open files. Bars: each query ≤ 1.5× DuckDB; the last hour's ≤ 0.5 s.
 * Both data directories are removed at the end, also when the run is stopped (SIGINT / SIGTERM).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { generateSample } from '../../language/samples/index.js';
import { ZONE_ROWS } from '../../language/eval/zone-maps.js';
import { readBlockHeaderOnly } from '../../server/store/block.js';
import { type BenchContext, type Row, type SectionResult, Skip, firstLine, fmtBytes, fmtMs, fmtRate, inBatches, summarize } from './harness.js';
import { call, procBytes, serveCommand, startServer, stopServer, type Started } from './service.js';
import { type DuckConnection, type TabularTable, appendEvents, createLogsTable, importDuckDb, sanityCheck } from './eval.js';
import { EVAL_QUERIES, LOGS_TABLE } from './queries.js';
import { BODY_EVENTS } from './volume-scale.js';

const DATASET = 'sample-http-logs';
const SEED = 31;
const END = new Date('2025-01-01T00:00:00Z');
/** The whole range of the generated events (30 days before END), with room on both sides. */
const WHOLE = { startTime: '2024-01-01T00:00:00Z', endTime: '2025-01-02T00:00:00Z' };
const IN_FLIGHT = 3;
/** `apl serve --memory-limit`; `APL_BENCH_VOLUME_MEMORY_LIMIT` (say 256m) keeps a smaller run's blocks on disk, as 100M events are under 2g. */
const MEMORY_LIMIT = process.env.APL_BENCH_VOLUME_MEMORY_LIMIT ?? '2g';
const HOUR_MS = 3_600_000;
/** USER_HZ of /proc/PID/stat (100 on Linux). */
const CLOCK_TICKS = 100;
/** Each query against DuckDB's time, and the recent hour's absolute bar. */
const RATIO_BAR = 1.5;
const HOUR_BAR_MS = 500;

export function countLabel(n: number): string {
    return n >= 1e6 && n % 1e5 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 100 === 0 ? `${n / 1e3}k` : String(n);
}

function load(): string {
    return loadavg().map(l => l.toFixed(1)).join(' ');
}

/** Bytes of the files under `dir` (recursively); 0 if it is gone. */
function diskUsed(dir: string): number {
    let total = 0;
    let entries;
    try {
        entries = readdirSync(dir, { withFileTypes: true });
    } catch {
        return 0;
    }
    for (const e of entries) {
        const p = path.join(dir, e.name);
        try {
            total += e.isDirectory() ? diskUsed(p) : statSync(p).blocks * 512;
        } catch {
            // a file compacted away between the listing and the stat
        }
    }
    return total;
}

/** CPU seconds a process has used, all its threads (utime + stime of /proc/PID/stat), if known. */
function cpuSeconds(pid: number | undefined): number | undefined {
    try {
        if (pid === undefined) return undefined;
        // The fields after the command name, which is in parentheses and may hold spaces.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
        return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
        return undefined;
    }
}

function openFiles(pid: number | undefined): number | undefined {
    try {
        return pid === undefined ? undefined : readdirSync(`/proc/${pid}/fd`).length;
    } catch {
        return undefined;
    }
}

function blocksDir(dataDir: string): string {
    return path.join(dataDir, 'datasets', DATASET, 'blocks');
}

/** The dataset's 64k-row zones (what `blocksExamined` counts): those of the block files plus the WAL tail's. */
async function zonesTotal(dataDir: string, events: number): Promise<{ files: number; zones: number }> {
    let zones = 0;
    let rows = 0;
    let files = 0;
    for (const name of readdirSync(blocksDir(dataDir))) {
        try {
            const header = await readBlockHeaderOnly(path.join(blocksDir(dataDir), name));
            zones += Math.ceil(header.rows / ZONE_ROWS);
            rows += header.rows;
            files++;
        } catch {
            // compacted away meanwhile
        }
    }
    return { files, zones: zones + Math.ceil(Math.max(0, events - rows) / ZONE_ROWS) };
}

function batches(events: number): Generator<Record<string, unknown>[]> {
    return inBatches(generateSample(DATASET, { rows: events, seed: SEED, end: END }), BODY_EVENTS);
}

interface Range {
    id: string;
    startTime: string;
    endTime: string;
}

/** The query's SQL over the rows of `range` only (the whole range: as it is). */
function rangedSql(sql: string, range: Range): string {
    if (range.id === 'all') return sql;
    const start = range.startTime.replace('T', ' ').replace('Z', '');
    const end = range.endTime.replace('T', ' ').replace('Z', '');
    return sql.replaceAll(`FROM ${LOGS_TABLE}`, `FROM (SELECT * FROM ${LOGS_TABLE} WHERE _time >= TIMESTAMP '${start}' AND _time < TIMESTAMP '${end}') AS ${LOGS_TABLE}`);
}

interface OurAnswer {
    status: number;
    text: string;
    json?: { status?: { blocksExamined?: number; blocksSkipped?: number; isEstimate?: boolean }; tables?: TabularTable[]; detail?: { errorType?: string }; message?: string };
}

async function ourQuery(base: string, apl: string, range: Range): Promise<OurAnswer> {
    const r = await call(base, 'POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl, startTime: range.startTime, endTime: range.endTime }));
    let json: OurAnswer['json'];
    try {
        json = JSON.parse(r.text) as OurAnswer['json'];
    } catch {
        json = undefined;
    }
    return { status: r.status, text: r.text, json };
}

/**
 * Both sides, alternating (ours first): one run each, and two more of each when both answered in
 * under 3 s (the median of 3). A side that fails stops repeating.
 */
async function timeBoth(base: string, db: DuckConnection, apl: string, sql: string, range: Range): Promise<{ ours: number; theirs: number; our: OurAnswer; their?: { names: string[]; rows: unknown[][] }; theirError?: string }> {
    const oursMs: number[] = [];
    const theirsMs: number[] = [];
    let our: OurAnswer | undefined;
    let their: { names: string[]; rows: unknown[][] } | undefined;
    let theirError: string | undefined;
    for (let run = 0; run < 3; run++) {
        let t0 = performance.now();
        our = await ourQuery(base, apl, range);
        oursMs.push(performance.now() - t0);
        if (theirError === undefined) {
            t0 = performance.now();
            try {
                const r = await db.runAndReadAll(sql);
                their = { names: r.columnNames(), rows: r.getRowsJson() };
                theirsMs.push(performance.now() - t0);
            } catch (err) {
                theirError = firstLine(err);
            }
        }
        if (our.status !== 200 || theirError !== undefined || Math.max(...oursMs, ...theirsMs) >= 3000) break;
    }
    return { ours: summarize(oursMs).median, theirs: theirsMs.length ? summarize(theirsMs).median : NaN, our: our!, their, theirError };
}

export async function volumeSection(ctx: BenchContext): Promise<SectionResult> {
    if (ctx.scale === undefined) throw new Skip('on only with --scale 100m (or 10m, 2m …): it ingests that many events into apl serve and DuckDB');
    let events = ctx.scale;
    let label = countLabel(events);
    // On a shared machine 100M may not fit the time there is: ingest stops after this many minutes
    // and the queries run on what is in (the labels then say how many events that is).
    const minutesText = process.env.APL_BENCH_VOLUME_INGEST_MINUTES;
    const ingestMinutes = minutesText === undefined ? Infinity : Number(minutesText);
    if (!(ingestMinutes > 0)) throw new Error(`APL_BENCH_VOLUME_INGEST_MINUTES must be a positive number of minutes, not '${minutesText}'`);
    const duck = await importDuckDb();
    const rows: Row[] = [];
    const notes: string[] = [];
    const bundle = serveCommand(ctx);
    const root = mkdtempSync(path.join(tmpdir(), 'apl-bench-volume-'));
    const dataDir = path.join(root, 'apl');
    const duckFile = path.join(root, 'duck.db');
    let server: Started | undefined;
    let instance: { closeSync(): void } | undefined;
    let db: DuckConnection | undefined;
    // Stopped from outside (a deadline, ^C): stop the service and remove both data directories.
    const onSignal = (signal: NodeJS.Signals) => {
        ctx.log(`volume: ${signal}: stopping the service and removing ${root}`);
        server?.child.kill('SIGKILL');
        rmSync(root, { recursive: true, force: true });
        process.exit(130);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
        notes.push(`load average at start: ${load()} (${cpus().length} CPUs); temp dir ${root}`);
        // Three tries: on a busy shared machine the free port may be taken, or a connection reset, before it listens.
        for (let attempt = 1; server === undefined; attempt++) {
            try {
                server = await startServer(bundle, dataDir, ['--memory-limit', MEMORY_LIMIT, '--query-workers', '2', '--query-timeout', '1h']);
            } catch (err) {
                if (attempt === 3) throw new Skip(`the service does not start: ${firstLine(err)}`);
                ctx.log(`volume: the service did not start (${firstLine(err)}); again`);
                rmSync(dataDir, { recursive: true, force: true });
            }
        }
        const { base, child } = server;
        const pid = child.pid;
        const serverLog: string[] = [];
        // The service's last lines (stdout and stderr), for a failure's report.
        const lastLines: string[] = [];
        child.stdout!.on('data', (d: Buffer) => {
            for (const line of d.toString().split('\n')) if (line !== '') lastLines.push(line);
            while (lastLines.length > 20) lastLines.shift();
        });
        let exitedWith: string | undefined;
        child.on('exit', (code, signal) => { exitedWith = signal ? `signal ${signal}` : `code ${code}`; });
        /** An error saying what the service did around a failure: alive or not, its RSS and last lines. */
        const failure = (what: string, err: unknown) => new Error(`${what} after ${ingested} events acknowledged: ${firstLine(err)}; the service ${exitedWith ? `exited (${exitedWith})` : `is alive (RSS ${fmtBytes(procBytes(pid, 'VmRSS') ?? 0)}, peak ${fmtBytes(procBytes(pid, 'VmHWM') ?? 0)}, ${openFiles(pid) ?? '?'} open files)`}; disk ${fmtBytes(diskUsed(dataDir))}; its last lines: ${lastLines.join(' | ').slice(-1500)}`);
        // The service logs when a dataset starts keeping its blocks on disk (more than half the limit).
        let onDiskLog: string | undefined;
        let partial = '';
        child.stderr!.on('data', (d: Buffer) => {
            const lines = (partial + d.toString()).split('\n');
            partial = lines.pop()!;
            for (const line of lines) {
                if (serverLog.length < 500) serverLog.push(line);
                lastLines.push(line);
                if (lastLines.length > 20) lastLines.shift();
                if (onDiskLog === undefined && /stay on disk/.test(line)) onDiskLog = line;
            }
        });
        const created = await call(base, 'POST', '/v2/datasets', JSON.stringify({ name: DATASET }));
        if (created.status < 200 || created.status >= 300) throw new Error(`creating ${DATASET}: HTTP ${created.status}: ${created.text.slice(0, 200)}`);

        const inst = await duck.DuckDBInstance.create(duckFile);
        instance = inst;
        db = await inst.connect();
        await db.run(`SET memory_limit='2GB'`);
        await createLogsTable(db);
        const appender = await db.createAppender(LOGS_TABLE);

        // --- One stream of events, both sides: each batch is serialised and sent (IN_FLIGHT in
        // flight), then appended to DuckDB while the service ingests it.
        ctx.log(`volume: streaming ${label} events into apl serve --memory-limit ${MEMORY_LIMIT} (bodies of ${BODY_EVENTS / 1000}k, ${IN_FLIGHT} in flight) and into DuckDB (${duckFile}); load ${load()}`);
        let genMs = 0;
        let duckMs = 0;
        // CPU time of the bench process while it appends (DuckDB's threads included): comparable with the service's CPU time.
        let duckCpuUs = 0;
        let ingested = 0;
        let failed = 0;
        let bytes = 0;
        let sent = 0;
        let inFlight = 0;
        let busySince = 0;
        let busyMs = 0;
        let maxFiles = 0;
        let ingestError: Error | undefined;
        const pending = new Set<Promise<void>>();
        let retried = 0;
        const send = (body: Buffer) => call(base, 'POST', `/v1/datasets/${DATASET}/ingest`, body, 'application/x-ndjson').catch(async (err: unknown) => {
            // EPIPE: the connection closed before the body was written, so the service cannot have
            // acknowledged it; once, on a new connection, if the service is still there (a kept-alive
            // socket the service closed as it was reused). Anything else is a failure.
            const code = (err as { code?: string }).code;
            if (code !== 'EPIPE' || exitedWith !== undefined) throw err;
            retried++;
            ctx.log(`volume: ingest: EPIPE after ${ingested} events with the service alive; the body again on a new connection`);
            return call(base, 'POST', `/v1/datasets/${DATASET}/ingest`, body, 'application/x-ndjson', true);
        });
        const post = (body: Buffer) => {
            if (inFlight++ === 0) busySince = performance.now();
            const p = send(body)
                .then(r => {
                    if (r.status !== 200) throw new Error(`ingest: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
                    const s = JSON.parse(r.text) as { ingested?: number; failed?: number };
                    ingested += s.ingested ?? 0;
                    failed += s.failed ?? 0;
                })
                .catch((err: unknown) => { ingestError ??= failure('ingest', err); })
                .finally(() => {
                    if (--inFlight === 0) busyMs += performance.now() - busySince;
                    pending.delete(p);
                });
            pending.add(p);
        };
        const cpu0 = cpuSeconds(pid);
        const t0 = performance.now();
        let lastLog = t0;
        const progress = () => {
            const s = (performance.now() - t0) / 1000;
            const files = openFiles(pid) ?? 0;
            maxFiles = Math.max(maxFiles, files);
            ctx.log(`volume: ${countLabel(Math.round(ingested / 1e5) * 1e5)} of ${label} ingested in ${s.toFixed(0)} s (${fmtRate(ingested / s, 'ev')} wall), server RSS ${fmtBytes(procBytes(pid, 'VmRSS') ?? 0)} (peak ${fmtBytes(procBytes(pid, 'VmHWM') ?? 0)}), ${files} open files, disk ${fmtBytes(diskUsed(dataDir))} + DuckDB ${fmtBytes(diskUsed(root) - diskUsed(dataDir))}; load ${load()}`);
        };
        const source = batches(events);
        let cut = false;
        for (;;) {
            if (performance.now() - t0 > ingestMinutes * 60_000) {
                cut = true;
                break;
            }
            let g = performance.now();
            const next = source.next();
            if (next.done) break;
            const batch = next.value;
            const body = Buffer.from(batch.map(e => JSON.stringify(e)).join('\n'));
            genMs += performance.now() - g;
            while (pending.size >= IN_FLIGHT) await Promise.race(pending);
            if (ingestError) throw ingestError;
            if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) after ${ingested} events: ${serverLog.slice(-5).join(' | ')}`);
            post(body);
            bytes += body.length;
            sent += batch.length;
            g = performance.now();
            const c = process.cpuUsage();
            appendEvents(duck, appender, batch);
            const dc = process.cpuUsage(c);
            duckCpuUs += dc.user + dc.system;
            duckMs += performance.now() - g;
            if (performance.now() - lastLog > 30_000) {
                lastLog = performance.now();
                progress();
            }
        }
        await Promise.all(pending);
        if (ingestError) throw ingestError;
        const wallMs = performance.now() - t0;
        const cpu1 = cpuSeconds(pid);
        if (retried > 0) notes.push(`warning: ${retried} ingest request(s) failed with EPIPE while the service was alive and went again on a new connection`);
        const wanted = events;
        if (cut) {
            events = sent;
            label = `${sent >= 1e6 ? `${(sent / 1e6).toFixed(1)}M` : countLabel(sent)} (of ${countLabel(wanted)})`;
            notes.push(`ingest stopped after ${ingestMinutes} minutes (APL_BENCH_VOLUME_INGEST_MINUTES) at ${sent} of ${wanted} events: the queries ran on those`);
        }
        let g = performance.now();
        const c = process.cpuUsage();
        appender.flushSync();
        appender.closeSync();
        await db.run('CHECKPOINT');
        const dc = process.cpuUsage(c);
        duckCpuUs += dc.user + dc.system;
        duckMs += performance.now() - g;
        progress();
        const ingestLoad = load();

        // Let the compactions settle (the block count stops growing) before the queries.
        g = performance.now();
        for (let last = -1, stable = 0; stable < 4 && performance.now() - g < 300_000;) {
            await new Promise(r => setTimeout(r, 1000));
            let n = 0;
            try {
                n = readdirSync(blocksDir(dataDir)).length;
            } catch {
                n = 0;
            }
            stable = n === last ? stable + 1 : 0;
            last = n;
        }
        const settleMs = performance.now() - g;
        const { files: blockFiles, zones } = await zonesTotal(dataDir, ingested);
        const ourDisk = diskUsed(dataDir);
        const duckDisk = diskUsed(root) - ourDisk;

        // On a shared machine the wall time says little: the service's CPU time per event does.
        const serviceCpu = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
        if (serviceCpu !== undefined) {
            rows.push({
                name: `ingest ${label} events over HTTP, per CPU second of the service`,
                ours: `${fmtRate(ingested / serviceCpu, 'ev')} (${serviceCpu.toFixed(0)} CPU s)`,
                baseline: `${fmtRate(sent / (duckCpuUs / 1e6), 'ev')} DuckDB appender (${(duckCpuUs / 1e6).toFixed(0)} CPU s)`,
                ratio: duckCpuUs / 1e6 / serviceCpu,
                bar: '—',
                pass: null,
            });
        }
        rows.push({ name: `ingest ${label}, service busy time (requests in flight)`, ours: `${fmtRate((ingested / busyMs) * 1000, 'ev')} (${((bytes / busyMs) * 1000 / 2 ** 20).toFixed(1)} MB/s)`, baseline: '—', ratio: null, bar: '—', pass: null });
        rows.push({ name: `ingest ${label}, wall (both sides and generation)`, ours: `${fmtRate((ingested / wallMs) * 1000, 'ev')}, ${fmtMs(wallMs)}`, baseline: '—', ratio: null, bar: '—', pass: null });
        rows.push({ name: `disk used, ${label} events`, ours: `${fmtBytes(ourDisk)} (${(ourDisk / ingested).toFixed(1)} B/ev)`, baseline: `${fmtBytes(duckDisk)} DuckDB file`, ratio: ourDisk / duckDisk, bar: '—', pass: null });
        notes.push(`ingest: ${(bytes / 2 ** 30).toFixed(1)} GB of NDJSON in bodies of ${BODY_EVENTS / 1000}k events, ${IN_FLIGHT} in flight over node:http keep-alive, each acknowledged durably; service busy time = wall time with at least one request in flight (${fmtMs(busyMs)} of ${fmtMs(wallMs)}; it counts a reply that waits for the bench's event loop, so the rate is a lower bound); the bench generated and serialised the events in ${fmtMs(genMs)} and appended them to DuckDB in ${fmtMs(duckMs)} (${fmtRate((sent / duckMs) * 1000, 'ev')} wall; ${(duckCpuUs / 1e6).toFixed(0)} CPU s of the bench process, its threads included; flush and CHECKPOINT included), both on its own thread while the service ingested; load average during ingest (1/5/15 min): ${ingestLoad}`);
        notes.push(`after ingest the block files took ${fmtMs(settleMs)} to stop changing (compactions); ${blockFiles} block files (${zones} zones of ${ZONE_ROWS} rows when each file is read on its own, as with blocks on disk)`);
        if (ingested !== events || failed > 0) notes.push(`warning: the service ingested ${ingested} of ${events} events (${failed} failed)`);

        // --- The ranges: the last hour, day and week of the data (ending at its newest event) and all of it.
        const maxAnswer = await ourQuery(base, `['${DATASET}'] | summarize m = max(_time), n = count()`, { id: 'all', ...WHOLE });
        if (maxAnswer.status !== 200) throw new Error(`max(_time): HTTP ${maxAnswer.status}: ${maxAnswer.text.slice(0, 200)}`);
        const maxTime = String(maxAnswer.json?.tables?.[0]?.columns[0]?.[0]);
        const counted = Number(maxAnswer.json?.tables?.[0]?.columns[1]?.[0]);
        const duckCount = Number((await db.runAndReadAll(`SELECT count(*) FROM ${LOGS_TABLE}`)).getRowsJson()[0]![0]);
        if (counted !== events || duckCount !== events) notes.push(`warning: the service counts ${counted} events and DuckDB ${duckCount}, expected ${events}`);
        const maxMs = Date.parse(maxTime);
        if (!Number.isFinite(maxMs)) throw new Error(`max(_time) is not a time: ${maxTime}`);
        const since = (hours: number) => new Date(maxMs - hours * HOUR_MS).toISOString();
        // The zones a whole-range scan reads (what blocksExamined counts, in memory or from the block files).
        const probe = await ourQuery(base, `['${DATASET}'] | summarize max(req_duration_ms)`, { id: 'all', ...WHOLE });
        const probed = (probe.json?.status?.blocksExamined ?? 0) + (probe.json?.status?.blocksSkipped ?? 0);
        const totalZones = probed > 0 ? probed : zones;
        const ranges: Range[] = [
            { id: 'last hour', startTime: since(1), endTime: WHOLE.endTime },
            { id: 'last day', startTime: since(24), endTime: WHOLE.endTime },
            { id: 'last week', startTime: since(24 * 7), endTime: WHOLE.endTime },
            { id: 'all', ...WHOLE },
        ];

        // Warm-up, untimed: each query once over the last hour on both sides (cheap at any scale), so
        // the first timed ones do not carry the query workers' first compilations.
        for (const q of EVAL_QUERIES) {
            await ourQuery(base, q.apl, ranges[0]!);
            await db.runAndReadAll(rangedSql(q.sql, ranges[0]!)).catch(() => undefined);
        }
        const answers = new Map<string, Map<string, { ours: TabularTable; theirs: { names: string[]; rows: unknown[][] } }>>();
        const refused: string[] = [];
        for (const range of ranges) {
            const byQuery = new Map<string, { ours: TabularTable; theirs: { names: string[]; rows: unknown[][] } }>();
            answers.set(range.id, byQuery);
            for (const q of EVAL_QUERIES) {
                const name = `${q.id}, ${range.id === 'all' ? '30 days (all)' : range.id}`;
                ctx.log(`volume: ${name} (${label}); load ${load()}`);
                const hourBar = range.id === 'last hour';
                const bar = hourBar ? `≤ ${RATIO_BAR}×, ≤ ${HOUR_BAR_MS} ms` : `≤ ${RATIO_BAR}×`;
                const t = await timeBoth(base, db, q.apl, rangedSql(q.sql, range), range);
                if (t.our.status !== 200) {
                    const limit = t.our.status === 400 && t.our.json?.detail?.errorType === 'limit';
                    if (limit) refused.push(name);
                    rows.push({ name, ours: limit ? 'refused (limit)' : `HTTP ${t.our.status}: ${(t.our.json?.message ?? t.our.text).slice(0, 40)}`, baseline: Number.isFinite(t.theirs) ? fmtMs(t.theirs) : `error: ${t.theirError ?? '?'}`.slice(0, 40), ratio: null, bar, pass: false });
                    continue;
                }
                const st = t.our.json?.status;
                // An estimate (dcount, percentile past their exact states' budget with blocks on disk) says so.
                const blocks = `${st?.blocksExamined !== undefined ? `; ${st.blocksExamined} of ${totalZones} blocks` : ''}${st?.isEstimate ? '; estimate' : ''}`;
                const ratio = Number.isFinite(t.theirs) ? t.ours / t.theirs : null;
                rows.push({
                    name,
                    ours: `${fmtMs(t.ours)}${blocks}`,
                    baseline: Number.isFinite(t.theirs) ? fmtMs(t.theirs) : `error: ${t.theirError ?? '?'}`.slice(0, 40),
                    ratio,
                    bar,
                    pass: ratio === null ? null : ratio <= RATIO_BAR && (!hourBar || t.ours <= HOUR_BAR_MS),
                });
                const mine = t.our.json?.tables?.[0];
                if (mine && t.their) byQuery.set(q.id, { ours: mine, theirs: t.their });
            }
            for (const line of sanityCheck(byQuery)) notes.push(`${range.id}: ${line}`);
        }
        const hwm = procBytes(pid, 'VmHWM');
        const files = openFiles(pid);
        maxFiles = Math.max(maxFiles, files ?? 0);
        rows.push({ name: `server peak RSS (VmHWM), ${label} events`, ours: hwm === undefined ? '?' : fmtBytes(hwm), baseline: `--memory-limit ${MEMORY_LIMIT}`, ratio: null, bar: '—', pass: null });
        notes.push(`the service: ${files ?? '?'} open files at the end (peak seen ${maxFiles}); ${blockFiles} block files; queries: POST /v1/datasets/_apl?format=tabular with startTime/endTime (the last hour/day/week: from max(_time) ${maxTime} back), --query-workers 2; DuckDB: the same SQL as the eval section over a subquery filtered on _time, runAndReadAll + getRowsJson, memory_limit 2GB, its file ${fmtBytes(duckDisk)}`);
        notes.push(`times: one run each, alternating (ours first), and the median of 3 when both answer in under 3 s; "N of M blocks" = status.blocksExamined of the zones (64k rows) a whole-range scan reads (${totalZones}; \`summarize max(req_duration_ms)\` over all of it)`);
        notes.push(onDiskLog === undefined ? `the dataset fits half of --memory-limit ${MEMORY_LIMIT}: it is held in memory (the service never said that its blocks stay on disk)` : `the service: ${onDiskLog.replace(/^\[apl serve\] /, '')}`);
        if (refused.length > 0) notes.push(`refused by the service (HTTP 400 limit: they need all their blocks at once, more than the block cache of --memory-limit ${MEMORY_LIMIT} holds): ${refused.join('; ')}`);
        for (const l of serverLog.filter(l => /error|fail|crash|heap|EMFILE|ENOSPC|ENOMEM/i.test(l)).slice(0, 8)) notes.push(`service log: ${l.slice(0, 200)}`);
        notes.push(`load average at the end: ${load()}`);
    } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        if (server) await stopServer(server).catch(() => undefined);
        try {
            db?.closeSync();
            instance?.closeSync();
        } catch {
            // already closed
        }
        rmSync(root, { recursive: true, force: true });
    }
    return { rows, notes };
}
