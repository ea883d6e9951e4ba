/**
 * APL notebooks in a real VS Code: the packaged .vsix in code-server, driven through playwright-core,
 * against a real `apl serve` holding 5,000 events (5 pages of 1,000). One code-server for the file.
 * A notebook made with APL: New Notebook from the command palette, its cells typed in and added
 * through the UI, runs: the grid of 5,000 rows, the chart of a time-binned cell, Export of every row,
 * and the Markdown / Jupyter exports and the Jupyter import, each through the command palette and
 * VS Code's own file dialog (files on disk checked). Then an .aplnb with an APL cell runs; its output
 * (the notebook renderer) shows the grid with aria-rowcount and pages from the service; a failing
 * cell gets a squiggle; the notebook saved and reopened with the service stopped shows its stored
 * output.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, ROOT, SCREENSHOTS, SKIP, skippedBanner, uiSteps, type CodeServer, type TestService, startUiSession, type UiSession } from './harness.js';
import { fileDialog as fileDialogAction, paletteCommand } from './ui-actions.js';

const EVENTS = 5_000;
const SETUP_TIMEOUT = 25 * 60_000;
const T = 60_000;

const NOTEBOOK = {
    format: 1,
    timeRange: { start: 'now-2d' },
    cells: [
        { kind: 'markdown', text: '# Events report\nEvery event of the last two days, newest first.' },
        { kind: 'apl', text: "let lo = 0;\n['events'] | where seq >= lo" },
        { kind: 'apl', text: "['events']\n| where nope(seq) > lo" },
    ],
};

if (SKIP) console.warn(skippedBanner('the notebook tests (test/vscode/notebook.test.ts)'));

describe.skipIf(SKIP)('APL notebooks in a real VS Code, over 5,000 events', () => {
    let service: TestService | undefined;
    let server: CodeServer;
    let page: Page;
    let workspace: string;

    let session: UiSession<never> | undefined;

    beforeAll(async () => {
        const files = { 'report.aplnb': JSON.stringify(NOTEBOOK, null, 2), 'kqlmagic.ipynb': readFileSync(join(ROOT, 'test', 'fixtures', 'notebooks', 'kqlmagic.ipynb'), 'utf8') };
        session = await startUiSession({ name: 'vscode-notebook', events: EVENTS, files, bundles: ['client/vscode/dist/notebook-renderer.js'] });
        ({ service, server, page, workspace } = session);
        await step('open the workbench', () => openWorkbench(page, server, 'report.aplnb'));
    }, SETUP_TIMEOUT);

    afterAll(() => session?.stop());

    const step = uiSteps(() => page, 'notebook-');

    async function openNotebook(): Promise<void> {
        await page.keyboard.press('Control+P');
        await page.locator('.quick-input-widget .quick-input-box input').fill('report.aplnb');
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'report.aplnb' }).first().waitFor();
        await page.keyboard.press('Enter');
        await codeCell(0).locator('.view-lines', { hasText: 'where seq' }).waitFor({ timeout: T });
    }

    /** The notebook editor on screen (a closed notebook's editor may stay in the page, hidden). */
    const notebook = () => page.locator('.notebook-editor:visible');
    const codeCell = (n: number) => notebook().locator('.code-cell-row').nth(n);
    /** The notebook's output frame (a webview: the host iframe, then `#active-frame`). */
    const outputs = () => page.frameLocator('.notebook-editor:visible iframe.webview.ready').first().frameLocator('#active-frame');
    const grid = () => outputs().locator('[role="grid"]').first();
    const status = () => outputs().locator('.apl-nb [role="status"]').first();
    const firstCell = (col: number) => grid().locator(`tbody tr:first-child td:nth-child(${col})`);

    /** Runs the cell with its own Run button (left of its editor). */
    async function runCell(n: number): Promise<void> {
        await codeCell(n).locator('.view-lines').click();
        const run = codeCell(n).locator('.run-button-container .action-label').first();
        await run.hover();
        await run.click();
    }

    /** APL_VSCODE_SCREENSHOTS=docs/images saves the README's picture; every run keeps a look in out/. */
    async function picture(name: string): Promise<void> {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, `notebook-look-${name}.png`) });
        const dir = process.env.APL_VSCODE_SCREENSHOTS;
        if (dir) await page.screenshot({ path: join(ROOT, dir, `vscode-${name}.png`) });
    }

    /** A cell editor's text as typed (Monaco draws spaces as non-breaking ones). */
    const cellText = async (n: number) => ((await codeCell(n).locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');

    const palette = (command: string, timeout = T) => paletteCommand(page, command, timeout);
    const fileDialog = (file: string) => fileDialogAction(page, file, { timeout: T });

    /** Types a query into the focused cell's editor (Escape closes what completion opened). */
    async function typeQuery(text: string): Promise<void> {
        await page.keyboard.type(text);
        await page.keyboard.press('Escape');
    }

    const PAGED = "['events'] | where seq >= 0";
    const BINNED = "['events'] | summarize n = count() by bin(_time, 1h), level";

    it(`APL: New Notebook from the command palette, ${PAGED} typed in its APL cell and ${BINNED} in a cell added below: Run All shows 5,000 rows and the chart`, () =>
        step('new notebook', async () => {
            // The first command waits for the extension host (slow to start on a loaded machine).
            await palette('APL: New Notebook', 4 * T);
            // Its APL cell (the Markdown cell is drawn in the output frame; the export below checks its text).
            await codeCell(0).waitFor({ timeout: T });
            await codeCell(0).locator('.view-lines').click();
            await typeQuery(PAGED);
            await palette('Notebook: Insert Code Cell Below');
            await expect.poll(() => notebook().locator('.code-cell-row').count(), { timeout: T }).toBe(2);
            await typeQuery(BINNED);
            await expect.poll(() => cellText(1), { timeout: T }).toBe(BINNED);
            expect(await cellText(0)).toBe(PAGED);
            // The added cell is an APL cell (the notebook's only language).
            expect(await codeCell(1).textContent()).toContain('APL');
            await palette('Notebook: Run All');
            await expect.poll(() => outputs().locator('[role="grid"][aria-rowcount="5001"]').count(), { timeout: T }).toBe(1);
            const chart = outputs().locator('[data-testid="apl-chart"]');
            await expect.poll(() => chart.count(), { timeout: T }).toBe(1);
            // One line per level, one point per hour of the 21 hours the events span.
            expect(await chart.getAttribute('data-series')).toBe('2');
            expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThanOrEqual(21);
            expect(await chart.locator('svg path').count()).toBeGreaterThan(2);
            // The chart in view for the picture, as a user scrolls down to it.
            // (over the time-binned cell's editor: over the first output, the wheel would scroll its grid)
            const editor = (await codeCell(1).locator('.view-lines').boundingBox())!;
            await page.mouse.move(editor.x + editor.width / 2, editor.y + editor.height / 2);
            await page.mouse.wheel(0, 480);
            await page.waitForTimeout(500);
            await page.mouse.move(700, 60);
            await picture('notebook-chart');
        }), 8 * T);

    it(`${PAGED}: Export… in the output writes 5,000 rows (the file on disk)`, () =>
        step('export rows', async () => {
            // Back to the first cell's output, as a user scrolls up to it.
            await notebook().locator('.cell-focus-indicator-top').first().hover().catch(() => undefined);
            await page.mouse.move(900, 300);
            await page.mouse.wheel(0, -20_000);
            await outputs().getByRole('button', { name: 'Export…' }).first().waitFor({ timeout: T });
            const csv = join(workspace, 'all-events.csv');
            await outputs().getByRole('button', { name: 'Export…' }).first().click();
            await fileDialog(csv);
            await expect.poll(() => outputs().getByText('Exported 5,000 rows').count(), { timeout: T }).toBe(1);
            const lines = readFileSync(csv, 'utf8').trimEnd().split(/\r?\n/);
            expect(lines[0]).toContain('seq');
            expect(lines).toHaveLength(EVENTS + 1);
            const seq = lines[0].split(',').indexOf('seq');
            expect(new Set(lines.slice(1).map(l => l.split(',')[seq])).size).toBe(EVENTS);
        }), 3 * T);

    it('APL: Export Notebook to Markdown… and to Jupyter (.ipynb)… from the palette write the files, the chart an SVG beside the Markdown and image/svg+xml in the .ipynb', () =>
        step('export notebook', async () => {
            const md = join(workspace, 'made.md');
            await palette('APL: Export Notebook to Markdown');
            await fileDialog(md);
            const text = readFileSync(md, 'utf8');
            expect(text).toContain('# APL notebook');
            expect(text).toContain(`\`\`\`apl\n${PAGED}\n\`\`\``);
            expect(text).toContain('_20 of 5,000 rows._');
            expect(text).toContain('![Chart of cell 3](made-cell-3.svg)');
            await expect.poll(() => existsSync(join(workspace, 'made-cell-3.svg')), { timeout: T }).toBe(true);
            expect(readFileSync(join(workspace, 'made-cell-3.svg'), 'utf8')).toMatch(/^<svg [\s\S]*info[\s\S]*error[\s\S]*<\/svg>$/);
            const ipynb = join(workspace, 'made.ipynb');
            await palette('APL: Export Notebook to Jupyter');
            await fileDialog(ipynb);
            const nb = JSON.parse(readFileSync(ipynb, 'utf8')) as { cells: { cell_type: string; metadata: { vscode?: { languageId?: string } }; outputs?: { data?: Record<string, unknown> }[] }[] };
            expect(nb.cells.map(c => c.cell_type)).toEqual(['markdown', 'code', 'code']);
            expect(nb.cells[1].metadata.vscode?.languageId).toBe('apl');
            expect(nb.cells[1].outputs?.some(o => o.data?.['text/html'] !== undefined)).toBe(true);
            expect(nb.cells[2].outputs?.some(o => o.data?.['image/svg+xml'] !== undefined)).toBe(true);
        }), 3 * T);

    it('APL: Import Jupyter Notebook (.ipynb)… from the palette opens a Kqlmagic notebook as an APL notebook, its %%kql cells as APL cells', () =>
        step('import ipynb', async () => {
            await palette('APL: Import Jupyter Notebook');
            await fileDialog(join(workspace, 'kqlmagic.ipynb'));
            await notebook().locator('.code-cell-row', { hasText: 'summarize count() by status' }).first().waitFor({ timeout: T });
            expect(await notebook().locator('.code-cell-row').count()).toBe(2);
            expect(await cellText(1)).toBe("['sample-http-logs'] | count");
            // Named after the .ipynb (untitled until saved), not Untitled-N.aplnb.
            expect(await page.locator('.tabs-container .tab.active').textContent()).toContain('kqlmagic.aplnb');
            // The imported notebook and the one made above go, unsaved.
            for (let i = 0; i < 2; i++) await palette('View: Revert and Close Editor');
            await expect.poll(() => page.locator('.tabs-container .tab').count(), { timeout: T }).toBe(0);
        }), 3 * T);

    let seqColumn = 0;
    let savedText = '';

    it("let lo = 0; ['events'] | where seq >= lo: the output grid has aria-rowcount 5,001 and a status line", () =>
        step('run the paged cell', async () => {
            await openNotebook();
            await runCell(0);
            await expect.poll(() => grid().getAttribute('aria-rowcount'), { timeout: T }).toBe(String(EVENTS + 1));
            await expect.poll(() => status().textContent(), { timeout: T }).toMatch(/5,000 rows · page 1 of 5 · 1 request/);
            const headers = await grid().locator('th').allTextContents();
            seqColumn = headers.indexOf('seq') + 1;
            expect(seqColumn).toBeGreaterThan(0);
            // Newest first.
            expect(await firstCell(seqColumn).textContent()).toBe(String(EVENTS - 1));
        }), 3 * T);

    it("let lo = 0; ['events'] | where seq >= lo: Next page fetches the second page from the service", () =>
        step('next page', async () => {
            await outputs().getByRole('button', { name: 'Next page' }).click();
            await expect.poll(() => status().textContent(), { timeout: T }).toMatch(/page 2 of 5 · 2 requests/);
            expect(await firstCell(seqColumn).textContent()).toBe(String(EVENTS - 1 - 1000));
            expect(await grid().locator('tbody tr:first-child').getAttribute('aria-rowindex')).toBe('1002');
            await outputs().getByRole('button', { name: 'Previous page' }).click();
            await expect.poll(() => status().textContent(), { timeout: T }).toMatch(/page 1 of 5/);
        }), 3 * T);

    it("['events'] | where nope(seq) > lo: the service's error is on the cell's line 2, with one squiggle there (the language server's)", () =>
        step('error cell', async () => {
            await runCell(1);
            await expect.poll(() => outputs().locator('.apl-nb [role="alert"]').first().textContent(), { timeout: T }).toMatch(/^line 2, column \d+: /);
            await codeCell(1).locator('.squiggly-error').first().waitFor({ timeout: T });
            // One problem, one diagnostic: the language server's (the service's error is in the output).
            // (Both would be in by now: the language server's since the cell was typed, the run's with its output.)
            await page.waitForTimeout(1000);
            expect(await page.locator('[id="status.problems"]').first().getAttribute('aria-label')).toMatch(/^Errors: 1\b/);
            await page.mouse.move(700, 140);
            await picture('notebook');
        }), 3 * T);

    it('the notebook saved and reopened with the service stopped shows the stored output, and how old it is', () =>
        step('reopen', async () => {
            // Both runs ended (the failed one shows its error mark) before the save.
            await codeCell(1).locator('[class*="state-error"]').first().waitFor({ timeout: T });
            // Saved until the file holds both outputs: an output that reaches the workbench after a save
            // makes the notebook dirty again, and the next Ctrl+S writes it.
            const savedFile = () => JSON.parse(readFileSync(join(workspace, 'report.aplnb'), 'utf8')) as { cells: { output?: { tables?: { totalRows?: number }[]; error?: unknown } }[] };
            await expect
                .poll(
                    async () => {
                        await codeCell(0).locator('.view-lines').click();
                        await page.keyboard.press('Control+S');
                        await page.waitForTimeout(500);
                        const cells = savedFile().cells;
                        return cells[1].output?.tables?.[0]?.totalRows === EVENTS && cells[2].output?.error !== undefined;
                    },
                    { timeout: T },
                )
                .toBe(true);
            savedText = readFileSync(join(workspace, 'report.aplnb'), 'utf8');
            expect(savedText).not.toContain(service!.token);
            // No service to ask: what shows is the file's.
            await service!.stop();
            service = undefined;
            await page.reload();
            await page.locator('.monaco-workbench').waitFor({ timeout: T });
            await codeCell(0).locator('.view-lines', { hasText: 'where seq' }).waitFor({ timeout: T }).catch(openNotebook);
            await expect.poll(() => grid().getAttribute('aria-rowcount'), { timeout: T }).toBe(String(EVENTS + 1));
            const stored = outputs().locator('.apl-nb [role="status"]', { hasText: 'Stored output' }).first();
            await expect.poll(() => stored.textContent(), { timeout: T }).toMatch(/^Stored output: ran (just now|\d+ minutes? ago) .*5,000 rows \(the first 500 kept\)/);
        }), 5 * T);

    it("['events'] | where nope(seq) > lo: the saved file keeps the failed cell's error at its line", () => {
        const stored = JSON.parse(savedText) as { cells: { output?: { error?: { line?: number } } }[] };
        expect(stored.cells[2].output?.error?.line, savedText.slice(savedText.lastIndexOf('"kind"'))).toBe(2);
    });
});
