/**
 * The extension-host test suite: runs INSIDE a real VS Code's Node extension host, with the full
 * `vscode` API, through code-server's URL payload (test/vscode/vscode.test.ts) or
 * @vscode/test-electron (`npm run test:vscode-desktop`). Each test drives the extension through its
 * commands against a real `apl serve` holding 5,000 events (APL_TEST_* environment variables).
 * Results go to the console and to the JSON file APL_TEST_RESULTS names.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import type { AplExtensionApi } from '../../../client/vscode/src/extension.js';
import type { RunSummary } from '../../../client/vscode/src/query/query-runner.js';
import { editorItemTests } from './editor-items.js';
import { editingTests } from './editing.js';
import { explainTests } from './explain.js';
import { folderTests } from './folder-token.js';
import { FOLDER_TESTS, HOST_TESTS, type HostTestName, type HostTestResult } from './names.js';
import { lmToolTests } from './lm-tools.js';
import { AGENT_TESTS } from './lm-tools-names.js';

const env = (name: string): string => {
    const v = process.env[name];
    if (!v) throw new Error(`the extension-host suite needs ${name} in the environment`);
    return v;
};

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
        const v = await probe();
        if (v !== undefined && v !== false) return v;
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise(r => setTimeout(r, 100));
    }
}

async function api(): Promise<AplExtensionApi> {
    const ext = vscode.extensions.getExtension<AplExtensionApi>('apl-tools.apl-tools');
    assert.ok(ext, 'the extension apl-tools.apl-tools is installed');
    return ext.activate();
}

async function openApl(name: string, text: string): Promise<vscode.TextDocument> {
    const file = vscode.Uri.file(join(env('APL_TEST_WORKSPACE'), name));
    await vscode.workspace.fs.writeFile(file, Buffer.from(text, 'utf8'));
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    assert.equal(doc.languageId, 'apl');
    return doc;
}

/** The pid of the language server this extension host started (its child running language-server.cjs), if one runs. */
function languageServerPid(): number | undefined {
    for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
            // The fields after the command name (in parentheses, may hold spaces): state, then the parent's pid.
            const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            if (parent !== process.pid) continue;
            if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('language-server.cjs')) return Number(entry);
        } catch {
            // The process ended meanwhile.
        }
    }
    return undefined;
}

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? d.code.value : d.code);

