/**
 * Section "scale" (issue 14): queries on every core and at 10M events.
 * - Q1–Q8 at 1M events through the service's query pool (server/query: replicas on worker threads,
 *   parallel parts when the plan allows, the answer serialised on the worker as the service sends
 *   it) with 1 worker and with one per core, each against DuckDB in the same process;
 * - the same queries at 10M events (generation excluded), in process and through the pool.
 * Skipped with --quick (the 10M part) .
 */
import { availableParallelism, loadavg } from 'node:os';
import { createEngine, type Engine } from '../../language/index.js';
import { QueryPool } from '../../server/query/pool.js';
import { runParallel } from '../../server/query/parallel-run.js';
import { startParallelRunner } from '../../server/query/parallel-runner.js';
import type { AplQueryRequest } from '../../server/http/engine-adapter.js';
import { type BenchContext, type Row, type SectionResult, fmtRate, settle } from './harness.js';
import { chunks, importDuckDb, loadDuckDb, sanityCheck, timeQueries, type DuckModule } from './eval.js';

const DATASET = 'sample-http-logs';

/** The bench data's whole time range (the generated events end on 2025-01-01). */
const REQUEST: AplQueryRequest = {
    format: 'tabular',
    now: 1_735_689_600_000_000_000n,
    startNs: 1_600_000_000_000_000_000n,
    endNs: 1_800_000_000_000_000_000n,
    includeCursor: false,
    includeCursorField: false,
};

function loadEngine(rows: number): { engine: Engine; ms: number } {
    const engine = createEngine({ sharedMemory: true });
    let ms = 0;
    for (const chunk of chunks(rows)) {
        const t0 = performance.now();
        engine.ingest(DATASET, chunk);
        ms += performance.now() - t0;
    }
    return { engine, ms };
}

async function startPool(engine: Engine, workers: number): Promise<QueryPool> {
    const pool = new QueryPool(engine, {
        workers,
        maxResultRows: 65_000,
        defaultLimit: 1000,
        log: () => undefined,
        fallback: () => Promise.reject(new Error('the query workers did not start')),
    });
    // Each worker loads the evaluator, then runs one query to warm up.
    while (pool.stats().idle < workers) await new Promise(r => setTimeout(r, 20));
    await Promise.all(Array.from({ length: workers }, () => pool.run({ kind: 'apl', apl: `['${DATASET}'] | count`, request: REQUEST })));
    return pool;
}

function viaPool(pool: QueryPool, engine: Engine): (apl: string) => Promise<string> {
    return apl => {
        const job = { kind: 'apl' as const, apl, request: REQUEST };
        return runParallel(pool, engine, job, 0) ?? pool.run(job);
    };
}

async function poolRuns(ctx: BenchContext, engine: Engine, db: Parameters<typeof timeQueries>[3], label: string, counts: number[]): Promise<{ rows: Row[]; notes: string[] }> {
    const rows: Row[] = [];
    const notes: string[] = [];
    for (const workers of counts) {
        const pool = await startPool(engine, workers);
        try {
            const suffix = ` (${label}, ${workers} worker${workers === 1 ? '' : 's'})`;
            const timed = await timeQueries(ctx, 'scale', viaPool(pool, engine), db, suffix);
            rows.push(...timed.rows);
            notes.push(...timed.notes, ...sanityCheck(timed.answers).map(n => `${n}${suffix}`));
        } finally {
            await pool.close();
        }
    }
    return { rows, notes };
}

export async function scaleSection(ctx: BenchContext): Promise<SectionResult> {
    const duck: DuckModule = await importDuckDb();
    const cores = availableParallelism();
    const rows: Row[] = [];
    const notes: string[] = [
        `through the pool: the query runs on worker threads over the engine's shared columns; with ${cores} workers, count/summarize/top queries run as one part per idle worker plus a merge (language/eval/parallel.ts; here at any size, the service from 2M rows); times include serialising the answer to JSON on the worker; DuckDB reads its rows with getRowsJson`,
    ];

    ctx.log('scale: loading 1M events into a shared-memory engine and into DuckDB');
    {
        const { engine } = loadEngine(ctx.quick ? 100_000 : 1_000_000);
        const { instance, db } = await loadDuckDb(duck, ctx.quick ? 100_000 : 1_000_000);
        try {
            const r = await poolRuns(ctx, engine, db, ctx.quick ? '100k' : '1M', [...new Set([1, cores])]);
            rows.push(...r.rows);
            notes.push(...r.notes);
        } finally {
            db.closeSync();
            instance.closeSync();
        }
    }
    settle();
    if (ctx.quick) {
        notes.push('10M events: skipped with --quick');
        return { rows, notes };
    }

    ctx.log('scale: generating 10M events and loading them into the engine and into DuckDB (a few minutes)');
    const big = 10_000_000;
    const { engine, ms } = loadEngine(big);
    const { instance, db, ms: duckMs } = await loadDuckDb(duck, big);
    try {
        rows.push({ name: 'load 10M events', ours: fmtRate((big / ms) * 1000, 'ev'), baseline: fmtRate((big / duckMs) * 1000, 'ev'), ratio: duckMs / ms, bar: '—', pass: null });
        // In process as `apl run` runs it: planned queries in parts on a query worker per core but one, and on this thread.
        const parallel = await startParallelRunner(engine);
        try {
            const inProcess = await timeQueries(ctx, 'scale', apl => engine.query(apl, { startTime: REQUEST.startNs, endTime: REQUEST.endNs }), db, ' (10M, in process)');
            rows.push(...inProcess.rows);
            notes.push(...inProcess.notes, `10M in process: ${parallel ? `count/summarize/top in parts on ${cores - 1} query worker(s) and the engine's thread, as apl run does (server/query/parallel-runner.ts)` : 'one core: every query on the engine\'s thread'}; load average ${loadavg().map(l => l.toFixed(1)).join(' ')} after`);
        } finally {
            await parallel?.close();
        }
        const pooled = await poolRuns(ctx, engine, db, '10M', [cores]);
        rows.push(...pooled.rows);
        notes.push(...pooled.notes);
    } finally {
        db.closeSync();
        instance.closeSync();
    }
    notes.push('10M: load times exclude event generation');
    return { rows, notes };
}
