/**
 * The results view's charts, exports and history in a real VS Code: the packaged .vsix in
 * code-server, driven through playwright-core, against a real `apl serve` behind a real HTTP proxy
 * that counts the queries it passes on (a result reopened from history must send none). One
 * code-server for the whole file.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
    openFile,
    openWorkbench,
    SKIP,
    skippedBanner,
    type CodeServer,
    type TestService,
    runLineInEditor,
    uiSteps,
    startUiSession,
    type UiSession,
    readmePicture,
} from './harness.js';
import { fileDialog } from './ui-actions.js';
import { forward } from './forward.js';

const EVENTS = 3_000;
const SETUP_TIMEOUT = 25 * 60_000;
const T = 60_000;

const QUERIES = [
    "['events'] | summarize n = count() by level", // 1
    '', // 2
    "['events'] | summarize count() by bin(_time, 1h)", // 3
    '', // 4
    "['events'] | where seq >= 0", // 5
    '',
].join('\n');
const LINE = { levels: 1, binned: 3, paged: 5 };

/** A real HTTP proxy in front of `apl serve` that counts the query requests it passes on. */
async function countingProxy(target: string): Promise<{ url: string; queries(): number; close(): Promise<void> }> {
    let queries = 0;
    const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            const body = Buffer.concat(chunks);
            if (req.method === 'POST' && /\/_apl|\/query/.test(req.url ?? '')) queries++;
            forward(target, req, res, body);
        });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        queries: () => queries,
        close: () =>
            new Promise<void>(resolve => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}

if (SKIP) console.warn(skippedBanner('the results charts tests (test/vscode/results-charts.test.ts)'));