const TESTS: Record<HostTestName, () => Promise<void>> = {
    ...editorItemTests({ env, api, openApl, until }),
    ...explainTests({ env, api, openApl, until }),
    ...editingTests({ env, api, openApl, until }),
    'an .apl file gets diagnostics with APL codes': async () => {
        const a = await api();
        await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
        const doc = await openApl('diagnostics.apl', "['events']\n| where nosuchfield == 1\n\n['events'] | where\n");
        const diagnostics = await until('diagnostics', () => {
            const d = vscode.languages.getDiagnostics(doc.uri);
            return d.length >= 2 ? d : undefined;
        });
        const codes = diagnostics.map(d => (typeof d.code === 'object' ? d.code.value : d.code));
        assert.ok(codes.includes('APL0012'), `unknown field APL0012 in ${JSON.stringify(codes)}`);
        assert.ok(codes.includes('APL1001'), `syntax error APL1001 in ${JSON.stringify(codes)}`);
        const unknown = diagnostics.find(d => (typeof d.code === 'object' ? d.code.value : d.code) === 'APL0012')!;
        assert.equal(unknown.range.start.line, 1);
        assert.equal(unknown.severity, vscode.DiagnosticSeverity.Warning);
    },

    "['events'] | where nosuchfield == 1 after the language server crashed and was restarted: APL0012 (the pushed schema is sent again)": async () => {
        const a = await api();
        await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
        const before = await openApl('before-restart.apl', "['events'] | where nosuchfield == 1\n");
        await until('APL0012 from the pushed schema', () => vscode.languages.getDiagnostics(before.uri).some(d => codeOf(d) === 'APL0012') || undefined);
        const crashed = await until('the language server process', languageServerPid);
        // A crash: the language client starts a new server, which knows only the sample datasets until told more.
        process.kill(crashed, 'SIGKILL');
        await until('a new language server', () => {
            const pid = languageServerPid();
            return pid !== undefined && pid !== crashed ? pid : undefined;
        });
        // The sample datasets alone say nothing of `events` (no APL0011, no APL0012): APL0012 needs the pushed schema.
        const after = await openApl('after-restart.apl', "['events'] | where nosuchfield == 1\n");
        const codes = await until('APL0012 from the new server', () => {
            const found = vscode.languages.getDiagnostics(after.uri).map(codeOf);
            return found.includes('APL0012') ? found : undefined;
        });
        assert.deepEqual(codes, ['APL0012']);
    },

    "let t = ['events'] | where seq > 1; in cell 1, t\\n| where nosuchfield == 1 in cell 2, after the language server crashed and was restarted: APL0012 on nosuchfield and nothing on t (the cell preludes are sent again)": async () => {
        const a = await api();
        await until('the schema of the service', () => a.schemaDatasets().includes('events') || undefined);
        const file = vscode.Uri.file(join(env('APL_TEST_WORKSPACE'), 'preludes-restart.aplnb'));
        const cells = ["let t = ['events'] | where seq > 1;", 't\n| where nosuchfield == 1'].map(text => ({ kind: 'apl', text }));
        await vscode.workspace.fs.writeFile(file, Buffer.from(JSON.stringify({ format: 1, cells }), 'utf8'));
        const notebook = await vscode.workspace.openNotebookDocument(file);
        await vscode.window.showNotebookDocument(notebook);
        const second = notebook.cellAt(1).document.uri;
        // Without cell 1's let, `t` is an unknown dataset (APL0011) and `nosuchfield` goes unchecked: APL0012 on line 1 needs the prelude.
        const onNoSuchField = () => {
            const found = vscode.languages.getDiagnostics(second);
            return found.some(d => codeOf(d) === 'APL0012' && d.range.start.line === 1) ? found : undefined;
        };
        await until('APL0012 in cell 2, checked with the let of cell 1', onNoSuchField);
        const crashed = await until('the language server process', languageServerPid);
        process.kill(crashed, 'SIGKILL');
        // The client drops the old server's diagnostics before it starts the new one: all from here on are the new server's.
        await until('a new language server', () => {
            const pid = languageServerPid();
            return pid !== undefined && pid !== crashed ? pid : undefined;
        });
        const after = await until('APL0012 in cell 2 from the new server, with the prelude sent again', onNoSuchField);
        assert.deepEqual(after.map(d => `${codeOf(d)}@${d.range.start.line}`), ['APL0012@1']);
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    },

    "completion offers the service's dataset names and fields": async () => {
        const doc = await openApl('completion.apl', "['events']\n| where \n");
        const fields = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, new vscode.Position(1, 8));
        const labels = fields.items.map(i => (typeof i.label === 'string' ? i.label : i.label.label));
        for (const f of ['seq', 'level', 'geo.city', 'duration_ms']) assert.ok(labels.includes(f), `${f} in ${labels.slice(0, 40).join(', ')}`);
        const datasets = await openApl('datasets.apl', '\n');
        const start = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', datasets.uri, new vscode.Position(0, 0));
        const names = start.items.map(i => (typeof i.label === 'string' ? i.label : i.label.label));
        assert.ok(names.some(n => n.includes('events')), `the dataset 'events' in ${names.slice(0, 40).join(', ')}`);
    },

    'the token goes to SecretStorage and into no settings file': async () => {
        const a = await api();
        const token = env('APL_TEST_TOKEN');
        await vscode.commands.executeCommand('apl.addConnection', { name: 'test service', url: env('APL_TEST_SERVICE_URL'), token });
        assert.equal(a.connections.active(), 'test service');
        assert.equal(await a.connections.hasToken('test service'), true);
        const saved = vscode.workspace.getConfiguration('apl').get<unknown[]>('connections');
        assert.deepEqual(saved, [{ name: 'test service', url: env('APL_TEST_SERVICE_URL') }]);
        const files = [join(env('APL_TEST_USER_DATA'), 'User', 'settings.json'), join(env('APL_TEST_WORKSPACE'), '.vscode', 'settings.json')];
        const user = await until('the user settings file with the connection', () => {
            const text = existsSync(files[0]) ? readFileSync(files[0], 'utf8') : '';
            return text.includes('test service') ? text : undefined;
        });
        assert.ok(!user.includes(token), 'the user settings hold no token');
        if (existsSync(files[1])) assert.ok(!readFileSync(files[1], 'utf8').includes(token), 'the workspace settings hold no token');
        // A wrong token is refused before anything is saved (GET /v2/user answers 401).
        await assert.rejects(
            Promise.resolve(vscode.commands.executeCommand('apl.addConnection', { name: 'bad', url: env('APL_TEST_SERVICE_URL'), token: 'xaat-wrong' })),
            (e: Error) => !e.message.includes('xaat-wrong') && /cannot add the connection 'bad'/.test(e.message),
        );
        assert.equal(a.connections.names().includes('bad'), false);
    },

    'apl.run over 5,000 events reports rowsMatched 5,000 in pages of at most 1,000': async () => {
        const doc = await openApl('run.apl', "['events']\n| where seq >= 0\n\n['events'] | summarize count() by bin(_time, 1h)\n");
        const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 1, timeRange: '24h' });
        assert.equal(summary.state, 'done', summary.message);
        assert.equal(summary.rowsMatched, Number(env('APL_TEST_EVENTS')));
        assert.equal(summary.rowCount, 5000);
        assert.equal(summary.mode, 'cursor');
        assert.equal(summary.pageSize, 1000);
        assert.equal(summary.rowsLoaded, 1000, 'only the first page is read until the view asks for more');
        const chart = await vscode.commands.executeCommand<RunSummary>('apl.run', { uri: doc.uri.toString(), line: 3 });
        assert.equal(chart.state, 'done', chart.message);
        assert.equal(chart.mode, 'once');
        assert.ok(chart.rowCount >= 20 && chart.rowCount <= 23, `hourly buckets over ~21 h: ${chart.rowCount}`);
    },

    'apl.exportResults writes 5,000 rows and a header, each event exactly once': async () => {
        const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['events']", timeRange: '24h' });
        assert.equal(summary.state, 'done', summary.message);
        const file = join(env('APL_TEST_WORKSPACE'), 'export.csv');
        const written = await vscode.commands.executeCommand<{ rows: number }>('apl.exportResults', { format: 'csv', uri: vscode.Uri.file(file).toString() });
        assert.equal(written.rows, 5000);
        const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
        assert.equal(lines.length, 5001);
        const header = lines[0].split(',');
        const seq = header.indexOf('seq');
        assert.ok(seq >= 0 && header.includes('_time') && header.includes('geo.city'), lines[0]);
        const seen = new Set(lines.slice(1).map(l => Number(l.split(',')[seq])));
        assert.equal(seen.size, 5000);
        for (let i = 0; i < 5000; i++) assert.ok(seen.has(i), `event ${i} exported`);
        const ndjson = join(env('APL_TEST_WORKSPACE'), 'export.ndjson');
        const again = await vscode.commands.executeCommand<{ rows: number }>('apl.exportResults', { format: 'ndjson', uri: vscode.Uri.file(ndjson).toString() });
        assert.equal(again.rows, 5000);
        assert.equal(new Set(readFileSync(ndjson, 'utf8').trimEnd().split('\n').map(l => (JSON.parse(l) as { seq: number }).seq)).size, 5000);
    },

    'apl.cancel during a run ends in cancelled': async () => {
        const a = await api();
        // A join of 3,000 × 3,000 events takes the service a while: long enough to cancel it mid-request.
        const slow = "['events'] | where seq < 3000 | join kind=inner (['events'] | where seq < 3000) on level | count";
        const pending = vscode.commands.executeCommand<RunSummary>('apl.run', { text: slow, timeRange: '24h' });
        await until('the run to start', () => (a.lastRun()?.state === 'running' ? true : undefined), 10_000);
        const cancelled = await vscode.commands.executeCommand<boolean>('apl.cancel');
        assert.equal(cancelled, true);
        const summary = await pending;
        assert.equal(summary.state, 'cancelled');
        assert.equal(a.lastRun()?.state, 'cancelled');
        // The service still answers afterwards.
        const after = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['events'] | count", timeRange: '24h' });
        assert.equal(after.state, 'done', after.message);
    },

    'the history holds the runs': async () => {
        const a = await api();
        const entries = await until('the history entries', async () => {
            const found = await a.history.search('seq < 3000 join');
            return found.length > 0 ? found : undefined;
        });
        assert.equal(entries[0].outcome, 'cancelled');
        assert.equal(entries[0].connection, 'test service');
        // A finished run is kept once the view has painted its first page (or a second after).
        const done = await until('the finished run in the history', async () => {
            const found = await a.history.search("['events'] | where seq >= 0");
            return found[0]?.outcome === 'done' ? found : undefined;
        });
        assert.equal(done[0]?.rowsMatched, 5000);
        assert.ok(Date.parse(done[0].endTime) - Date.parse(done[0].startTime) === 24 * 3_600_000, 'the resolved 24 h range is recorded');
        const text = readFileSync(a.history.file, 'utf8');
        assert.ok(!text.includes(env('APL_TEST_TOKEN')), 'no token in the history');
    },

    'apl.translateToLegacy opens the legacy query JSON, or places the error': async () => {
        const doc = await openApl('translate.apl', "['events']\n| where level == 'error'\n\n['events']\n| join (['events']) on seq\n");
        const ok = await vscode.commands.executeCommand<{ dataset: string; query: { filter?: { op: string; field: string; value: unknown } } }>('apl.translateToLegacy', { uri: doc.uri.toString(), line: 0 });
        assert.equal(ok.dataset, 'events');
        assert.deepEqual([ok.query.filter?.op, ok.query.filter?.field, ok.query.filter?.value], ['==', 'level', 'error']);
        const json = await until('the JSON editor', () => vscode.window.visibleTextEditors.find(e => e.document.languageId === 'json' && e.document.getText().includes('"dataset": "events"')));
        assert.ok(json);
        const bad = await vscode.commands.executeCommand<{ error: string; line: number }>('apl.translateToLegacy', { uri: doc.uri.toString(), line: 3 });
        assert.match(bad.error, /join/);
        assert.equal(bad.line, 5);
    },

    'apl.startLocalService starts the bundled apl serve with the sample datasets and connects to it': async () => {
        const a = await api();
        const started = await vscode.commands.executeCommand<{ url: string }>('apl.startLocalService');
        assert.match(started.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.equal(a.connections.active(), 'local service');
        await until('the sample datasets in the schema', () => a.schemaDatasets().includes('sample-http-logs') || undefined, 60_000);
        const summary = await vscode.commands.executeCommand<RunSummary>('apl.run', { text: "['sample-http-logs'] | summarize count() by status", timeRange: '30d' });
        assert.equal(summary.state, 'done', summary.message);
        await vscode.commands.executeCommand('apl.stopLocalService');
        assert.equal(a.connections.names().includes('local service'), false);
    },
};

