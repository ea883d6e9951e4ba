/**
 * APL notebooks in a real VS Code: the packaged .vsix in code-server, driven through playwright-core,
 * against a real `apl serve` holding 5,000 events (5 pages of 1,000). One code-server for the file.
 * An .aplnb with an APL cell runs; its output (the notebook renderer) shows the grid with
 * aria-rowcount and pages from the service; a failing cell gets a squiggle; the notebook saved and
 * reopened with the service stopped shows its stored output.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench, ROOT, SCREENSHOTS, SKIP, skippedBanner, uiSteps, type CodeServer, type TestService, startUiSession, type UiSession } from './harness.js';

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
        session = await startUiSession({ name: 'vscode-notebook', events: EVENTS, files: { 'report.aplnb': JSON.stringify(NOTEBOOK, null, 2) }, bundles: ['client/vscode/dist/notebook-renderer.js'] });
        ({ service, server, page, workspace } = session);
        await step('open report.aplnb', async () => {
            await openWorkbench(page, server, 'report.aplnb');
            await openNotebook();
        });
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

    const codeCell = (n: number) => page.locator('.notebook-editor .code-cell-row').nth(n);
    /** The notebook's output frame (a webview: the host iframe, then `#active-frame`). */
    const outputs = () => page.frameLocator('.notebook-editor iframe.webview.ready').first().frameLocator('#active-frame');
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

    let seqColumn = 0;
    let savedText = '';

    it("let lo = 0; ['events'] | where seq >= lo: the output grid has aria-rowcount 5,001 and a status line", () =>
        step('run the paged cell', async () => {
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

    it("['events'] | where nope(seq) > lo: the service's error is on the cell's line 2, with a squiggle there", () =>
        step('error cell', async () => {
            await runCell(1);
            await expect.poll(() => outputs().locator('.apl-nb [role="alert"]').first().textContent(), { timeout: T }).toMatch(/^line 2, column \d+: /);
            await codeCell(1).locator('.squiggly-error').first().waitFor({ timeout: T });
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
            await expect.poll(() => stored.textContent(), { timeout: T }).toMatch(/^Stored output: ran just now .*5,000 rows \(the first 500 kept\)/);
        }), 5 * T);

    it("['events'] | where nope(seq) > lo: the saved file keeps the failed cell's error at its line", () => {
        const stored = JSON.parse(savedText) as { cells: { output?: { error?: { line?: number } } }[] };
        expect(stored.cells[2].output?.error?.line, savedText.slice(savedText.lastIndexOf('"kind"'))).toBe(2);
    });
});
