/**
 * The VS Code extension (issue 11 §6), each figure against its baseline run side by side:
 * - first rows: from `apl.run` (Ctrl+Enter in a real VS Code: code-server + Chromium) to the first
 *   rows of a 1,000-row page painted in the results view, against the same request over plain HTTP
 *   from Node; alternating runs, medians (bar ≤ 1.5×);
 * - export: 200,000 rows from the embedded service to CSV through the extension's export path
 *   (ResultSet.allPages → exportPages, what `apl.exportResults` runs), against
 *   `apl query --all --format csv` of the same query to a file; rows/s (bar ≥ 0.8×);
 * - webview heap: the results webview (dist/webview.js, alone in its own Chromium page so its heap
 *   is its own) fed by a real ResultSet, after scrolling through 100,000 rows (bar ≤ 60 MB).
 * Needs the real-VS-Code tools (scripts/provision-vscode-test.sh); skipped without them.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AplClient } from '../../client/api/client.js';
import { exportPages } from '../../client/vscode/src/results/export-writer.js';
import { ResultSet } from '../../client/vscode/src/results/result-set.js';
import type { HostMessage, RunView, ViewMessage } from '../../client/vscode/src/protocol.js';
import type { Frame, Page } from 'playwright-core';
import { ingestEvents, launchBrowser, openFile, openWorkbench, provision, startAplServe, startCodeServer, type TestService, type ToolPaths } from '../../test/vscode/harness.js';
import { type BenchContext, type Row, type Section, Skip, firstLine, projectPath } from './harness.js';

// Browser-side code, as text: the page runs it as written (no TypeScript helpers, no DOM types here).
const STATUS = `document.querySelector('[data-testid="apl-status"]')`;
const WAIT_FOR_PAINT = `new Promise((resolve, reject) => {
    const el = ${STATUS};
    const start = Date.now();
    const tick = () => {
        if (el.dataset.paintMs !== undefined && el.dataset.state === 'done') resolve(el.dataset.paintMs + ' ' + el.dataset.elapsedMs + ' ' + el.dataset.drawMs);
        else if (Date.now() - start > 60000) reject(new Error('no rows painted'));
        else setTimeout(tick, 5);
    };
    tick();
})`;
const CLEAR_PAINT = `delete ${STATUS}.dataset.paintMs`;
const FAKE_VSCODE_API = `window.acquireVsCodeApi = () => ({ postMessage: m => window.__aplHost(m), getState: () => undefined, setState: () => undefined })`;
const SCROLL_THROUGH = `async total => {
    const vp = document.querySelector('.ag-body-vertical-scroll-viewport') || document.querySelector('.ag-body-viewport');
    const rowHeight = document.querySelector('.ag-row').offsetHeight || 30;
    const step = Math.max(1, Math.floor(vp.clientHeight / rowHeight)) * rowHeight * 8;
    const wait = ms => new Promise(r => setTimeout(r, ms));
    while (vp.scrollTop + vp.clientHeight < total * rowHeight - 2) {
        vp.scrollTop += step;
        for (let i = 0; i < 400 && document.querySelector('.ag-row-loading, .ag-loading, .ag-skeleton-container'); i++) await wait(10);
        await wait(5);
    }
}`;

/** The frame of the results webview (the inner one of its two nested iframes). */
async function statusFrame(page: Page): Promise<Frame> {
    for (let i = 0; i < 600; i++) {
        for (const f of page.frames()) {
            if (await f.evaluate(`!!${STATUS}`).catch(() => false)) return f;
        }
        await new Promise(r => setTimeout(r, 100));
    }
    throw new Error('the results view did not open');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmtMs = (ms: number) => `${ms.toFixed(0)} ms`;
const fmtRate = (r: number) => `${Math.round(r).toLocaleString('en-US')} rows/s`;

function tools(): ToolPaths {
    try {
        return provision();
    } catch (e) {
        throw new Skip(firstLine(e));
    }
}

/** The range that holds every event `ingestEvents` wrote (one every 15 s up to a minute ago). */
function rangeFor(count: number): { startTime: string; endTime: string } {
    return { startTime: new Date(Date.now() - count * 15_000 - 3_600_000).toISOString(), endTime: new Date(Date.now() + 60_000).toISOString() };
}

// ------------------------------------------------------------------------------------- first rows

async function firstRows(ctx: BenchContext, t: ToolPaths, service: TestService, notes: string[]): Promise<Row> {
    const runs = ctx.quick ? 3 : 7;
    const workspace = mkdtempSync(join(tmpdir(), 'apl-bench-ws-'));
    const query = "['events']\n| where seq >= 0";
    writeFileSync(join(workspace, 'bench.apl'), `${query}\n`);
    const server = await startCodeServer({ tools: t, workspace, vsix: projectPath(`out/apl-tools-${JSON.parse(readFileSync(projectPath('client/vscode/package.json'), 'utf8')).version}.vsix`), env: { AXIOM_URL: service.url, AXIOM_TOKEN: service.token } });
    const browser = await launchBrowser(t);
    try {
        const page = await browser.context.newPage();
        await openWorkbench(page, server, 'bench.apl');
        await openFile(page, 'bench.apl', 'seq');
        const client = new AplClient({ url: service.url, token: service.token });
        const paged = `${query}\n| sort by _time desc\n| limit 1000`;
        const ours: number[] = [];
        const base: number[] = [];
        const inHost: number[] = [];
        const drawing: number[] = [];
        for (let i = 0; i <= runs; i++) {
            // Plain HTTP: the same request the run sends for its first page (same query, range and limit).
            const range = rangeFor(0);
            const t0 = performance.now();
            const r = await client.query(paged, { startTime: new Date(Date.parse(range.endTime) - 86_400_000).toISOString(), endTime: range.endTime });
            const http = performance.now() - t0;
            if ((r.tables[0]?.columns?.[0]?.length ?? 0) !== 1000) throw new Error('the baseline request did not return 1,000 rows');
            await page.locator('.editor-instance .monaco-editor .view-lines').click();
            await page.keyboard.press('Control+Enter');
            const frame = await statusFrame(page);
            const [paint, request, draw] = String(await frame.evaluate(WAIT_FOR_PAINT)).split(' ').map(Number);
            if (i > 0) {
                // The first pair warms both paths up.
                ours.push(paint);
                base.push(http);
                inHost.push(request);
                drawing.push(draw);
            }
            // The next run must not see this run's figure.
            await frame.evaluate(CLEAR_PAINT);
        }
        const o = median(ours);
        const b = median(base);
        notes.push(`first rows: of the ${fmtMs(o)}, the run itself (from its start to the first page in the extension host, the request included) took ${fmtMs(median(inHost))}, and the webview took ${fmtMs(median(drawing))} from receiving the finished run to the frame after its rows were drawn; the rest is the language server's query info and the messages between the extension host and the webview.`);
        return { name: 'apl.run → first 1,000 rows painted vs the HTTP request', ours: fmtMs(o), baseline: fmtMs(b), ratio: o / b, bar: '≤ 1.5×', pass: o / b <= 1.5 };
    } finally {
        await browser.close();
        await server.stop();
        rmSync(workspace, { recursive: true, force: true });
    }
}

// ----------------------------------------------------------------------------------------- export

async function exportRate(ctx: BenchContext, service: TestService, count: number): Promise<Row> {
    const dir = mkdtempSync(join(tmpdir(), 'apl-bench-export-'));
    const { startTime, endTime } = rangeFor(count);
    const client = new AplClient({ url: service.url, token: service.token });
    const ours: number[] = [];
    const base: number[] = [];
    try {
        for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
            let t0 = performance.now();
            const set = await ResultSet.open({ client, apl: "['big']", mode: 'cursor', pageSize: 1000, order: 'desc', startTime, endTime, cachedPages: 20, signal: new AbortController().signal });
            const summary = await exportPages(set.allPages(new AbortController().signal), join(dir, 'ours.csv'), 'csv');
            if (summary.rows !== count) throw new Error(`the export wrote ${summary.rows} rows, not ${count}`);
            ours.push(count / ((performance.now() - t0) / 1000));
            t0 = performance.now();
            await new Promise<void>((resolve, reject) => {
                const child = spawn(process.execPath, [projectPath('out/apl.cjs'), 'query', '--url', service.url, '--all', '--page-size', '1000', '--format', 'csv', '--start', startTime, '--end', endTime, "['big']"], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, AXIOM_TOKEN: service.token } });
                child.stdout.pipe(createWriteStream(join(dir, 'cli.csv')));
                child.once('exit', code => (code === 0 ? resolve() : reject(new Error(`apl query exited with ${code}`))));
            });
            base.push(count / ((performance.now() - t0) / 1000));
            const cliRows = readFileSync(join(dir, 'cli.csv'), 'utf8').trimEnd().split('\n').length - 1;
            if (cliRows !== count) throw new Error(`apl query wrote ${cliRows} rows, not ${count}`);
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
    const o = median(ours);
    const b = median(base);
    return { name: `export ${count.toLocaleString('en-US')} rows to CSV vs apl query --all`, ours: fmtRate(o), baseline: fmtRate(b), ratio: o / b, bar: '≥ 0.8×', pass: o / b >= 0.8 };
}