/**
 * APL_TEST_SUITE picks the set: the main one, `folder` (a hostile folder's settings, in a window of its
 * own) or `agents` (the language-model tools through vscode.lm.invokeTool).
 */
function selectedTests(): [string, () => Promise<void>][] {
    if (process.env.APL_TEST_SUITE === 'agents') {
        const tests = lmToolTests({ env, api, openApl, until });
        return AGENT_TESTS.map(name => [name, tests[name]]);
    }
    if (process.env.APL_TEST_SUITE === 'folder') {
        const tests = folderTests({ env, api, openApl, until });
        return FOLDER_TESTS.map(name => [name, tests[name]]);
    }
    return HOST_TESTS.map(name => [name, TESTS[name]]);
}

export function run(): Promise<void> {
    const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false });
    const suite = Mocha.Suite.create(mocha.suite, 'apl-tools extension host');
    const results: HostTestResult[] = [];
    for (const [name, test] of selectedTests()) {
        suite.addTest(
            new Mocha.Test(name, async () => {
                const start = Date.now();
                try {
                    await test();
                    results.push({ name, ok: true, ms: Date.now() - start });
                } catch (e) {
                    results.push({ name, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e), ms: Date.now() - start });
                    throw e;
                }
            }),
        );
    }
    return new Promise((resolve, reject) => {
        mocha.run(failures => {
            const file = process.env.APL_TEST_RESULTS;
            if (file) writeFileSync(file, JSON.stringify(results, null, 1));
            if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed`));
            else resolve();
        });
    });
}
