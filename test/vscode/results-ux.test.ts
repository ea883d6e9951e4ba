/**
 * The results view used as a user does, in the panel's default height: a window reload (the last
 * result recalled, or every control without a target disabled), paging, the chart and the column
 * tools fitting the panel, JSON cells expanded in place, the keyboard, and grouping on the service.
 * The packaged .vsix in code-server, driven through playwright-core, against a real `apl serve`
 * holding 30,000 events. One code-server for the whole file; the JSON test edits the file's last
 * block (Filter adds a `where`), so it runs last.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
    openFile,
    openWorkbench,
    resultsFrame,
    runLineInEditor,
    SCREENSHOTS,
    SKIP,
    skippedBanner,
    uiSteps,
    type CodeServer,
    startUiSession,
    type UiSession,
} from './harness.js';

const EVENTS = 30_000;
const SETUP_TIMEOUT = 25 * 60_000;
const T = 60_000;

const QUERIES = [
    "['events']", // 1
    '| where seq >= 0', // 2
    '', // 3
    "['events'] | summarize n = count() by level", // 4
    '', // 5
    "['events'] | summarize count() by bin(_time, 1h)", // 6
    '', // 7
    'print geo = parse_json(\'{"city":"Paris","loc":{"lat":48.8}}\')', // 8
    '',
].join('\n');
const LINE = { paged: 2, levels: 4, binned: 6, json: 8 };

/** The controls that act on a result: disabled while there is none. */
const RESULT_CONTROLS = ['Cancel', 'Previous page', 'Next page', 'Export', 'Copy rows', 'Open in editor', 'Previous match', 'Next match', 'Only matching rows', 'Filters and columns', 'Share…', 'Save result…'];

if (SKIP) console.warn(skippedBanner('the results view UX tests (test/vscode/results-ux.test.ts)'));

