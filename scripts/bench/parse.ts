/**
 * Section "parse" (issue 2): parse throughput of our parser vs Kusto's `KustoCode.Parse` (syntax
 * only, no binding) on the same texts: 1,000 short corpus queries, and one 20-line query.
 */
import { parse } from '../../language/apl-parse.js';
import { type BenchContext, type Row, type SectionResult, fmtMs, fmtRate, timePair, timeRow } from './harness.js';
import { loadKusto } from './kusto.js';
import { LONG_QUERY, shortQueries } from './queries.js';

export async function parseSection(ctx: BenchContext): Promise<SectionResult> {
    const { kusto, loadMs } = loadKusto();
    const K = kusto.Language;
    const n = ctx.quick ? 200 : 1000;
    const texts = shortQueries(n);
    const notes: string[] = [`Kusto bridge load: ${fmtMs(loadMs)} (once, not counted)`];
    const rows: Row[] = [];

    // Both parsers see every text; a result field is read so the work cannot be skipped.
    let sink = 0;
    const oursBatch = () => {
        for (const t of texts) sink += parse(t).problems.length;
    };
    const kustoBatch = () => {
        for (const t of texts) sink += K.KustoCode.Parse(t).Syntax ? 1 : 0;
    };
    ctx.log(`parse: ${n} short queries`);
    const warmup = ctx.quick ? 1 : 3;
    const [ours, theirs] = await timePair(oursBatch, kustoBatch, { warmup });
    rows.push(timeRow(`${n} short queries`, ours.median, theirs.median, 1.0, ` (${fmtRate((n / ours.median) * 1000, 'q')})`));

    // The 20-line query: a batch of parses per timed run (one parse is too short to time alone).
    const reps = ctx.quick ? 20 : 100;
    ctx.log(`parse: 20-line query × ${reps}`);
    const [oursLong, theirsLong] = await timePair(
        () => { for (let i = 0; i < reps; i++) sink += parse(LONG_QUERY).problems.length; },
        () => { for (let i = 0; i < reps; i++) sink += K.KustoCode.Parse(LONG_QUERY).Syntax ? 1 : 0; },
        { warmup },
    );
    rows.push(timeRow('20-line query (per parse)', oursLong.median / reps, theirsLong.median / reps, 1.0));

    const problems = parse(LONG_QUERY).problems;
    if (problems.length > 0) notes.push(`warning: our parser reports ${problems.length} problem(s) on the 20-line query: ${problems[0]!.message}`);
    void sink;
    return { rows, notes };
}