describe.skipIf(SKIP)('charts, exports and history of the results view in a real VS Code', () => {
    let service: TestService;
    let proxy: Awaited<ReturnType<typeof countingProxy>>;
    let server: CodeServer;
    let page: Page;
    let workspace: string;

    let session: UiSession<Awaited<ReturnType<typeof countingProxy>>> | undefined;

    beforeAll(async () => {
        session = await startUiSession({ name: 'vscode-charts', events: EVENTS, files: { 'queries.apl': QUERIES }, settings: { 'apl.defaultTimeRange': '7d' }, proxy: countingProxy });
        ({ service, server, page, workspace } = session);
        proxy = session.proxy!;
        await step('open queries.apl', async () => {
            await openWorkbench(page, server, 'queries.apl');
            await openFile(page, 'queries.apl', 'seq >= 0');
            await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Run' }).nth(2).waitFor({ timeout: T });
        });
    }, SETUP_TIMEOUT);

    afterAll(() => session?.stop());

    const step = uiSteps(() => page, 'charts-');

    const runLine = (line: number) => runLineInEditor(page, line);

    /** The Results view's frame (`purpose=webviewView`): an open .aplr file has a webview of its own. */
    const frame = () => page.frameLocator('iframe.webview.ready[src*="purpose=webviewView"]').frameLocator('#active-frame');
    const status = () => frame().locator('[data-testid="apl-status"]');
    const chart = () => frame().locator('[data-testid="apl-chart"]');
    const cellText = (row: number, col: string) =>
        frame()
            .locator(`.ag-row[row-index="${row}"] [col-id="${col}"]`)
            .first()
            .textContent({ timeout: 2_000 })
            .catch(() => undefined);
    const statusKey = async () => `${await status().getAttribute('data-run-id')}|${await status().getAttribute('data-elapsed-ms')}|${await status().textContent()}`;

    async function runAndWait(line: number): Promise<void> {
        const before = await statusKey().catch(() => '');
        await runLine(line);
        await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('done');
    }

    /** The results view's tabs (Results, Chart, Stats): the chart is drawn in the Chart tab. */
    const tab = (name: string) => frame().getByRole('tab', { name, exact: true });

    /** Picks `option` in the webview's combobox named `name` (a vscode-single-select). */
    async function choose(name: string, option: string): Promise<void> {
        await frame().getByRole('combobox', { name }).click();
        await frame().getByRole('option', { name: option, exact: true }).click();
    }

    const picture = (name: string) => readmePicture(page, name);

    it("['events'] | summarize n = count() by level: a Bar chart chosen in the Chart type combobox is drawn, copied as a PNG and remembered for the query", () =>
        step('bar chart', async () => {
            await runAndWait(LINE.levels);
            await tab('Chart').click();
            await chart().waitFor({ state: 'visible', timeout: T });
            // A text X: columns, drawn by ECharts, one series over the two levels.
            await expect.poll(() => chart().getAttribute('data-chart-type'), { timeout: T }).toBe('column');
            expect(await chart().getAttribute('data-renderer')).toBe('echarts');
            expect(await chart().getAttribute('data-points')).toBe('2');
            const type = frame().getByRole('combobox', { name: 'Chart type' });
            expect(await type.count()).toBe(1);
            await choose('Chart type', 'Bar');
            await expect.poll(() => chart().getAttribute('data-chart-type'), { timeout: T }).toBe('bar');
            // ECharts' SVG renderer: the two bars and both level names are in the drawing.
            await expect.poll(() => chart().locator('svg text', { hasText: 'info' }).count(), { timeout: T }).toBeGreaterThan(0);
            expect(await chart().locator('svg text', { hasText: 'error' }).count()).toBeGreaterThan(0);
            await picture('vscode-bar-chart.png');
            await frame().getByRole('button', { name: 'Copy image' }).click();
            await expect.poll(async () => Number(await chart().getAttribute('data-copied')), { timeout: T }).toBeGreaterThan(1000);
            // The same block run again: still a bar chart.
            await runAndWait(LINE.paged);
            await runAndWait(LINE.levels);
            await expect.poll(() => chart().getAttribute('data-chart-type'), { timeout: T }).toBe('bar');
            await expect.poll(() => frame().getByRole('combobox', { name: 'Chart type' }).textContent(), { timeout: T }).toContain('Bar');
            await tab('Results').click();
        }),
    5 * 60_000);

    it("['events'] | summarize count() by bin(_time, 1h): lines drawn by uPlot (drag-to-zoom stays); Area switches to ECharts and Line back; an hour earlier is drawn on the same chart", () =>
        step('time chart', async () => {
            await runAndWait(LINE.binned);
            await tab('Chart').click();
            await chart().waitFor({ state: 'visible', timeout: T });
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('uplot');
            expect(await chart().locator('.u-over').count()).toBe(1);
            await choose('Chart type', 'Area');
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('echarts');
            await choose('Chart type', 'Line');
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('uplot');
            // The same query an hour earlier, on the same chart: a second line, named after its period.
            const sent = proxy.queries();
            await choose('Compare with', 'An hour earlier');
            await expect.poll(() => chart().getAttribute('data-compare'), { timeout: T }).toBe('1h');
            expect(await chart().getAttribute('data-series')).toBe('2');
            expect(await chart().locator('.u-legend').textContent()).toContain('(an hour earlier)');
            expect(proxy.queries()).toBe(sent + 1);
            await tab('Results').click();
            await expect.poll(() => cellText(0, '_time'), { timeout: T }).toMatch(/T\d\d:00:00(\.0+)?Z$/);
        }),
    5 * 60_000);

    it("['events'] | summarize n = count() by level: the history shows its result again without a request to the service", () =>
        step('history reopens', async () => {
            await runAndWait(LINE.levels);
            await runAndWait(LINE.paged);
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            const sent = proxy.queries();
            const input = page.locator('.quick-input-widget .quick-input-box input');
            // The run is in the history (with its result kept) a moment after it is done: open the history until it is.
            await expect
                .poll(
                    async () => {
                        await page.keyboard.press('Escape');
                        await page.keyboard.press('F1');
                        await input.fill('>APL: Show Query History');
                        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Show Query History' }).first().click();
                        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'seq >= 0' }).first().waitFor({ timeout: T });
                        await input.fill('count() by level');
                        const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'count() by level' }).first();
                        await row.hover();
                        return row.locator('[aria-label="Show the saved result"]').count();
                    },
                    { timeout: T },
                )
                .toBeGreaterThan(0);
            const before = await statusKey();
            await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'count() by level' }).first().locator('[aria-label="Show the saved result"]').first().click();
            await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('done');
            await expect.poll(() => cellText(0, 'level'), { timeout: T }).toMatch(/^(info|error)$/);
            expect(await frame().locator('[role="grid"]').first().getAttribute('aria-rowcount')).toBe('3');
            await expect.poll(() => frame().locator('body').innerText(), { timeout: T }).toContain('a saved result');
            // The chart as it was chosen for the query: Bar.
            await expect.poll(() => chart().getAttribute('data-chart-type'), { timeout: T }).toBe('bar');
            expect(proxy.queries()).toBe(sent);
            await picture('vscode-history-reopened.png');
        }),
    5 * 60_000);

    /** The save dialog's proposal: the folder first, then the file name after it. */
    const saveAs = (file: string) => fileDialog(page, file, { proposal: /[^/]\.[a-z]+$/, timeout: T });

    it("['events'] | summarize n = count() by level: Save as SVG writes the chart's SVG; Save result… writes a .aplr file without the token, and opening it shows the result without a request", () =>
        step('save chart and result', async () => {
            await runAndWait(LINE.levels);
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('echarts');
            const svg = join(workspace, 'levels.svg');
            await tab('Chart').click();
            await frame().getByRole('button', { name: 'Save as SVG' }).click();
            await saveAs(svg);
            await tab('Results').click();
            await expect.poll(() => readFileSync(svg, 'utf8'), { timeout: T }).toMatch(/^<svg[\s\S]*info[\s\S]*<\/svg>\s*$/);
            const aplr = join(workspace, 'levels.aplr');
            await frame().getByRole('button', { name: 'Save result…' }).click();
            await saveAs(aplr);
            await expect.poll(() => readFileSync(aplr, 'utf8').split('\n').length, { timeout: T }).toBe(4);
            const text = readFileSync(aplr, 'utf8');
            expect(text).not.toContain(service.token);
            expect(JSON.parse(text.split('\n')[0])).toMatchObject({ format: 'apl-result', query: "['events'] | summarize n = count() by level", rowsSaved: 2 });
            // Another result on screen, then the file opened from the explorer: its result is back, with no request.
            await runAndWait(LINE.paged);
            const sent = proxy.queries();
            const before = await statusKey();
            // The explorer opens it with its default editor, the APL Result editor; Quick Open when a picture
            // hid the explorer (its file search may not have indexed the new file yet: retried).
            const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'levels.aplr' }).first();
            if (await row.isVisible().catch(() => false)) {
                await row.click();
            } else {
                await expect
                    .poll(
                        async () => {
                            await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
                            await page.keyboard.press('Control+P');
                            await page.locator('.quick-input-widget .quick-input-box input').fill('levels.aplr');
                            const found = await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'levels.aplr' }).first().waitFor({ timeout: 5_000 }).then(() => true, () => false);
                            if (!found) await page.keyboard.press('Escape');
                            return found;
                        },
                        { timeout: T },
                    )
                    .toBe(true);
                await page.keyboard.press('Enter');
            }
            await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('done');
            await expect.poll(() => cellText(0, 'level'), { timeout: T }).toMatch(/^(info|error)$/);
            expect(proxy.queries()).toBe(sent);
            // Back to the queries for the next test: through its tab, since the result editor's webview has
            // the keyboard focus now (Quick Open's Ctrl+P does not reach the workbench from there).
            await page.locator('.tabs-container .tab', { hasText: 'queries.apl' }).first().click();
            await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'seq >= 0' }).waitFor({ timeout: T });
        }),
    5 * 60_000);

    it("['events'] | where seq >= 0: Export as Excel writes every row to an .xlsx file", () =>
        step('xlsx export', async () => {
            await runAndWait(LINE.paged);
            const file = join(workspace, 'events.xlsx');
            await choose('Export format', 'Excel');
            await frame().getByRole('button', { name: 'Export' }).click();
            await saveAs(file);
            const book = new ExcelJS.Workbook();
            await book.xlsx.readFile(file);
            const sheet = book.worksheets[0];
            expect(sheet.rowCount).toBe(EVENTS + 1);
            expect((sheet.getRow(1).values as unknown[]).slice(1)).toContain('seq');
        }),
    5 * 60_000);
});
