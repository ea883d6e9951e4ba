/**
 * The results view (grid, sort, status, toolbar, chart) in a real VS Code: the packaged .vsix in
 * code-server, driven with the mouse through playwright-core, against a real `apl serve` holding
 * 30,000 events (30 pages of 1,000). One code-server for the whole file. The browser runs in
 * Asia/Kolkata (UTC+5:30), so a view that shows local time where it should show UTC is caught.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AplClient } from '../../client/api/client.js';
import { forward } from './forward.js';
import {
    openFile,
    openWorkbench,
    resultsFrame,
    SCREENSHOTS,
    SKIP,
    skippedBanner,
    type CodeServer,
    runLineInEditor,
    uiSteps,
    startUiSession,
    type UiSession,
    readmePicture,
} from './harness.js';

const EVENTS = 30_000;
const SETUP_TIMEOUT = 25 * 60_000;
const T = 60_000;

/** Each query on its own line block; the line numbers below run them. */
const QUERIES = [
    "['events']", // 1
    '| where seq >= 0', // 2
    '', // 3
    "['events']", // 4
    "| where level matches regex '('", // 5
    '', // 6
    "['events'] | summarize n = count() by level", // 7
    '', // 8
    "['events'] | summarize count() by bin(_time, 1h)", // 9
    '', // 10
    "['events'] | where seq < 50 | extend ratio = seq / 7.0 | project _time, seq, ratio, ['geo.city']", // 11
    '', // 12
    // The service answers this one slowly (the proxy below holds it): time to cancel it.
    "['events'] | where level != 'slow-service'", // 13
    '', // 14
    // A right-to-left override (APL's \u202E escape): 'invoice\u202Egnp.exe' would display as 'invoiceexe.png'.
    "print file = 'invoice\\u202Egnp.exe', ['x\\u202Ey'] = 1", // 15
    '', // 16
    'print geo = parse_json(\'{"city":"Paris","loc":{"lat":48.8}}\')', // 17
    '', // 18
    // Every event; the proxy below holds its requests while the test says so (rows still on their way).
    "['events'] | where seq >= 0 and level != 'held-by-the-test'", // 19
    '', // 20
    // A dataset of its own, which the test adds an event to between two runs.
    "['refill'] | where tag != 'held-by-the-test'", // 21
    '',
].join('\n');
const LINE = { paged: 2, failing: 5, levels: 7, chart: 9, ratio: 11, slow: 13, bidi: 15, json: 17, held: 19, refill: 21 };
const HELD = 'held-by-the-test';

/** Requests the proxy holds until the test lets them go. */
interface Gate {
    /** Requests held now. */
    readonly held: number;
    /** Held requests let through and answered since. */
    readonly answered: number;
    /** Lets every held request (and every later one) through. */
    release(): void;
}

/**
 * A real HTTP proxy in front of `apl serve` that holds a query naming `slow-service` until its
 * client gives up (a service that takes its time), holds the requests naming a marker while a
 * `hold` gate is shut, and passes everything else straight through.
 */
async function slowServiceProxy(target: string): Promise<{ url: string; close(): Promise<void>; hold(marker: string): Gate }> {
    let gate: { marker: string; held: (() => void)[]; answered: number } | undefined;
    const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            const body = Buffer.concat(chunks);
            if (body.includes('slow-service')) {
                // Held until the client closes the connection (a cancel aborts the request).
                res.on('close', () => res.destroy());
                return;
            }
            const shut = gate;
            if (shut && body.includes(shut.marker)) {
                shut.held.push(() => pass(body, () => shut.answered++));
                return;
            }
            pass(body);
        });
        const pass = (body: Buffer, answered?: () => void) => forward(target, req, res, body, answered);
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        hold(marker) {
            const mine = { marker, held: [] as (() => void)[], answered: 0 };
            gate = mine;
            return {
                get held() {
                    return mine.held.length;
                },
                get answered() {
                    return mine.answered;
                },
                release() {
                    if (gate === mine) gate = undefined;
                    for (const go of mine.held.splice(0)) go();
                },
            };
        },
        close: () =>
            new Promise<void>(resolve => {
                server.closeAllConnections();
                server.close(() => resolve());
            }),
    };
}

if (SKIP) console.warn(skippedBanner('the results view tests (test/vscode/results-grid.test.ts)'));

