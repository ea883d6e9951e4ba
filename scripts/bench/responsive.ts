/**
 * Section "responsive" (issue 10): does a heavy query hold up everyone else? Against `apl serve`
 * in a child process, one-event ingests are sent one after another (each waits for its durable
 * acknowledgement, then a pause) while a query that runs for about ten seconds is in flight. The
 * baseline is the same ingest loop against the same server with no query running. A third run
 * puts queries back on the main thread (`--query-workers 0`, the design before the query pool) to
 * show what the pool buys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type BenchContext, type Row, type SectionResult, fmtMs, Skip, firstLine } from './harness.js';
import { api, call, serveCommand, startServer, type Started } from './service.js';

const PAUSE_MS = 20;
const P99_BAR_MS = 50;

/** A query of about `seconds` seconds on this machine (3.5 s per 2M-row pass here): no data needed. */
function heavyQuery(passes: number): string {
    return `print i = range(1, 2000000) | mv-expand i${" | where hash_sha256(tostring(i)) != 'x'".repeat(passes)} | count`;
}

function percentile(sorted: number[], p: number): number {
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One-event ingests until `done()`, at least `min` of them; returns their latencies in ms, sorted. */
async function ingestLoop(base: string, dataset: string, done: () => boolean, min: number): Promise<number[]> {
    const out: number[] = [];
    while (!done() || out.length < min) {
        const t = performance.now();
        const r = await call(base, 'POST', `/v1/datasets/${dataset}/ingest`, `{"n":${out.length}}`, 'application/x-ndjson');
        if (r.status !== 200) throw new Error(`ingest: HTTP ${r.status}: ${r.text.slice(0, 200)}`);
        out.push(performance.now() - t);
        await new Promise(res => setTimeout(res, PAUSE_MS));
    }
    return out.sort((a, b) => a - b);
}

interface Run {
    latencies: number[];
    queryMs: number;
}

/** The ingest loop while one heavy query runs (or, with `passes` 0, for `idleCount` ingests). */
async function measure(server: Started, passes: number, idleCount: number): Promise<Run> {
    const dataset = `responsive-${passes}-${Date.now()}`;
    await api(server.base, 'POST', '/v2/datasets', JSON.stringify({ name: dataset }));
    if (passes === 0) return { latencies: await ingestLoop(server.base, dataset, () => true, idleCount), queryMs: 0 };
    let finished = false;
    const t0 = performance.now();
    const query = call(server.base, 'POST', '/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: heavyQuery(passes) })).finally(() => (finished = true));
    const latencies = await ingestLoop(server.base, dataset, () => finished, 1);
    const r = await query;
    if (r.status !== 200) throw new Error(`the heavy query answered HTTP ${r.status}: ${r.text.slice(0, 200)}`);
    return { latencies, queryMs: performance.now() - t0 };
}

function describe(latencies: number[]): string {
    return `p50 ${fmtMs(percentile(latencies, 50))}, p99 ${fmtMs(percentile(latencies, 99))}, max ${fmtMs(latencies[latencies.length - 1]!)} (${latencies.length} ingests)`;
}

export async function responsiveSection(ctx: BenchContext): Promise<SectionResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    const bundle = serveCommand(ctx);
    const passes = ctx.quick ? 1 : 3;
    for (const workers of ['default', '0'] as const) {
        if (ctx.quick && workers === '0') continue;
        const dataDir = mkdtempSync(path.join(tmpdir(), 'apl-bench-responsive-'));
        let server: Started | undefined;
        try {
            try {
                server = await startServer(bundle, dataDir, ['--query-timeout', '10m', ...(workers === '0' ? ['--query-workers', '0'] : [])]);
            } catch (err) {
                throw new Skip(`the service does not start: ${firstLine(err)}`);
            }
            ctx.log(`responsive: ${workers === '0' ? 'queries on the main thread' : 'query workers'}: one-event ingests while a heavy query runs, then idle`);
            await measure(server, 1, 0); // warms the query path and the ingest path
            const busy = await measure(server, passes, 0);
            const idle = await measure(server, 0, busy.latencies.length);
            const p99 = percentile(busy.latencies, 99);
            const idleP99 = percentile(idle.latencies, 99);
            if (workers === 'default') {
                rows.push({ name: `1-event ingest while a ${fmtMs(busy.queryMs)} query runs, p99`, ours: fmtMs(p99), baseline: `${fmtMs(idleP99)} idle p99`, ratio: p99 / idleP99, bar: `≤ ${P99_BAR_MS} ms`, pass: p99 <= P99_BAR_MS });
                notes.push(`query workers: busy ${describe(busy.latencies)}; idle ${describe(idle.latencies)}`);
            } else {
                rows.push({ name: `the same with --query-workers 0 (before the pool), p99`, ours: fmtMs(p99), baseline: `${fmtMs(idleP99)} idle p99`, ratio: p99 / idleP99, bar: '—', pass: null });
                notes.push(`main thread: busy ${describe(busy.latencies)}; idle ${describe(idle.latencies)}`);
            }
        } finally {
            await server?.stop().catch(() => undefined);
            rmSync(dataDir, { recursive: true, force: true });
        }
    }
    notes.push(`ingests are sent one at a time, ${PAUSE_MS} ms apart, each acknowledged durably (fsync); the heavy query is ${passes} hashing pass(es) over 2M rows`);
    return { rows, notes };
}
