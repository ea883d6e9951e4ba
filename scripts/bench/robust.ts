/**
 * Section "robust" (issue 9): the costs of the guards against hostile input.
 * - Parsing is linear: a pipeline ten times longer takes ten times as long (per operator, the long
 *   one against the short one side by side; Langium's own CST builder made it quadratic).
 * - Regexes from queries run on re2js (linear time): its cost against JavaScript's RegExp on a
 *   benign pattern over the same strings (informational: the price of never backtracking).
 * - How long a query that blows its row budget runs before it fails (50k × 50k join).
 */
import { parse } from '../../language/apl-parse.js';
import { compileRegex } from '../../language/builtins/functions-text-helpers.js';
import { createEngine } from '../../language/index.js';
import { type BenchContext, type Row, type SectionResult, fmtMs, timePair, timeRow } from './harness.js';

export async function robustSection(ctx: BenchContext): Promise<SectionResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    let sink = 0;

    const short = 1_000;
    const long = ctx.quick ? 5_000 : 10_000;
    const pipeline = (n: number) => "['t'] " + '| where a == 1 '.repeat(n);
    const shortText = pipeline(short);
    const longText = pipeline(long);
    ctx.log(`robust: parse ${long} vs ${short} where clauses`);
    const reps = long / short;
    const [longRun, shortRun] = await timePair(
        () => (sink += parse(longText).problems.length),
        () => {
            for (let i = 0; i < reps; i++) sink += parse(shortText).problems.length;
        },
        { warmup: 1 },
    );
    rows.push(timeRow(`parse ${long} where clauses vs ${reps} × ${short}`, longRun.median, shortRun.median, 1.5, ` (${((longRun.median * 1000) / longText.length).toFixed(2)} µs/char)`));

    const uris = Array.from({ length: ctx.quick ? 20_000 : 100_000 }, (_, i) => `/api/v${i % 3}/users/${i}/orders?page=${i % 17}`);
    const pattern = '^/api/v[0-9]+/users/[0-9]+/orders';
    const linear = compileRegex(pattern);
    const native = new RegExp(pattern);
    ctx.log(`robust: matches regex over ${uris.length} strings, re2js vs RegExp`);
    const [re2, js] = await timePair(
        () => {
            for (const u of uris) sink += linear.test(u) ? 1 : 0;
        },
        () => {
            for (const u of uris) sink += native.test(u) ? 1 : 0;
        },
        { warmup: 1 },
    );
    rows.push(timeRow(`regex test over ${uris.length} strings (re2js vs RegExp)`, re2.median, js.median, null));

    ctx.log('robust: 50k × 50k join until the row budget stops it');
    const engine = createEngine();
    engine.ingest('t', Array.from({ length: 50_000 }, (_, i) => ({ k: 1, i })));
    const t0 = performance.now();
    const err = await engine.query("['t'] | join kind=inner (['t']) on k | count").catch((e: unknown) => e);
    const elapsed = performance.now() - t0;
    notes.push(`50k × 50k join: failed after ${fmtMs(elapsed)} with "${(err as Error).message.slice(0, 70)}…" (limit: 10,000,000 rows)`);
    void sink;
    return { rows, notes };
}