describe.skipIf(SKIP)('the results view used as a user does, in the default panel height', () => {
    let server: CodeServer;
    let page: Page;
    let workspace: string;

    let session: UiSession<never> | undefined;

    beforeAll(async () => {
        session = await startUiSession({ name: 'vscode-ux', events: EVENTS, files: { 'queries.apl': QUERIES }, settings: { 'apl.defaultTimeRange': '7d' } });
        ({ server, page, workspace } = session);
        await step('open queries.apl', openQueries);
    }, SETUP_TIMEOUT);

    afterAll(() => session?.stop());

    const step = uiSteps(() => page, 'ux-');
    /** A screenshot to look at (test-results/vscode/ux-look-<name>.png). */
    const look = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `ux-look-${name}.png`) });

    async function openQueries(): Promise<void> {
        await openWorkbench(page, server, 'queries.apl');
        await openFile(page, 'queries.apl', 'seq >= 0');
        await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Run' }).nth(3).waitFor({ timeout: T });
    }

    /**
     * After a reload: the Results view, opened by its command when the workbench did not restore the
     * panel (web VS Code may reload before it stored the layout). Its webview starts then.
     */
    async function showResultsView(): Promise<void> {
        const visible = () => status().waitFor({ timeout: 10_000 }).then(() => true, () => false);
        if (await visible()) return;
        await expect
            .poll(async () => {
                await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
                await page.keyboard.press('F1');
                await page.locator('.quick-input-widget .quick-input-box input').fill('>Focus on Results View');
                await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Focus on Results View' }).first().click({ timeout: 10_000 });
                return visible();
            }, { timeout: T })
            .toBe(true);
    }

    const frame = () => resultsFrame(page);
    const status = () => frame().locator('[data-testid="apl-status"]');
    const cell = (row: number, col: string) => frame().locator(`.ag-row[row-index="${row}"] [col-id="${col}"]`).first();
    const cellText = (row: number, col: string) => cell(row, col).textContent({ timeout: 2_000 }).catch(() => undefined);
    /** The grid cell that has the keyboard focus, as `row:column` (AG Grid's focused cell, and the frame's focused element). */
    const keyboardCell = () =>
        frame()
            .locator('.ag-cell-focus')
            .first()
            .evaluate(e => {
                const doc = e.ownerDocument as unknown as { activeElement: unknown; hasFocus(): boolean };
                return doc.activeElement === e && doc.hasFocus() ? `${e.closest('.ag-row')?.getAttribute('row-index')}:${e.getAttribute('col-id')}` : 'not the focused element';
            }, undefined, { timeout: 2_000 })
            .catch(() => 'no focused cell');
    /** The indexes of the selected rows (a row is drawn once per pinned part: counted once). */
    const selectedRows = () =>
        frame()
            .locator('.ag-row-selected[row-index]')
            .evaluateAll(es => [...new Set(es.map(e => Number(e.getAttribute('row-index'))))].sort((a, b) => a - b));
    const headerCell = (col: string) => frame().locator(`.ag-header-cell[col-id="${col}"]`).first();
    const rowCount = () => frame().locator('[role="grid"]').first().getAttribute('aria-rowcount');
    const tab = (name: string) => frame().getByRole('tab', { name, exact: true });
    const chart = () => frame().locator('[data-testid="apl-chart"]');
    const statusKey = async () => `${await status().getAttribute('data-run-id')}|${await status().getAttribute('data-elapsed-ms')}|${await status().textContent()}`;
    /** The results frame's own height (the panel's). */
    const frameHeight = () => frame().locator('body').evaluate(() => (globalThis as unknown as { innerHeight: number }).innerHeight);
    const bottomOf = (selector: string) => frame().locator(selector).first().evaluate(e => e.getBoundingClientRect().bottom);
    const resultsDir = () => join(server.userDataDir, 'User', 'globalStorage', 'apl-tools.apl-tools', 'results');

    async function runAndWait(line: number): Promise<void> {
        const before = await statusKey().catch(() => '');
        await runLineInEditor(page, line);
        await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('done');
    }

    async function runPaged(): Promise<void> {
        await runAndWait(LINE.paged);
        if ((await tab('Results').getAttribute('aria-selected')) !== 'true') await tab('Results').click();
        await expect.poll(rowCount, { timeout: T }).toBe(String(EVENTS + 1));
        await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
    }

    /** Sets a @vscode-elements drop-down as a user's pick does; opens the column tools first. */
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

    async function closeTools(): Promise<void> {
        const tools = frame().getByRole('button', { name: 'Filters and columns' });
        if ((await tools.getAttribute('aria-expanded')) === 'true') await tools.click();
    }

    /** The toolbar's groups of controls: on how many lines, its height and its tallest group's. */
    const toolbarRows = () =>
        frame()
            .getByRole('toolbar', { name: 'Results' })
            .evaluate(bar => {
                const kids = [...bar.children].filter(k => k.getBoundingClientRect().width > 0);
                const tops = new Set(kids.map(k => Math.round(k.getBoundingClientRect().top)));
                const tallest = Math.max(...kids.map(k => k.getBoundingClientRect().height));
                return { tops: tops.size, height: Math.round(bar.getBoundingClientRect().height), tallest: Math.round(tallest) };
            });
    /** The rightmost column wholly drawn, left of the grid's vertical scroll bar (the frame's own coordinates). */
    const rightmostColumn = async () => {
        const ids = await frame()
            .locator('.ag-header-row-column .ag-header-cell[col-id]')
            .evaluateAll(es => {
                const right = es[0]!.closest('.grid')!.getBoundingClientRect().right - 14;
                return es.filter(e => e.getBoundingClientRect().right <= right && e.getBoundingClientRect().width > 0).sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left).map(e => e.getAttribute('col-id')!);
            });
        return ids[ids.length - 1]!;
    };

    /** Drags the sash above the panel by `dy` pixels (up: negative). */
    async function dragPanel(dy: number): Promise<void> {
        const panel = (await page.locator('.part.panel').first().boundingBox())!;
        await page.mouse.move(panel.x + panel.width / 2, panel.y - 1);
        await page.mouse.down();
        await page.mouse.move(panel.x + panel.width / 2, panel.y - 1 + dy, { steps: 6 });
        await page.mouse.up();
        await page.mouse.move(5, 5);
    }

    it("['events'] | where seq >= 0, then a window reload: the last result is recalled from the history (shown as a saved result, not run again)", () =>
        step('reload recalls', async () => {
            await runPaged();
            // The run's first page is kept under the global storage a moment after it is done.
            await expect.poll(() => (existsSync(resultsDir()) ? readdirSync(resultsDir()).filter(n => n.endsWith('.aplr')).length : 0), { timeout: T }).toBeGreaterThan(0);
            await page.reload();
            await openQueries();
            await showResultsView();
            await expect.poll(() => status().getAttribute('data-state'), { timeout: T }).toBe('done');
            await expect.poll(() => cellText(0, 'seq'), { timeout: T }).toBe(String(EVENTS - 1));
            // Said as a sentence (when it was saved, how much of it), not as a status message with a bare "info:".
            const note = frame().locator('.notes p').first();
            await expect.poll(() => note.textContent(), { timeout: T }).toMatch(/^This is a saved result from \d{4}-\d\d-\d\d \d\d:\d\d UTC with the first 1,000 of its 30,000 rows; the query was not run again \(Run runs it\)\.$/);
            expect(await frame().locator('.notes').innerText()).not.toMatch(/\binfo:/);
            await look('reload-note');
            for (const name of ['Export', 'Open in editor', 'Filters and columns']) expect(await frame().getByRole('button', { name, exact: true }).isDisabled(), name).toBe(false);
        }),
    5 * 60_000);

    it('a window reload with no kept result: "No query run yet", and every control that acts on a result is disabled', () =>
        step('reload idle', async () => {
            rmSync(resultsDir(), { recursive: true, force: true });
            await page.reload();
            await openQueries();
            await showResultsView();
            await expect.poll(() => status().textContent(), { timeout: T }).toContain('No query run yet');
            expect(await status().getAttribute('data-state')).toBe('idle');
            for (const name of RESULT_CONTROLS) expect(await frame().getByRole('button', { name, exact: true }).isDisabled(), name).toBe(true);
            // Run stays: it runs the block at the cursor.
            expect(await frame().getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(false);
            await runPaged();
        }),
    5 * 60_000);

    it("['events'] | where seq >= 0, Next page: no selection statistics for the row Next page focuses, and a clicked cell still has them", () =>
        step('next page selection', async () => {
            await runPaged();
            await frame().getByRole('button', { name: 'Next page' }).click();
            await expect.poll(() => status().textContent(), { timeout: T }).toContain('page 2 of 30');
            await expect.poll(() => cellText(1000, 'seq'), { timeout: T }).toBe(String(EVENTS - 1001));
            const stats = frame().locator('[data-testid="apl-selection-stats"]');
            expect(await stats.isVisible()).toBe(false);
            expect(await frame().getByRole('button', { name: 'Filter to selection' }).isVisible()).toBe(false);
            await cell(1001, 'seq').click();
            const v = (EVENTS - 1002).toLocaleString('en-US');
            await expect.poll(() => stats.textContent(), { timeout: T }).toBe(`Selection in seq: count 1 · distinct 1 · sum ${v} · avg ${v} · min ${v} · max ${v}`);
            await frame().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 with the side bar open: the toolbar stays on one row", () =>
        step('toolbar one row', async () => {
            await runPaged();
            await expect.poll(() => page.locator('.part.sidebar').isVisible(), { timeout: T }).toBe(true);
            // Every group of controls on the first row's line, and the toolbar no taller than its tallest control.
            const r = await toolbarRows();
            expect(r.tops, JSON.stringify(r)).toBe(1);
            expect(r.height, JSON.stringify(r)).toBeLessThanOrEqual(r.tallest + 2);
            await look('toolbar-side-bar');
            // Every control is still on screen, by its full name.
            for (const name of ['Run', 'Previous page', 'Next page', 'Export', 'Copy rows', 'Open in editor', 'Share…', 'Save result…']) {
                expect(await frame().getByRole('button', { name, exact: true }).isVisible(), name).toBe(true);
            }
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0: a click on the rightmost column opens the row details, and the clicked cell stays in view", () =>
        step('details keep the cell', async () => {
            await runPaged();
            const viewport = frame().locator('.grid').first();
            const last = await rightmostColumn();
            await cell(2, last).click();
            await frame().getByRole('complementary', { name: 'Row details' }).waitFor({ timeout: T });
            const inView = async () => {
                const c = await cell(2, last).boundingBox();
                const v = await viewport.boundingBox();
                return !!c && !!v && c.x >= v.x - 1 && c.x + c.width <= v.x + v.width + 1;
            };
            await expect.poll(inView, { timeout: 10_000 }).toBe(true);
            // Without scrolling the grid sideways.
            expect(await frame().locator('.ag-grid-viewport').first().evaluate(e => e.scrollLeft)).toBe(0);
            await look('details-right-column');
            await frame().getByRole('complementary', { name: 'Row details' }).getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    /** The lowest row wholly drawn in the grid (and in the window). */
    const lowestRowDrawn = () =>
        frame()
            .locator('.ag-row[row-index]')
            .evaluateAll(es => {
                const grid = es[0]!.closest('.grid')!.getBoundingClientRect();
                const bottom = Math.min(grid.bottom, (globalThis as unknown as { innerHeight: number }).innerHeight) - 14;
                return Math.max(...es.filter(e => e.getBoundingClientRect().bottom <= bottom).map(e => Number(e.getAttribute('row-index'))));
            });

    /** The cell is in the grid's viewport and on top at its centre: nothing (the row details) covers it. */
    const uncovered = (row: number, col: string) =>
        cell(row, col)
            .evaluate(e => {
                const r = e.getBoundingClientRect();
                const hit = e.ownerDocument.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return !!hit && e.contains(hit);
            }, undefined, { timeout: 2_000 })
            .catch(() => false);
    const details = () => frame().getByRole('complementary', { name: 'Row details' });
    const detailsTitle = () => details().getByRole('heading').first().textContent({ timeout: 2_000 }).catch(() => undefined);
    const detailsOpen = () => details().isVisible();

    it("['events'] | where seq >= 0: the row details dock under the grid; a click at the right or at the left leaves the row's number, its _time and the clicked cell uncovered, and the sash gives them more height", () =>
        step('details docked', async () => {
            await runPaged();
            const grid = frame().locator('.grid').first();
            const before = (await grid.boundingBox())!;
            // The lowest row wholly drawn, and its rightmost column wholly drawn: the details must not hide it.
            const row = await lowestRowDrawn();
            expect(row).toBeGreaterThan(2);
            const last = await rightmostColumn();
            expect(last).not.toBe('_time');
            await cell(row, last).click();
            await expect.poll(detailsTitle, { timeout: T }).toBe(`Row ${row + 1}`);
            for (const col of ['#', '_time', last]) await expect.poll(() => uncovered(row, col), { timeout: 10_000 }).toBe(true);
            // Under the grid, which keeps its width and its left edge (nothing scrolled sideways).
            const after = (await grid.boundingBox())!;
            const box = (await details().boundingBox())!;
            expect(box.y, JSON.stringify({ after, box })).toBeGreaterThanOrEqual(after.y + after.height - 1);
            expect(Math.abs(after.width - before.width)).toBeLessThanOrEqual(1);
            expect(await frame().locator('.ag-grid-viewport').first().evaluate(e => e.scrollLeft)).toBe(0);
            await look('details-docked-right');
            // A click at the left, on another row: the details follow, nothing covered either.
            await cell(row - 1, 'seq').click();
            await expect.poll(detailsTitle, { timeout: T }).toBe(`Row ${row}`);
            for (const col of ['#', '_time', 'seq', last]) await expect.poll(() => uncovered(row - 1, col), { timeout: 10_000 }).toBe(true);
            // The sash (a focusable splitter), in a taller panel: Up gives the details more height, the row stays in view above them.
            await dragPanel(-200);
            const sash = frame().getByRole('separator', { name: 'Resize the row details' });
            const height = (await details().boundingBox())!.height;
            await sash.focus();
            for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
            await expect.poll(async () => (await details().boundingBox())!.height, { timeout: T }).toBeGreaterThan(height + 40);
            await expect.poll(() => uncovered(row - 1, 'seq'), { timeout: 10_000 }).toBe(true);
            for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
            await expect.poll(async () => (await details().boundingBox())!.height, { timeout: T }).toBeLessThan(height + 20);
            await dragPanel(200);
            await details().getByRole('button', { name: 'Close' }).click();
            await expect.poll(detailsOpen, { timeout: T }).toBe(false);
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0: presses held as a hand holds them (150 ms): on row 2 it selects the row and opens its details; a Shift+press on the lowest row drawn selects the rows between and opens nothing; a press on that row selects it alone and opens its details, the row in view above them", () =>
        step('held press selects', async () => {
            await runPaged();
            const lowest = await lowestRowDrawn();
            expect(lowest).toBeGreaterThanOrEqual(3);
            const stats = () => frame().locator('[data-testid="apl-selection-stats"]').textContent();
            const selected = (row: number) => frame().locator(`.ag-row[row-index="${row}"]`).first().getAttribute('aria-selected');
            /** A press with the mouse held down a while, as a hand does: the view draws frames before it comes up. */
            const press = async (row: number, shift: boolean) => {
                const b = (await cell(row, 'seq').boundingBox())!;
                await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
                if (shift) await page.keyboard.down('Shift');
                await page.mouse.down();
                await page.waitForTimeout(150);
                await page.mouse.up();
                if (shift) await page.keyboard.up('Shift');
            };
            // Shown at the press, the statistics wrapped under the status line and moved the grid down a row.
            await press(1, false);
            await expect.poll(detailsTitle, { timeout: T }).toBe('Row 2');
            await expect.poll(() => selected(1), { timeout: T }).toBe('true');
            await expect.poll(stats, { timeout: T }).toMatch(/^Selection in seq: count 1 /);
            await details().getByRole('button', { name: 'Close' }).click();
            await expect.poll(detailsOpen, { timeout: T }).toBe(false);
            await press(lowest, true);
            await expect.poll(stats, { timeout: T }).toMatch(new RegExp(`^Selection in seq: count ${lowest} `));
            expect(await detailsOpen()).toBe(false);
            // Selected rows in the focused grid have the colour of VS Code's selected list items (AG Grid
            // paints a selected row's overlay in the colour its variable holds there; one the mouse is
            // not over, which has the hover colour over it).
            const [painted, want] = await frame()
                .locator(`.ag-row[row-index="${lowest - 1}"]`)
                .first()
                .evaluate(e => {
                    const view = e.ownerDocument.defaultView!;
                    const colour = (parent: typeof e, css: string) => {
                        const probe = e.ownerDocument.createElement('div');
                        probe.style.background = css;
                        parent.append(probe);
                        const c = view.getComputedStyle(probe).backgroundColor;
                        probe.remove();
                        return c;
                    };
                    return [colour(e, 'var(--ag-internal-row-overlay-color)'), colour(e.ownerDocument.body, 'var(--vscode-list-activeSelectionBackground)')];
                });
            expect(painted).toBe(want);
            // Opened at the press, the details shrank the grid and scrolled this row up before the mouse came up.
            await press(lowest, false);
            await expect.poll(detailsTitle, { timeout: T }).toBe(`Row ${lowest + 1}`);
            await expect.poll(() => selected(1), { timeout: T }).toBe('false');
            expect(await selected(lowest)).toBe('true');
            await expect.poll(stats, { timeout: T }).toMatch(/^Selection in seq: count 1 /);
            await expect.poll(() => uncovered(lowest, 'seq'), { timeout: 10_000 }).toBe(true);
            await details().getByRole('button', { name: 'Close' }).click();
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 by keyboard: the arrows move the open row details from row to row, Escape closes them and the focus stays on the cell, Enter opens them again", () =>
        step('details keyboard', async () => {
            await runPaged();
            await cell(1, 'seq').click();
            await expect.poll(detailsTitle, { timeout: T }).toBe('Row 2');
            await expect.poll(keyboardCell, { timeout: T }).toBe('1:seq');
            // Past the rows the grid showed: the details follow and the focused row stays in view above them.
            for (let i = 2; i <= 12; i++) {
                await page.keyboard.press('ArrowDown');
                await expect.poll(keyboardCell, { timeout: T }).toBe(`${i}:seq`);
            }
            await expect.poll(detailsTitle, { timeout: T }).toBe('Row 13');
            expect(await details().textContent()).toContain(String(EVENTS - 13));
            await expect.poll(() => uncovered(12, 'seq'), { timeout: 10_000 }).toBe(true);
            await expect.poll(() => uncovered(12, '#'), { timeout: 10_000 }).toBe(true);
            // Escape in the grid closes them; the arrows then move without opening them.
            await page.keyboard.press('Escape');
            await expect.poll(detailsOpen, { timeout: T }).toBe(false);
            await expect.poll(keyboardCell, { timeout: T }).toBe('12:seq');
            await page.keyboard.press('ArrowUp');
            await expect.poll(keyboardCell, { timeout: T }).toBe('11:seq');
            expect(await detailsOpen()).toBe(false);
            // Enter opens them for the focused row, the focus staying in the grid.
            await page.keyboard.press('Enter');
            await expect.poll(detailsTitle, { timeout: T }).toBe('Row 12');
            expect(await keyboardCell()).toBe('11:seq');
            // Tab goes into them; Escape there closes them and gives the focus back to the cell.
            await page.keyboard.press('Tab');
            await expect.poll(() => details().evaluate(e => e.contains((e.ownerDocument as unknown as { activeElement: unknown }).activeElement as never)), { timeout: T }).toBe(true);
            await page.keyboard.press('Escape');
            await expect.poll(detailsOpen, { timeout: T }).toBe(false);
            await expect.poll(keyboardCell, { timeout: T }).toBe('11:seq');
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 in a panel 600 and 420 pixels wide: the toolbar keeps one row, the rest goes into More actions, the named controls and the whole status line stay on screen", () =>
        step('narrow panel', async () => {
            await runPaged();
            const start = page.viewportSize()!;
            const frameWidth = () => frame().locator('body').evaluate(() => (globalThis as unknown as { innerWidth: number }).innerWidth);
            /** The window narrowed (the side bar stays) until the results frame is `width` wide. */
            async function panelWidth(width: number): Promise<void> {
                for (let i = 0; i < 4; i++) {
                    const now = await frameWidth();
                    if (Math.abs(now - width) <= 3) return;
                    const vp = page.viewportSize()!;
                    await page.setViewportSize({ width: vp.width + width - now, height: vp.height });
                    await expect.poll(frameWidth, { timeout: T }).not.toBe(now);
                }
                expect(Math.abs((await frameWidth()) - width)).toBeLessThanOrEqual(3);
            }
            /** Shown, and wholly inside the panel (the frame's own coordinates). */
            const onScreen = async (what: string, l: ReturnType<ReturnType<typeof frame>['getByRole']>, width: number) => {
                expect(await l.isVisible(), what).toBe(true);
                const b = await l.evaluate(e => e.getBoundingClientRect().toJSON() as { left: number; right: number; width: number });
                expect(b.width, what).toBeGreaterThan(0);
                expect(b.left, what).toBeGreaterThanOrEqual(0);
                expect(b.right, what).toBeLessThanOrEqual(width + 1);
            };
            try {
                for (const width of [600, 420]) {
                    await panelWidth(width);
                    await expect.poll(async () => (await toolbarRows()).tops, { timeout: T }).toBe(1);
                    const r = await toolbarRows();
                    expect(r.height, JSON.stringify(r)).toBeLessThanOrEqual(r.tallest + 2);
                    await look(`narrow-${width}`);
                    for (const name of ['Run', 'Cancel', 'Previous page', 'Next page', 'Export', 'More actions', 'Only matching rows']) {
                        await onScreen(`${name} at ${width}`, frame().getByRole('button', { name, exact: true }), width);
                    }
                    await onScreen(`Search results at ${width}`, frame().getByRole('textbox', { name: 'Search results' }), width);
                    for (const name of ['Results', 'Chart', 'Stats']) await onScreen(`${name} at ${width}`, tab(name), width);
                    // The status line wraps, it is never cut off at the panel's edge.
                    await onScreen(`the status at ${width}`, frame().locator('[data-testid="apl-status"]'), width);
                    // The grid keeps rows in the panel.
                    expect(await bottomOf('.ag-row[row-index="1"]')).toBeLessThanOrEqual(await frameHeight());
                    // More actions, by keyboard: Enter opens it on its first control, Escape closes it and gives the focus back.
                    const more = frame().getByRole('button', { name: 'More actions', exact: true });
                    const menu = frame().getByRole('group', { name: 'More actions' });
                    await more.focus();
                    await page.keyboard.press('Enter');
                    await menu.waitFor({ timeout: T });
                    expect(await more.getAttribute('aria-expanded')).toBe('true');
                    await expect.poll(() => menu.evaluate(e => e.contains((e.ownerDocument as unknown as { activeElement: unknown }).activeElement as never)), { timeout: T }).toBe(true);
                    for (const name of ['Share…', 'Save result…', 'Copy rows', 'Open in editor']) await onScreen(`${name} in More actions at ${width}`, menu.getByRole('button', { name, exact: true }), width);
                    await look(`narrow-${width}-more`);
                    await page.keyboard.press('Escape');
                    await expect.poll(() => menu.isVisible(), { timeout: T }).toBe(false);
                    expect(await more.evaluate(e => (e.ownerDocument as unknown as { activeElement: unknown }).activeElement === e)).toBe(true);
                    // The Chart tab's Chart type.
                    await tab('Chart').click();
                    // A paged result's chart rows are asked for when the tab is shown: the chart comes after them.
                    await frame().getByRole('combobox', { name: 'Chart type' }).waitFor({ state: 'visible', timeout: T });
                    await onScreen(`Chart type at ${width}`, frame().getByRole('combobox', { name: 'Chart type' }), width);
                    await tab('Results').click();
                }
                // Wide again: everything back on the toolbar, no More actions.
                await page.setViewportSize(start);
                await expect.poll(() => frame().getByRole('button', { name: 'More actions', exact: true }).isVisible(), { timeout: T }).toBe(false);
                expect(await frame().getByRole('toolbar', { name: 'Results' }).getByRole('button', { name: 'Share…', exact: true }).isVisible()).toBe(true);
            } finally {
                await page.setViewportSize(start);
            }
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 with Filters and columns open (values of level listed): the grid's first rows stay in the panel", () =>
        step('filters keep the grid', async () => {
            await runPaged();
            await choose('Filter column', 'level');
            await choose('Filter by', 'values');
            await frame().getByRole('checkbox', { name: /^error \(4,286\)$/ }).waitFor({ timeout: T });
            const height = await frameHeight();
            await expect.poll(() => bottomOf('.ag-row[row-index="1"]'), { timeout: T }).toBeLessThanOrEqual(height);
            expect(await cell(1, 'seq').isVisible()).toBe(true);
            // The filter's controls are in the panel too, beside the grid.
            expect(await bottomOf('vscode-button:text-is("Add filter")')).toBeLessThanOrEqual(height);
            // The tools are still all there: they scroll in their own area.
            await frame().getByRole('button', { name: 'Group by column' }).scrollIntoViewIfNeeded();
            expect(await frame().getByRole('button', { name: 'Group by column' }).isVisible()).toBe(true);
            await closeTools();
        }),
    3 * 60_000);

    it("['events'] | summarize n = count() by level as bars and ['events'] | summarize count() by bin(_time, 1h) as lines: each chart fits the default panel and follows its height", () =>
        step('chart fits', async () => {
            await runAndWait(LINE.levels);
            await tab('Chart').click();
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('echarts');
            const height = await frameHeight();
            await expect.poll(() => bottomOf('[data-testid="apl-chart"] svg'), { timeout: T }).toBeLessThanOrEqual(height);
            const svgHeight = () => frame().locator('[data-testid="apl-chart"] svg').first().evaluate(e => e.getBoundingClientRect().height);
            const before = await svgHeight();
            expect(before).toBeGreaterThan(40);
            // A taller panel: a taller chart; and back.
            await dragPanel(-200);
            await expect.poll(svgHeight, { timeout: T }).toBeGreaterThan(before + 150);
            await dragPanel(200);
            await expect.poll(svgHeight, { timeout: T }).toBeLessThan(before + 20);
            await runAndWait(LINE.binned);
            await expect.poll(() => chart().getAttribute('data-renderer'), { timeout: T }).toBe('uplot');
            // The plot and its legend under it.
            await expect.poll(() => bottomOf('[data-testid="apl-chart"] .u-legend'), { timeout: T }).toBeLessThanOrEqual(await frameHeight());
            const plotHeight = () => frame().locator('[data-testid="apl-chart"] .u-over').first().evaluate(e => e.getBoundingClientRect().height);
            const plot = await plotHeight();
            await dragPanel(-200);
            await expect.poll(plotHeight, { timeout: T }).toBeGreaterThan(plot + 150);
            await dragPanel(200);
            await expect.poll(plotHeight, { timeout: T }).toBeLessThan(plot + 20);
            await tab('Results').click();
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 grouped by level on the service: the summarize it runs is shown, with the counts of the whole result", () =>
        step('group on service', async () => {
            await runPaged();
            await choose('Filter column', 'level');
            await frame().getByRole('button', { name: 'Group on the service' }).click();
            const box = frame().locator('[data-testid="apl-column-stats"]');
            const counts = frame().getByRole('table', { name: 'Rows by level, on the service' });
            await counts.waitFor({ timeout: T });
            expect(await box.innerText()).toContain("['events']\n| where seq >= 0\n| summarize count() by level");
            expect((await counts.innerText()).replace(/\s+/g, ' ')).toContain('info 25,714 error 4,286');
            await box.getByRole('button', { name: 'Close' }).click();
            await closeTools();
        }),
    3 * 60_000);

    it("['events'] | where seq >= 0 by keyboard: Alt+Shift+Left/Right move the focused column, said aloud and remembered for the query", () =>
        step('keyboard reorder', async () => {
            await runPaged();
            const order = () =>
                frame()
                    .locator('.ag-header-row-column .ag-header-cell[col-id]')
                    .evaluateAll(es => es.map(e => [Number(e.getAttribute('aria-colindex')), e.getAttribute('col-id')] as const).sort((a, b) => a[0] - b[0]).map(([, id]) => id));
            const start = await order();
            const at = start.indexOf('level');
            expect(at).toBeGreaterThan(1);
            await headerCell('level').focus();
            await page.keyboard.press('Alt+Shift+ArrowLeft');
            await expect.poll(async () => (await order()).indexOf('level'), { timeout: T }).toBe(at - 1);
            const announce = frame().locator('[data-testid="apl-announce"]');
            await expect.poll(() => announce.textContent(), { timeout: T }).toBe(`level moved to column ${at - 1} of ${start.length - 1}`);
            // The focus stays on the moved header: again.
            await page.keyboard.press('Alt+Shift+ArrowLeft');
            await expect.poll(async () => (await order()).indexOf('level'), { timeout: T }).toBe(at - 2);
            await page.keyboard.press('Alt+Shift+ArrowRight');
            await expect.poll(async () => (await order()).indexOf('level'), { timeout: T }).toBe(at - 1);
            // Space adds the focused row to the selection (a click selected the first): the selection statistics and filters act on both.
            // Each key waits for the state the last step made (the grid's focus, its selection), not for time.
            const selectionStats = () => frame().locator('[data-testid="apl-selection-stats"]').textContent();
            await cell(0, 'seq').click();
            await expect.poll(selectedRows, { timeout: T }).toEqual([0]);
            await expect.poll(keyboardCell, { timeout: T }).toBe('0:seq');
            await expect.poll(selectionStats, { timeout: T }).toMatch(/^Selection in seq: count 1 /);
            await page.keyboard.press('ArrowDown');
            await expect.poll(keyboardCell, { timeout: T }).toBe('1:seq');
            await page.keyboard.press('Space');
            await expect.poll(selectedRows, { timeout: T }).toEqual([0, 1]);
            await expect.poll(selectionStats, { timeout: T }).toMatch(/^Selection in seq: count 2 /);
            // Tab leaves the grid for the row details (the arrows move between cells).
            await page.keyboard.press('Tab');
            const details = frame().getByRole('complementary', { name: 'Row details' });
            await expect.poll(() => details.evaluate(e => e.contains((e.ownerDocument as unknown as { activeElement: unknown }).activeElement as never)), { timeout: T }).toBe(true);
            await details.getByRole('button', { name: 'Close' }).click();
            // Remembered for the query: another run of it shows the same order.
            await runAndWait(LINE.levels);
            await runPaged();
            await expect.poll(async () => (await order()).indexOf('level'), { timeout: T }).toBe(at - 1);
        }),
    3 * 60_000);

    it("print geo = parse_json('{\"city\":\"Paris\",\"loc\":{\"lat\":48.8}}'): the cell expands in place (Enter), its values copied with their paths, and Filter keeps the rows with ['geo']['city'] == 'Paris'", () =>
        step('json in place', async () => {
            await runAndWait(LINE.json);
            if ((await tab('Results').getAttribute('aria-selected')) !== 'true') await tab('Results').click();
            await cell(0, 'geo').click();
            await frame().getByRole('button', { name: 'Close' }).first().click();
            await cell(0, 'geo').focus();
            await page.keyboard.press('Enter');
            const tree = frame().getByRole('dialog', { name: 'geo, row 1' });
            await tree.waitFor({ timeout: T });
            // By the cell: under it, or over it when the panel has more room there.
            const cellBox = (await cell(0, 'geo').boundingBox())!;
            const treeBox = (await tree.boundingBox())!;
            expect(treeBox.y >= cellBox.y + cellBox.height - 1 || treeBox.y + treeBox.height <= cellBox.y + 1, JSON.stringify([cellBox, treeBox])).toBe(true);
            expect(Math.abs(treeBox.x - cellBox.x)).toBeLessThan(2);
            expect(await tree.locator('.json-path').allTextContents()).toEqual(["['geo']['city']", "['geo']['loc']", "['geo']['loc']['lat']"]);
            expect(await tree.getByRole('button', { name: "Copy path ['geo']['city']", exact: true }).count()).toBe(1);
            expect(await tree.getByRole('button', { name: "Copy value at ['geo']['city']", exact: true }).count()).toBe(1);
            // The focus is in the panel (its first button).
            await expect.poll(() => tree.evaluate(e => e.contains((e.ownerDocument as unknown as { activeElement: unknown }).activeElement as never)), { timeout: T }).toBe(true);
            // Escape closes it and gives the focus back to the cell (Enter waits for it there).
            await page.keyboard.press('Escape');
            await expect.poll(() => tree.count(), { timeout: T }).toBe(0);
            await expect.poll(keyboardCell, { timeout: T }).toBe('0:geo');
            await page.keyboard.press('Enter');
            await tree.waitFor({ timeout: T });
            const before = await statusKey();
            await tree.getByRole('button', { name: "Filter by ['geo']['city']", exact: true }).click();
            await expect.poll(async () => (await statusKey()) !== before && (await status().getAttribute('data-state')), { timeout: T }).toBe('done');
            await expect.poll(() => readFileSync(join(workspace, 'queries.apl'), 'utf8').includes("| where tostring(['geo']['city']) == 'Paris'") || page.locator('.editor-instance .view-lines').first().innerText().then(t => t.replace(/\u00a0/g, ' ').includes("where tostring(['geo']['city']) == 'Paris'")), { timeout: T }).toBe(true);
            await expect.poll(rowCount, { timeout: T }).toBe('2');
        }),
    3 * 60_000);
});
