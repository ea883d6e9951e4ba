/**
 * `npm run bench`: performance figures, side by side with named baselines in ONE process, printed
 * as ratios. See docs/benchmarks.md for what each figure means and the bars.
 *
 *   npm run bench                         all sections
 *   npm run bench -- --only parse         one section (repeatable, or comma-separated)
 *   npm run bench -- --quick              smaller sizes, for a quick look
 *   npm run bench -- --scale 100m         the volume section only (off otherwise): 100M events
 *                                         in apl serve --memory-limit 2g and DuckDB (10m, 2m … to try it)
 *
 * Exit code 0 even when a bar is missed (the tables say so); 1 only when the runner itself fails.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { type BenchContext, type Row, type Section, Skip, firstLine, fmtRatio, gcAvailable } from './bench/harness.js';
import { parseScale } from './bench/volume-scale.js';

interface SectionEntry {
    name: string;
    title: string;
    load: () => Promise<Section>;
}

// Sections are imported lazily, so one whose dependencies do not load yet is skipped, not fatal.
const SECTIONS: SectionEntry[] = [
    { name: 'parse', title: 'parse (issue 2): our parser vs Kusto KustoCode.Parse', load: async () => (await import('./bench/parse.js')).parseSection },
    { name: 'check', title: 'check (issue 3): checking, completion, language-server start-up', load: async () => (await import('./bench/check.js')).checkSection },
    { name: 'eval', title: 'eval (issue 4): our engine vs DuckDB on 1M sample-http-logs events', load: async () => (await import('./bench/eval.js')).evalSection },
    { name: 'service', title: 'service (issue 5): HTTP ingest, query and start-up', load: async () => (await import('./bench/service.js')).serviceSection },
    { name: 'scale', title: 'scale (issue 14): queries on every core (the query pool) and at 10M events', load: async () => (await import('./bench/scale.js')).scaleSection },
    { name: 'cold', title: 'cold (issue 14 part 2): data larger than memory — the service under --memory-limit', load: async () => (await import('./bench/cold.js')).coldSection },
    { name: 'robust', title: 'robust (issue 9): linear parsing, linear-time regexes, the row budget', load: async () => (await import('./bench/robust.js')).robustSection },
    { name: 'responsive', title: 'responsive (issue 10): ingest latency while a heavy query runs', load: async () => (await import('./bench/responsive.js')).responsiveSection },
    { name: 'volume', title: `volume (issue 31): apl serve --memory-limit ${process.env.APL_BENCH_VOLUME_MEMORY_LIMIT ?? '2g'} vs DuckDB in a file (2 GB), events streamed over HTTP`, load: async () => (await import('./bench/volume.js')).volumeSection },
    { name: 'vscode', title: 'vscode (issues 11, 27): the extension in code-server — first rows, export, search, column statistics, webview heap', load: async () => (await import('./bench/vscode.js')).vscodeSection },
];

function parseArgs(argv: string[]): { only: Set<string>; quick: boolean; scale?: number } {
    const only = new Set<string>();
    let quick = false;
    let scale: number | undefined;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i]!;
        if (a === '--quick') quick = true;
        else if (a === '--scale' || a.startsWith('--scale=')) {
            const value = a === '--scale' ? argv[++i] : a.slice('--scale='.length);
            if (!value) throw new Error('--scale needs a number of events, such as 100m');
            scale = parseScale(value);
        } else if (a === '--only' || a.startsWith('--only=')) {
            const value = a === '--only' ? argv[++i] : a.slice('--only='.length);
            if (!value) throw new Error('--only needs a section name');
            for (const v of value.split(',')) only.add(v.trim());
        } else if (a === '--help' || a === '-h') {
            console.log(`usage: npm run bench -- [--only SECTION[,SECTION]] [--quick] [--scale EVENTS (e.g. 100m: the volume section)]\nsections: ${SECTIONS.map(s => s.name).join(', ')}`);
            process.exit(0);
        } else throw new Error(`unknown argument '${a}' (try --help)`);
    }
    for (const name of only) {
        if (!SECTIONS.some(s => s.name === name)) throw new Error(`unknown section '${name}'; known: ${SECTIONS.map(s => s.name).join(', ')}`);
    }
    // --scale alone runs the volume section only (it takes up to an hour at 100m).
    if (scale !== undefined && only.size === 0) only.add('volume');
    return { only, quick, scale };
}

function printTable(rows: Row[]): void {
    const header = ['', 'ours', 'baseline', 'ratio', 'bar', ''];
    const cells = rows.map(r => [r.name, r.ours, r.baseline, fmtRatio(r.ratio), r.bar, r.pass === null ? '' : r.pass ? 'ok' : 'MISSED']);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map(c => c[i]!.length)));
    const line = (c: string[]) => '  ' + c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ').trimEnd();
    console.log(line(header));
    console.log('  ' + widths.map(w => '─'.repeat(w)).join('  '));
    for (const c of cells) console.log(line(c));
}

async function main(): Promise<void> {
    const { only, quick, scale } = parseArgs(process.argv.slice(2));
    const ctx: BenchContext = { quick, scale, log: m => process.stderr.write(`  … ${m}\n`) };
    console.log(`apl-tools bench — node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB${quick ? ', --quick' : ''}`);
    if (!gcAvailable()) console.log('note: no garbage collector access; timings include collections');
    const busy = () => {
        const load = loadavg()[0]!;
        return load > cpus().length ? `note: load average ${load.toFixed(1)} on ${cpus().length} CPUs: absolute times are inflated; ratios (paired, alternating runs) hold up better` : undefined;
    };
    const firstBusy = busy();
    if (firstBusy) console.log(firstBusy);
    let missed = 0;
    for (const s of SECTIONS) {
        if (only.size > 0 && !only.has(s.name)) continue;
        console.log(`\n== ${s.title}`);
        try {
            const section = await s.load();
            const t0 = performance.now();
            const result = await section(ctx);
            if (result.rows.length > 0) printTable(result.rows);
            for (const n of result.notes) console.log(`  ${n}`);
            missed += result.rows.filter(r => r.pass === false).length;
            const nowBusy = busy();
            console.log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s${nowBusy ? `; load average ${loadavg()[0]!.toFixed(1)}` : ''})`);
        } catch (err) {
            if (err instanceof Skip) console.log(`  skipped: ${err.message}`);
            else if (err instanceof Error && /Cannot find module|ERR_MODULE_NOT_FOUND|does not provide an export/.test(err.message)) {
                console.log(`  skipped: a component does not load yet: ${firstLine(err)}`);
            } else {
                console.log(`  skipped: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
            }
        }
    }
    console.log(missed === 0 ? '\nall bars met (of the sections that ran)' : `\n${missed} bar(s) missed`);
}

main().then(
    () => process.exit(0),
    err => {
        console.error(err instanceof Error ? err.message : err);
        process.exit(1);
    },
);
