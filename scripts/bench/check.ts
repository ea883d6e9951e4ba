/**
 * Section "check" (issue 3):
 * - checking 1,000 short queries (parse + link + validate, `checkText`) vs Kusto's
 *   `ParseAndAnalyze` + `GetDiagnostics` on the same texts, both knowing the sample datasets;
 * - the best-practice analyzers (issue 28): checking the same 1,000 texts with every analyzer on vs
 *   `checkText` without them (bar ≤ 1.2×);
 * - completion latency at the end of the 20-line query, in process (services' CompletionProvider);
 * - language-server start-up: spawn → first `textDocument/publishDiagnostics` after initialize + didOpen.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { EmptyFileSystem, URI, type LangiumDocument } from 'langium';
import { SAMPLE_DATASETS } from '../../language/samples/index.js';
import { BuiltinSchemaProvider } from '../../language/schema/index.js';
import type { SchemaProvider } from '../../language/schema/schema-provider.js';
import {
    type BenchContext, type Row, type SectionResult, Skip, absoluteRow, firstLine, fmtMs, fmtRate, importOptional, projectPath, summarize, time, timePair, timeRow,
} from './harness.js';
import { builtOut } from './built.js';
import { loadKusto, kustoGlobals } from './kusto.js';
import { LONG_QUERY, shortQueries } from './queries.js';

interface CheckModule {
    checkText(text: string, options?: { schema?: SchemaProvider; analyzers?: Record<string, never> }): Promise<unknown[]>;
}

export async function checkSection(ctx: BenchContext): Promise<SectionResult> {
    const rows: Row[] = [];
    const notes: string[] = [];
    for (const [what, part] of [
        ['check', () => checkThroughput(ctx, rows, notes)],
        ['analyzers', () => analyzerOverhead(ctx, rows, notes)],
        ['completion', () => completionLatency(ctx, rows, notes)],
        ['language-server start-up', () => serverStartup(ctx, rows, notes)],
    ] as const) {
        try {
            await part();
        } catch (err) {
            if (err instanceof Skip) notes.push(`skipped: ${what}: ${err.message}`);
            else notes.push(`skipped: ${what}: failed: ${firstLine(err)}`);
        }
    }
    return { rows, notes };
}

async function checkThroughput(ctx: BenchContext, rows: Row[], notes: string[]): Promise<void> {
    const { checkText } = await importOptional<CheckModule>('language/check.ts', 'checkText');
    const { kusto } = loadKusto();
    const K = kusto.Language;
    const schema = new BuiltinSchemaProvider();
    const globals = kustoGlobals(kusto, SAMPLE_DATASETS);
    const n = ctx.quick ? 200 : 1000;
    const texts = shortQueries(n);
    let ours = 0;
    let theirs = 0;
    const oursBatch = async () => {
        ours = 0;
        for (const t of texts) ours += (await checkText(t, { schema })).length;
    };
    const kustoBatch = () => {
        theirs = 0;
        for (const t of texts) {
            const ct = new K.Utils.CancellationToken();
            theirs += K.KustoCode.ParseAndAnalyze(t, globals, ct).GetDiagnostics(ct).Count;
        }
    };
    ctx.log(`check: ${n} short queries`);
    const [a, b] = await timePair(oursBatch, kustoBatch, { warmup: ctx.quick ? 1 : 2 });
    rows.push(timeRow(`check ${n} short queries`, a.median, b.median, 1.0, ` (${fmtRate((n / a.median) * 1000, 'q')})`));
    notes.push(`diagnostics over the ${n} texts: ours ${ours}, Kusto ${theirs} (both know the ${SAMPLE_DATASETS.length} sample datasets)`);
}

/** The analyzers must not make diagnostics slow: the same texts checked with every rule on, vs without. */
async function analyzerOverhead(ctx: BenchContext, rows: Row[], notes: string[]): Promise<void> {
    const { checkText } = await importOptional<CheckModule>('language/check.ts', 'checkText');
    const schema = new BuiltinSchemaProvider();
    const n = ctx.quick ? 200 : 1000;
    const texts = shortQueries(n);
    let findings = 0;
    let plain = 0;
    const withAnalyzers = async () => {
        findings = 0;
        for (const t of texts) findings += (await checkText(t, { schema, analyzers: {} })).length;
    };
    const without = async () => {
        plain = 0;
        for (const t of texts) plain += (await checkText(t, { schema })).length;
    };
    ctx.log(`analyzers: ${n} short queries`);
    const [a, b] = await timePair(withAnalyzers, without, { warmup: ctx.quick ? 1 : 2 });
    rows.push(timeRow(`check ${n} short queries with the analyzers (baseline: without)`, a.median, b.median, 1.2));
    notes.push(`analyzers: ${findings - plain} findings over the ${n} texts (diagnostics ${plain} without, ${findings} with)`);
}