// ---------------------------------------------------------------------------------- webview heap

async function webviewHeap(t: ToolPaths, service: TestService, count: number): Promise<Row> {
    const { startTime, endTime } = rangeFor(count);
    const client = new AplClient({ url: service.url, token: service.token });
    const set = await ResultSet.open({ client, apl: "['heap']", mode: 'cursor', pageSize: 1000, order: 'desc', startTime, endTime, cachedPages: 20, signal: new AbortController().signal });
    const browser = await launchBrowser(t);
    try {
        const page = await browser.context.newPage();
        const view: RunView = {
            runId: 1, state: 'done', query: "['heap']", connection: 'bench', range: 'bench', fields: set.fields, rowsMatched: set.rowsMatched, rowCount: set.rowCount,
            rowsLoaded: set.rowsLoaded, pageSize: 1000, mode: 'cursor', requests: set.requests, elapsedMs: 0, startedAt: Date.now(), truncated: false, isPartial: false, isEstimate: false, messages: [],
        };
        const toView = (m: HostMessage) => page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);
        await page.exposeFunction('__aplHost', async (m: ViewMessage) => {
            if (m.type === 'ready') await toView({ type: 'init', timeRange: { preset: '24h' }, run: view });
            if (m.type === 'getRows') {
                const rows = await set.rows(m.start, m.end);
                await toView({ type: 'rows', runId: m.runId, requestId: m.requestId, start: m.start, rows, rowCount: set.rowCount, rowsLoaded: set.rowsLoaded, requests: set.requests });
            }
        });
        const html = `<!DOCTYPE html><html><head><style>${readFileSync(projectPath('client/vscode/dist/webview.css'), 'utf8')}</style></head><body data-nonce=""><div id="app"></div></body></html>`;
        await page.setContent(html);
        await page.evaluate(FAKE_VSCODE_API);
        await page.addScriptTag({ content: readFileSync(projectPath('client/vscode/dist/webview.js'), 'utf8') });
        await page.locator('.ag-row[row-index="0"]').waitFor({ timeout: 60_000 });
        // Scroll down through every row, several screens at a time, waiting for each block to arrive.
        await page.evaluate(`(${SCROLL_THROUGH})(${set.rowCount})`);
        const last = page.locator(`.ag-row[row-index="${set.rowCount - 1}"]`);
        await last.waitFor({ timeout: 60_000 });
        const cdp = await browser.context.newCDPSession(page);
        await cdp.send('HeapProfiler.collectGarbage');
        const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
        const mb = heap.usedSize / 2 ** 20;
        return { name: `webview heap after scrolling ${count.toLocaleString('en-US')} rows`, ours: `${mb.toFixed(1)} MB`, baseline: '—', ratio: null, bar: '≤ 60 MB', pass: mb <= 60 };
    } finally {
        await browser.close();
    }
}