describe.skipIf(SKIP)('the results view in a real VS Code, over 30,000 events', () => {
    let server: CodeServer;
    let page: Page;
    let proxy: Awaited<ReturnType<typeof slowServiceProxy>>;
    let session: UiSession<Awaited<ReturnType<typeof slowServiceProxy>>> | undefined;

    beforeAll(async () => {
        // 30,000 events 15 s apart span 5.2 days.
        session = await startUiSession({ name: 'vscode-grid', events: EVENTS, files: { 'queries.apl': QUERIES }, settings: { 'apl.defaultTimeRange': '7d' }, proxy: slowServiceProxy, timezoneId: 'Asia/Kolkata' });
        ({ server, page } = session);
        proxy = session.proxy!;
        await step('open queries.apl', async () => {
            await openWorkbench(page, server, 'queries.apl');
            await openFile(page, 'queries.apl', 'slow-service');
            // The extension is active and the language server answers when the Run lenses are drawn (the file has no problem to wait for).
            await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Run' }).nth(5).waitFor({ timeout: T });
        });
    }, SETUP_TIMEOUT);

    afterAll(() => session?.stop());

    const step = uiSteps(() => page, 'grid-');

    const runLine = (line: number) => runLineInEditor(page, line);

    const frame = () => resultsFrame(page);
    const status = () => frame().locator('[data-testid="apl-status"]');
    const cell = (row: number, col: string) => frame().locator(`.ag-row[row-index="${row}"] [col-id="${col}"]`).first();
    const cellText = (row: number, col: string) => cell(row, col).textContent({ timeout: 2_000 }).catch(() => undefined);
    const header = (col: string) => frame().locator(`.ag-header-cell[col-id="${col}"] .ag-header-cell-label`).first();
    /** AG Grid's scrolling viewport (both directions). */
    const viewport = () => frame().locator('.ag-grid-viewport').first();
    const rowCount = () => frame().locator('[role="grid"]').first().getAttribute('aria-rowcount');

    /** What tells one run's status from the next. */
    const statusKey = async () => `${await status().getAttribute('data-run-id')}|${await status().getAttribute('data-elapsed-ms')}|${await status().textContent()}`;

    async function runAndWait(line: number, state = 'done'): Promise<void> {
        const before = await statusKey().catch(() => '');
        await runLine(line);
        await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe(state);
    }

    async function runPaged(): Promise<void> {
        await runAndWait(LINE.paged);
        await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
        // Newest first: row 0 is the last event ingested.
        await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
    }

    async function scrollTo(fraction: number): Promise<void> {
        await viewport().evaluate((e, f) => {
            e.scrollTop = (e.scrollHeight - e.clientHeight) * f;
        }, fraction);
    }

    /** Runs in the page: the test's own types have no DOM. */
    const textAlign = (e: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }).getComputedStyle(e).textAlign;

    const tab = (name: string) => frame().getByRole('tab', { name, exact: true });
    const searchField = () => frame().getByRole('textbox', { name: 'Search results' });
    const onlyMatching = () => frame().getByRole('button', { name: 'Only matching rows' });
    const selectionStats = () => frame().locator('[data-testid="apl-selection-stats"]');

    /** The view's whole text, the grid's too, without the toolbar's labels. */
    const viewText = () => frame().locator('body').innerText();

    /** A look at the view at a moment worth seeing (out/vscode-test/screenshots, not kept in git). */
    async function look(name: string): Promise<void> {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, `grid-look-${name}.png`) });
    }

    const picture = (name: string) => readmePicture(page, name);

    it("['events'] | where seq >= 0: asc, desc, none ten times over, with rows on screen after every click", () =>
        step('sort cycle', async () => {
            await runPaged();
            for (let i = 0; i < 10; i++) {
                await header('seq').click();
                await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('0');
                await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('seq asc');
                await header('seq').click();
                await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
                await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('seq desc');
                await expect.poll(() => cellText(1, 'seq'), { timeout: T }).toBe(String(EVENTS - 2));
                await header('seq').click();
                await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('');
                await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
                expect(await rowCount()).toBe(String(EVENTS + 1));
            }
        }),
    20 * 60_000);

    it("['events'] | where seq >= 0 sorted by seq keeps all 30,000 rows: the last one is reachable, paging works, the status says how", () =>
        step('sort keeps rows', async () => {
            await runPaged();
            // Buttons act only when they can: no page before the first, nothing selected to copy.
            expect(await frame().getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
            expect(await frame().getByRole('button', { name: 'Copy rows' }).isDisabled()).toBe(true);
            await header('seq').click();
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('0');
            expect(await rowCount()).toBe(String(EVENTS + 1));
            await expect.poll(() => status().textContent(), { timeout: T }).toMatch(/sorted by seq/i);
            expect(await status().textContent()).toContain('30,000 rows');
            expect(await frame().getByRole('button', { name: 'Next page' }).isDisabled()).toBe(false);
            await frame().getByRole('button', { name: 'Next page' }).click();
            await expect.poll(() => cellText(1000, 'seq'), { timeout: T }).toBe('1000');
            await scrollTo(1);
            await expect.poll(() => cellText(EVENTS - 1, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            await expect.poll(() => frame().getByRole('button', { name: 'Next page' }).isDisabled(), { timeout: T }).toBe(true);
            await cell(EVENTS - 1, 'seq').click();
            await expect.poll(() => frame().getByRole('button', { name: 'Copy rows' }).isDisabled(), { timeout: T }).toBe(false);
            await look('sorted-last-row');
            // A new sort starts at the top.
            await header('duration_ms').click();
            await expect.poll(() => viewport().evaluate(e => e.scrollTop), { timeout: T }).toBe(0);
            await expect.poll(() => cellText(0, 'duration_ms'), { timeout: T }).toBe('0');
            await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('duration_ms asc');
            // Removing the sort gives back the paged result, in its own order, with every row.
            await header('duration_ms').click();
            await header('duration_ms').click();
            await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('');
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            expect(await rowCount()).toBe(String(EVENTS + 1));
            await expect.poll(() => status().textContent(), { timeout: T }).toContain('page 1 of 30');
        }),
    5 * 60_000);

    it("['events'] | where seq >= 0 and level != 'held-by-the-test' sorted while its rows are still arriving, then a 2-row summarize still shows its rows", () =>
        step('sort while arriving', async () => {
            const headerCell = (col: string) => frame().locator(`.ag-header-cell[col-id="${col}"]`).first();
            // A first run: the view knows the query's columns.
            await runAndWait(LINE.held);
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            // Again, its first page held by the service: the grid is drawn before the first block
            // arrives, and a sort chosen then wins over the unsorted rows that come with the run.
            let gate = proxy.hold(HELD);
            let heldAtEnd: number;
            try {
                const before = await status().getAttribute('data-run-id');
                await runLine(LINE.held);
                await expect.poll(async () => (await status().getAttribute('data-run-id')) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('running');
                await expect.poll(() => gate.held, { timeout: T }).toBe(1);
                await header('seq').click({ timeout: 10_000 });
                await expect.poll(() => headerCell('seq').getAttribute('aria-sort'), { timeout: T }).toBe('ascending');
                expect(await status().getAttribute('data-state')).toBe('running');
            } finally {
                gate.release();
            }
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('done');
            await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('seq asc');
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('0');
            expect(await rowCount()).toBe(String(EVENTS + 1));
            // Back to the result's own order, then to its end: the blocks there are held on their way
            // while the grid is sorted again; they come after the sorted rows and change nothing.
            await header('seq').click();
            await header('seq').click();
            await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('');
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            gate = proxy.hold(HELD);
            try {
                await scrollTo(1);
                await expect.poll(() => gate.held, { timeout: T }).toBeGreaterThan(0);
                heldAtEnd = gate.held;
                await header('seq').click();
                await expect.poll(() => status().getAttribute('data-sort'), { timeout: T }).toBe('seq asc');
                await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('0');
            } finally {
                gate.release();
            }
            // Every held request answered, the sorted rows stay.
            await expect.poll(() => gate.answered, { timeout: T }).toBeGreaterThanOrEqual(heldAtEnd);
            expect(await status().getAttribute('data-sort')).toBe('seq asc');
            expect(await cellText(0, 'seq')).toBe('0');
            expect(await cellText(1, 'seq')).toBe('1');
            await scrollTo(1);
            await expect.poll(() => cellText(EVENTS - 1, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            await scrollTo(0.5);
            await header('level').click();
            await runAndWait(LINE.levels);
            await expect.poll(rowCount, { timeout: T }).toBe('3');
            await expect.poll(async () => [await cellText(0, 'level'), await cellText(1, 'level')].sort().join(','), { timeout: T }).toBe('error,info');
            await look('summarize-after-sorts');
        }),
    5 * 60_000);

    it("['refill'] | where tag != 'held-by-the-test' run again after an event came: the last rows stay on screen, dimmed, until the new rows refill the grid in place", () =>
        step('refill in place', async () => {
            const client = new AplClient({ url: session!.service.url, token: session!.service.token });
            const event = (n: number) => ({ _time: new Date(Date.now() - 60_000 + n * 1000).toISOString(), n, tag: `t${n}` });
            await client.datasets.create({ name: 'refill' });
            await client.ingest('refill', [event(1), event(2), event(3)]);
            await runAndWait(LINE.refill);
            await expect.poll(() => cellText(0, 'n'), { timeout: T }).toBe('3');
            expect(await rowCount()).toBe('4');
            await client.ingest('refill', [event(4)]);
            const gate = proxy.hold(HELD);
            try {
                const before = await status().getAttribute('data-run-id');
                await runLine(LINE.refill);
                await expect.poll(async () => (await status().getAttribute('data-run-id')) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('running');
                await expect.poll(() => gate.held, { timeout: T }).toBe(1);
                // Running: the last result's rows, dimmed.
                expect(await cellText(0, 'n')).toBe('3');
                expect(await frame().locator('.main.stale').count()).toBe(1);
            } finally {
                gate.release();
            }
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('done');
            await expect.poll(() => cellText(0, 'n'), { timeout: T }).toBe('4');
            expect(await cellText(3, 'n')).toBe('1');
            expect(await rowCount()).toBe('5');
            expect(await frame().locator('.main.stale').count()).toBe(0);
        }),
    5 * 60_000);

    it("['events'] | where level matches regex '(' fails: the previous rows go, Copy / Open in editor / Export are disabled, the error is said once", () =>
        step('failed run', async () => {
            await runPaged();
            await runAndWait(LINE.failing, 'error');
            await expect.poll(() => frame().locator('.ag-row [col-id="seq"]').filter({ visible: true }).count(), { timeout: T }).toBe(0);
            for (const name of ['Copy rows', 'Open in editor', 'Export', 'Next page', 'Previous page', 'Cancel']) {
                expect(await frame().getByRole('button', { name }).isDisabled(), name).toBe(true);
            }
            const text = await viewText();
            expect(text.split('invalid regular expression').length - 1, text).toBe(1);
        }),
    3 * 60_000);

    it("['events'] | where level != 'slow-service' cancelled: the previous rows go, Copy / Open in editor / Export are disabled", () =>
        step('cancelled run', async () => {
            await runPaged();
            await runLine(LINE.slow);
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('running');
            await frame().getByRole('button', { name: 'Cancel' }).click();
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('cancelled');
            await expect.poll(() => frame().locator('.ag-row [col-id="seq"]').filter({ visible: true }).count(), { timeout: T }).toBe(0);
            for (const name of ['Copy rows', 'Open in editor', 'Export', 'Next page', 'Previous page', 'Cancel']) {
                expect(await frame().getByRole('button', { name }).isDisabled(), name).toBe(true);
            }
            // The next run shows its rows again.
            await runPaged();
        }),
    3 * 60_000);

    it("['events'] | where seq < 50 | extend ratio = seq / 7.0: columns fit their content, numbers to the right, floats rounded in the grid only", () =>
        step('columns', async () => {
            await runAndWait(LINE.ratio);
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('49');
            // 49 / 7 = 7 exactly; 48 / 7 = 6.857142857142857 is shown as 6.85714.
            await expect.poll(() => cellText(1, 'ratio'), { timeout: T }).toBe('6.85714');
            for (const col of ['_time', 'seq', 'ratio', 'geo.city']) {
                const fits = await frame()
                    .locator(`.ag-row[row-index="1"] [col-id="${col}"], .ag-header-cell[col-id="${col}"] .ag-header-cell-text`)
                    .evaluateAll(es => es.every(e => e.scrollWidth <= e.clientWidth));
                expect(fits, col).toBe(true);
            }
            expect(await cell(1, '_time').textContent()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
            for (const col of ['seq', 'ratio']) expect(await cell(1, col).evaluate(textAlign), col).toBe('right');
            expect(await cell(1, 'geo.city').evaluate(textAlign)).not.toBe('right');
            // The row details and the copy keep the full value.
            await cell(1, 'seq').click();
            const details = frame().getByRole('complementary', { name: 'Row details' });
            await expect.poll(() => details.textContent(), { timeout: T }).toContain('6.857142857142857');
            await frame().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    it("print file = 'invoice\\u202Egnp.exe', ['x\\u202Ey'] = 1: the grid, its header and the row details show the override as \\u202E, never raw", () =>
        step('bidi', async () => {
            await runAndWait(LINE.bidi);
            await expect.poll(() => cellText(0, 'file'), { timeout: T }).toBe('invoice\\u202Egnp.exe');
            expect(await frame().locator('.ag-header-cell .ag-header-cell-text', { hasText: 'x\\u202Ey' }).count()).toBe(1);
            await cell(0, 'file').click();
            const details = frame().getByRole('complementary', { name: 'Row details' });
            await expect.poll(() => details.textContent(), { timeout: T }).toContain('invoice\\u202Egnp.exe');
            expect(await details.textContent()).toContain('x\\u202Ey');
            expect(await viewText()).not.toContain('\u202E');
            await frame().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    it("['events'] | summarize count() by bin(_time, 1h): the chart reads UTC like the grid, its labels never overlap, and a zoom can be undone", () =>
        step('chart', async () => {
            await runAndWait(LINE.chart);
            // The grid's first bucket, in UTC like every _time the grid shows.
            await expect.poll(() => cellText(0, '_time'), { timeout: T }).toMatch(/T\d\d:00:00(\.0+)?Z$/);
            await tab('Chart').click();
            const chart = frame().locator('[data-testid="apl-chart"]');
            await chart.waitFor({ state: 'visible', timeout: T });
            const over = chart.locator('.u-over');
            const box = (await over.boundingBox())!;
            await page.mouse.move(box.x + 2, box.y + box.height / 2);
            // The legend's time of a bucket is on the hour (UTC), not half past (Asia/Kolkata).
            await expect.poll(() => chart.locator('.u-legend .u-series').first().textContent(), { timeout: T }).toMatch(/:00(:00)?(?!\d)/);
            await picture('vscode-chart.png');
            const labelsOverlap = () =>
                chart.locator('.u-axis').first().evaluate(axis => {
                    const boxes = [...axis.querySelectorAll('.u-value')].map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
                    return boxes.some((a, i) => boxes.some((b, j) => j > i && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom));
                });
            expect(await labelsOverlap()).toBe(false);
            const range = frame().locator('[data-testid="apl-time-range"]');
            const before = await range.evaluate(e => (e as unknown as { value: string }).value);
            // Drag across a fifth of the chart (where it is now: the picture may have resized the panel): the query runs again on that range.
            const drag = (await over.boundingBox())!;
            await page.mouse.move(drag.x + drag.width * 0.4, drag.y + drag.height / 2);
            await page.mouse.down();
            await page.mouse.move(drag.x + drag.width * 0.6, drag.y + drag.height / 2, { steps: 8 });
            await page.mouse.up();
            await expect.poll(() => range.evaluate(e => (e as unknown as { value: string }).value), { timeout: T }).toBe('custom');
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('done');
            await chart.waitFor({ state: 'visible', timeout: T });
            expect(await labelsOverlap()).toBe(false);
            await look('chart-zoomed');
            await frame().getByRole('button', { name: 'Reset zoom' }).click();
            await expect.poll(() => range.evaluate(e => (e as unknown as { value: string }).value), { timeout: T }).toBe(before);
            await tab('Results').click();
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0: the README's picture of the grid starts at the left edge, beside no empty side bar", () =>
        step('grid picture', async () => {
            await runPaged();
            expect(await viewport().evaluate(e => e.scrollLeft)).toBe(0);
            await cell(2, 'seq').click();
            await frame().getByRole('complementary', { name: 'Row details' }).waitFor();
            // Showing a row's details does not scroll the grid sideways.
            expect(await viewport().evaluate(e => e.scrollLeft)).toBe(0);
            await picture('vscode-results-grid.png');
            await frame().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    it("['events'] | summarize count() by bin(_time, 1h): Results, Chart and Stats are tabs, the totals table one too; Stats shows the rows examined and the elapsed time", () =>
        step('tabs and stats', async () => {
            await runAndWait(LINE.chart);
            const names = await frame().getByRole('tablist').getByRole('tab').allTextContents();
            expect(names.slice(0, 1).concat(names.slice(-2))).toEqual(['Results', 'Chart', 'Stats']);
            expect(names.some(n => /_totals/.test(n)), names.join(',')).toBe(true);
            expect(await tab('Results').getAttribute('aria-selected')).toBe('true');
            // The chart lives in the Chart tab's panel.
            expect(await frame().locator('#apl-chart-panel [data-testid="apl-chart"]').count()).toBe(1);
            // Keyboard: from the selected tab, the arrows move the selection.
            await tab('Results').focus();
            await page.keyboard.press('End');
            await expect.poll(() => tab('Stats').getAttribute('aria-selected'), { timeout: T }).toBe('true');
            const stats = frame().getByRole('tabpanel', { name: 'Stats' });
            await expect.poll(() => stats.innerText(), { timeout: T }).toContain('Rows examined');
            const text = await stats.innerText();
            // Every event of the range was examined; the elapsed time is there, the service's too.
            expect(text).toMatch(/Rows examined\s+30,000/);
            expect(text).toMatch(/Elapsed time\s+[\d,.]+ ms/);
            expect(text).toMatch(/Service time\s+[\d,.]+ ms/);
            expect(text).toMatch(/Blocks examined\s+\d/);
            expect(text).toMatch(/Partial result\s+no/);
            await picture('vscode-stats.png');
            await look('stats');
            await tab('Results').click();
            await expect.poll(() => tab('Results').getAttribute('aria-selected'), { timeout: T }).toBe('true');
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 searched for city-3: Ctrl+F, the rows in memory are searched and said so, Only matching rows counts them in aria-rowcount, next match, the service search is offered", () =>
        step('search', async () => {
            await runPaged();
            await cell(1, 'seq').click();
            await page.keyboard.press('Control+f');
            await expect.poll(() => searchField().evaluate(e => (e.getRootNode() as unknown as { activeElement: unknown }).activeElement === e), { timeout: T }).toBe(true);
            await page.keyboard.type('CITY-3');
            const info = frame().locator('[data-testid="apl-search-info"]');
            await expect.poll(() => info.getAttribute('data-matches'), { timeout: T }).not.toBeNull();
            const searched = Number(await info.getAttribute('data-rows-searched'));
            const matches = Number(await info.getAttribute('data-matches'));
            // Pages of 1,000 held in memory; one row in five is in city-3.
            expect(searched % 1000).toBe(0);
            expect(searched).toBeLessThan(EVENTS);
            expect(matches).toBe(searched / 5);
            expect(await info.textContent()).toContain(`of ${(EVENTS).toLocaleString('en-US')}`);
            const offer = frame().locator('[data-testid="apl-service-search"]');
            expect(await offer.innerText()).toContain("| search 'CITY-3'");
            expect(await frame().getByRole('button', { name: 'Run on the service' }).count()).toBe(1);
            // Matching cells are marked.
            await expect.poll(() => cell(1, 'geo.city').getAttribute('class'), { timeout: T }).toContain('search-hit');
            expect(await cell(0, 'geo.city').getAttribute('class')).not.toContain('search-hit');
            // Only matching rows: aria-rowcount counts them (and the header row).
            expect(await onlyMatching().getAttribute('aria-pressed')).toBe('false');
            await onlyMatching().click();
            expect(await onlyMatching().getAttribute('aria-pressed')).toBe('true');
            await expect.poll(rowCount, { timeout: T }).toBe(String(matches + 1));
            // The status line counts them too, of the rows of the result.
            await expect.poll(() => status().textContent(), { timeout: T }).toContain(`${matches.toLocaleString('en-US')} of 30,000 rows`);
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 2));
            expect(await cellText(1, 'geo.city')).toBe('city-3');
            expect(await cellText(1, 'seq')).toBe(String(EVENTS - 7));
            // Next match (Enter in the field) goes to the first, then the second.
            await searchField().press('Enter');
            await expect.poll(() => info.textContent(), { timeout: T }).toContain(`match 1 of ${matches.toLocaleString('en-US')}`);
            await searchField().press('Enter');
            await expect.poll(() => info.textContent(), { timeout: T }).toContain(`match 2 of ${matches.toLocaleString('en-US')}`);
            await expect.poll(() => frame().locator('.ag-cell-focus').first().getAttribute('col-id'), { timeout: T }).toBe('geo.city');
            // Off again: every row.
            await onlyMatching().click();
            await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
            await expect.poll(() => status().textContent(), { timeout: T }).toMatch(/^30,000 rows/);
            await searchField().fill('');
            await expect.poll(() => offer.isVisible(), { timeout: T }).toBe(false);
        }),
    3 * 60_000);

    it("['events'] | where seq < 50 | extend ratio = seq / 7.0: the statistics of three selected seq cells", () =>
        step('selection stats', async () => {
            await runAndWait(LINE.ratio);
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe('49');
            await cell(0, 'seq').click();
            // The first cell (seq 49) is selected before the range is drawn from it.
            await expect.poll(() => selectionStats().textContent(), { timeout: T }).toMatch(/^Selection in seq: count 1 · distinct 1 · sum 49 /);
            await cell(2, 'seq').click({ modifiers: ['Shift'] });
            await expect.poll(() => selectionStats().textContent(), { timeout: T }).toBe('Selection in seq: count 3 · distinct 3 · sum 144 · avg 48 · min 47 · max 49');
            await frame().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    /** Sets a @vscode-elements drop-down as a user's pick does (its value, then its change event); opens the column tools first. */
    async function choose(label: string, value: string): Promise<void> {
        const tools = frame().getByRole('button', { name: 'Filters and columns' });
        if ((await tools.getAttribute('aria-expanded')) !== 'true') await tools.click();
        await frame()
            .locator(`vscode-single-select[aria-label="${label}"]`)
            .evaluate((e, v) => {
                (e as unknown as { value: string }).value = v;
                e.dispatchEvent(new Event('change'));
            }, value);
    }

    it("['events'] | where seq >= 0 filtered to level error by value: 4,286 of 30,000 rows in aria-rowcount, the where shown; a regex VS Code cannot read goes to the service; the selection as a filter", () =>
        step('column filter', async () => {
            await runPaged();
            const info = frame().locator('[data-testid="apl-filter-info"]');
            await choose('Filter column', 'level');
            await choose('Filter by', 'values');
            // The distinct values with their counts, over every row (30,000 ≤ the sort limit).
            const errorValue = frame().getByRole('checkbox', { name: /^error \(4,286\)$/ });
            await errorValue.waitFor({ timeout: T });
            expect(await frame().getByRole('checkbox', { name: /^info \(25,714\)$/ }).count()).toBe(1);
            await errorValue.check();
            await frame().getByRole('button', { name: 'Add filter' }).click();
            await expect.poll(rowCount, { timeout: T }).toBe(String(4286 + 1));
            await expect.poll(() => info.textContent(), { timeout: T }).toContain('Filtered in VS Code: 4,286 of 30,000 rows');
            await expect.poll(() => status().textContent(), { timeout: T }).toContain('4,286 of 30,000 rows · page 1 of 5');
            expect(await info.textContent()).toContain("| where level == 'error'");
            // Multiples of 7, newest first.
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(29995));
            expect(await cellText(1, 'level')).toBe('error');
            await picture('vscode-results-filter.png');
            await look('filter');
            // A second filter: a regex JavaScript cannot read (RE2's named group) is left to the service.
            await choose('Filter column', 'geo.city');
            await choose('Filter by', 'matches regex');
            await frame().getByRole('textbox', { name: 'Filter text' }).fill('city-(?P<n>3)');
            await frame().getByRole('button', { name: 'Add filter' }).click();
            await expect.poll(() => info.getAttribute('data-local'), { timeout: T }).toBe('false');
            expect(await info.textContent()).toContain("| where tostring(['geo.city']) matches regex 'city-(?P<n>3)'");
            expect(await frame().getByRole('button', { name: 'Run filtered query' }).count()).toBe(1);
            // Every row again when the grid cannot show the filtered rows.
            await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
            await frame().getByRole('button', { name: 'Remove filter 2' }).click();
            await frame().getByRole('button', { name: 'Remove filter 1' }).click();
            await expect.poll(() => info.textContent(), { timeout: T }).toBe('');
            await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
            await expect.poll(() => cellText(1, 'seq'), { timeout: T }).toBe(String(EVENTS - 2));
            // The selection as a filter: two cells of geo.city, left out.
            await cell(0, 'geo.city').click();
            // Selected (the range is drawn from it) before the row details the click opened are closed:
            // they narrow the grid (geo.city may leave the drawn columns).
            await expect.poll(() => selectionStats().textContent(), { timeout: T }).toMatch(/^Selection in geo\.city: count 1 /);
            await frame().getByRole('button', { name: 'Close' }).click();
            await cell(1, 'geo.city').click({ modifiers: ['Shift'] });
            await expect.poll(() => selectionStats().textContent(), { timeout: T }).toMatch(/^Selection in geo\.city: count 2 /);
            await frame().getByRole('button', { name: 'Exclude selection' }).click();
            await expect.poll(() => info.textContent(), { timeout: T }).toContain("| where ['geo.city'] !in ('city-4', 'city-3')");
            await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS - 12000 + 1));
            await frame().getByRole('button', { name: 'Remove filter 1' }).click();
            await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0: column statistics on the service with their query, group by level (local, labelled), a pinned and a hidden column remembered for the query", () =>
        step('column tools', async () => {
            await runPaged();
            await choose('Filter column', 'level');
            await frame().getByRole('button', { name: 'Column statistics' }).click();
            const box = frame().locator('[data-testid="apl-column-stats"]');
            await expect.poll(() => box.innerText(), { timeout: T }).toMatch(/distinct values\s+2/);
            const text = await box.innerText();
            expect(text).toContain("| where seq >= 0\n| summarize rows = count(), nulls = countif(isnull(level)), distinct_values = dcount(level), top_values = topk(level, 10)");
            expect(text).toMatch(/rows\s+30000|rows\s+30,000/);
            expect(text).toMatch(/nulls\s+0/);
            await look('column-stats');
            await frame().getByRole('button', { name: 'Group by column' }).click();
            const counts = frame().getByRole('table', { name: 'Rows by level' });
            await counts.waitFor({ timeout: T });
            expect(await box.innerText()).toContain('counted in VS Code over all 30,000 rows');
            expect((await counts.innerText()).replace(/\s+/g, ' ')).toContain('info 25,714 error 4,286');
            await box.getByRole('button', { name: 'Close' }).click();
            // Pin seq, hide _sysTime: the same query shows them so again.
            await choose('Filter column', 'seq');
            await frame().getByRole('button', { name: 'Pin column' }).click();
            await choose('Filter column', '_sysTime');
            await frame().getByRole('button', { name: 'Hide column' }).click();
            const pinned = () => frame().locator('.ag-header-cell[col-id="seq"]').first().evaluate(e => (e.closest('[class*="pinned-left"]') ? 1 : 0));
            const sysTimeShown = () => frame().locator('.ag-header-cell[col-id="_sysTime"]').count();
            await expect.poll(pinned, { timeout: T }).toBe(1);
            await expect.poll(sysTimeShown, { timeout: T }).toBe(0);
            // Another query keeps its own columns: nothing pinned there.
            await runAndWait(LINE.levels);
            await expect.poll(() => frame().locator('[class*="pinned-left"] .ag-header-cell[col-id="level"]').count(), { timeout: T }).toBe(0);
            await runPaged();
            await expect.poll(pinned, { timeout: T }).toBe(1);
            expect(await sysTimeShown()).toBe(0);
            // Wrap text: rows three lines tall, and back.
            const rowHeight = () => cell(0, 'level').evaluate(e => e.closest('.ag-row')!.getBoundingClientRect().height);
            const oneLine = await rowHeight();
            await frame().getByRole('button', { name: 'Wrap text' }).click();
            await expect.poll(rowHeight, { timeout: T }).toBeGreaterThanOrEqual(oneLine * 3 - 1);
            expect(await frame().getByRole('button', { name: 'Wrap text' }).getAttribute('aria-pressed')).toBe('true');
            await frame().getByRole('button', { name: 'Wrap text' }).click();
            await expect.poll(rowHeight, { timeout: T }).toBe(oneLine);
            await frame().getByRole('button', { name: 'Show all columns' }).click();
            await expect.poll(sysTimeShown, { timeout: T }).toBe(1);
            await choose('Filter column', 'seq');
            await frame().getByRole('button', { name: 'Pin column' }).click();
            await expect.poll(pinned, { timeout: T }).toBe(0);
        }),
    3 * 60_000);

    it("print geo = parse_json('{\"city\":\"Paris\",\"loc\":{\"lat\":48.8}}'): the row details list the nested values with their JSON paths to copy", () =>
        step('json path', async () => {
            await runAndWait(LINE.json);
            await cell(0, 'geo').click();
            const details = frame().getByRole('complementary', { name: 'Row details' });
            await details.locator('summary', { hasText: 'Nested values of geo' }).click();
            const paths = await details.locator('.json-path').allTextContents();
            expect(paths).toEqual(["['geo']['city']", "['geo']['loc']", "['geo']['loc']['lat']"]);
            expect(await details.getByRole('button', { name: 'Copy path' }).count()).toBe(3);
            await frame().getByRole('button', { name: 'Close' }).first().click();
        }),
    3 * 60_000);
});