async function completionLatency(ctx: BenchContext, rows: Row[], notes: string[]): Promise<void> {
    const { createAplServices } = await import('../../language/apl-module.js');
    const schema = new BuiltinSchemaProvider();
    const services = createAplServices({ ...EmptyFileSystem, module: { schema: { SchemaProvider: () => schema } } }).Apl;
    const provider = services.lsp.CompletionProvider;
    if (!provider) throw new Skip('the services have no lsp.CompletionProvider');
    const factory = services.shared.workspace.LangiumDocumentFactory;
    const builder = services.shared.workspace.DocumentBuilder;
    const { kusto } = loadKusto();
    const K = kusto.Language;
    const globals = kustoGlobals(kusto, SAMPLE_DATASETS);

    // What an editor does per keystroke: the document changes (parse + link), then completion is asked for.
    let counter = 0;
    const cases: [string, string][] = [
        ['after `| ` (operators)', `${LONG_QUERY}\n| `],
        ['after `| where ` (columns)', `${LONG_QUERY}\n| where `],
    ];
    for (const [label, text] of cases) {
        const lines = text.split('\n');
        const position = { line: lines.length - 1, character: lines[lines.length - 1]!.length };
        let items = 0;
        const ours = async () => {
            const doc: LangiumDocument = factory.fromString(text, URI.parse(`memory:///completion-${counter++}.apl`));
            await builder.build([doc], { validation: false });
            const list = await provider.getCompletion(doc, { textDocument: { uri: doc.uri.toString() }, position });
            items = list?.items.length ?? 0;
        };
        let kItems = 0;
        const theirs = () => {
            const ct = new K.Utils.CancellationToken();
            const service = new K.Editor.KustoCodeService.$ctor1(text, globals);
            kItems = service.GetCompletionItems(text.length, null, ct)?.Items.Count ?? 0;
        };
        ctx.log(`completion: ${label}`);
        // A latency, not a ratio: ours is timed on its own, in steady state as in an editor session
        // (no forced full GC before each keystroke, no Kusto garbage in between); Kusto for scale.
        const a = await time(ours, { warmup: 5, runs: ctx.quick ? 11 : 41, gcBetween: false });
        const b = await time(theirs, { warmup: 2, runs: ctx.quick ? 5 : 11 });
        const row = timeRow(`completion ${label}`, a.median, b.median, null);
        rows.push({ ...row, bar: '≤ 20 ms', pass: a.median <= 20 });
        notes.push(`completion ${label}: ${items} items (Kusto: ${kItems}); baseline is Kusto's KustoCodeService (informational)`);
    }
}

async function serverStartup(ctx: BenchContext, rows: Row[], notes: string[]): Promise<void> {
    const bin = builtOut(ctx, 'apl-language-server.cjs');
    const rel = path.relative(projectPath('.'), bin);
    const linux = process.platform === 'linux';
    // As editors start it: the bin itself (on POSIX its launcher starts the server from the start-up
    // snapshot the build made), and `node <bin>`, the script start that VS Code's LanguageClient
    // (which forks the module) and npm's shims on Windows use. Node reads and parses the file
    // NODE_EXTRA_CA_CERTS names at every start, before any of our code runs: when it is set, the
    // same spawns without it show what the server itself costs.
    const starts: StartSpec[] = [
        ...(process.platform === 'win32' ? [] : [{ key: 'bin', label: `${rel} --stdio`, command: bin, args: [], snapshot: linux ? true : undefined }]),
        { key: 'script', label: `node ${rel} --stdio`, command: process.execPath, args: [bin], snapshot: linux ? false : undefined },
    ].flatMap(s => (process.env.NODE_EXTRA_CA_CERTS ? [s, { ...s, key: `${s.key}-plain`, label: `${s.label} (without NODE_EXTRA_CA_CERTS)`, plain: true }] : [s]));
    ctx.log(`language server start-up: ${starts.map(s => s.label).join('; ')}`);
    const driver = projectPath('scripts/bench/language-server-start.mjs');
    const r = spawnSync(process.execPath, [driver, JSON.stringify({ starts, runs: ctx.quick ? 5 : 11, text: LONG_QUERY })], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`the start-up driver failed: ${firstLine(r.stderr)}`);
    const samples = JSON.parse(r.stdout) as Record<string, number[]>;
    const bare = (plain: boolean | undefined) => `node -e '' ${fmtMs(summarize(samples[plain ? 'bare-plain' : 'bare']).median)}`;
    starts.forEach((s, i) => {
        const t = summarize(samples[s.key]);
        if (i === 0) {
            // Issue 14's bar (issue 3's was 500 ms), on the start editors other than VS Code make.
            rows.push(absoluteRow('language server: spawn → first diagnostics', fmtMs(t.median), t.median <= 250, '≤ 250 ms', bare(s.plain)));
        } else {
            rows.push({ name: `  ${s.label}`, ours: fmtMs(t.median), baseline: bare(s.plain), ratio: NaN, bar: '—', pass: null });
        }
        notes.push(`language server start-up, ${s.label}: median of ${samples[s.key].length} spawns (min ${fmtMs(t.min)}, max ${fmtMs(t.max)})`);
    });
    notes.push('language server start-up: timed by scripts/bench/language-server-start.mjs, a node process of its own (not the bench process, whose heap holds Kusto and test data), the starts alternating run by run; baseline: a bare node start, for scale');
    if (process.env.NODE_EXTRA_CA_CERTS) notes.push('this environment sets NODE_EXTRA_CA_CERTS, which every node process (a bare one included) reads at start; the rows marked "without" run the same spawns without it');
}

/** One way of starting the server, for scripts/bench/language-server-start.mjs. */
interface StartSpec {
    key: string;
    label: string;
    command: string;
    args: string[];
    /** Whether it must run from the start-up snapshot (checked on Linux). */
    snapshot?: boolean;
    /** Without NODE_EXTRA_CA_CERTS. */
    plain?: boolean;
}