export const vscodeSection: Section = async ctx => {
    const t = tools();
    const rows: Row[] = [];
    const notes: string[] = [];
    const service = await startAplServe();
    try {
        const exportCount = ctx.quick ? 50_000 : 200_000;
        const heapCount = ctx.quick ? 20_000 : 100_000;
        ctx.log(`ingesting 5,000 + ${exportCount.toLocaleString('en-US')} + ${heapCount.toLocaleString('en-US')} events`);
        await ingestEvents(service, 5000, 'events');
        await ingestEvents(service, exportCount, 'big');
        await ingestEvents(service, heapCount, 'heap');
        ctx.log('packaging the .vsix');
        await new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [projectPath('scripts/package-vscode.mjs')], { stdio: 'ignore' });
            child.once('exit', code => (code === 0 ? resolve() : reject(new Error('packaging the .vsix failed'))));
        });
        ctx.log('first rows in code-server');
        rows.push(await firstRows(ctx, t, service, notes));
        ctx.log('export');
        rows.push(await exportRate(ctx, service, exportCount));
        ctx.log('webview heap');
        rows.push(await webviewHeap(t, service, heapCount));
        notes.push('first rows: from the start of the apl.run command in the extension host (language-server query info, the request, the rows to the webview over the websocket, the grid drawing them) to the frame after the rows are on screen; the HTTP baseline is the same request from Node.');
        notes.push('export: both write the same CSV to a file, page by page (1,000 rows a page, cursor paging); the CLI runs as its own process.');
    } finally {
        await service.stop();
    }
    return { rows, notes };
};
