/**
 * Issue 25's editor items as a user meets them, in a real VS Code (code-server + Chromium, one
 * code-server for this file) with the packaged .vsix, against a real `apl serve` holding 5,000
 * events: the Schema view, the time-range picker's All time, Add Connection's checks, Filter by
 * this value, Open in editor, Export's proposed file name, and the history.
 * Screenshots of each step go to out/vscode-test/screenshots/editor-ui-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
    openFile,
    openWorkbench,
    resultsFrame,
    SCREENSHOTS,
    SKIP,
    skippedBanner,
    type CodeServer,
    type TestService,
    runLineInEditor,
    uiSteps,
    startUiSession,
    type UiSession,
} from './harness.js';
import { paletteCommand } from './ui-actions.js';

const EVENTS = 5000;
const QUERIES = "// every event, newest first\n['events']\n| where seq >= 0\n\n['events'] | summarize count() by bin(_time, 1h)\n";

if (SKIP) console.warn(skippedBanner('the editor UI tests (test/vscode/editor-ui.test.ts)'));

describe.skipIf(SKIP)('the editor as a user meets it (issue 25)', () => {
    let service: TestService;
    let server: CodeServer;
    let page: Page;
    let session: UiSession<never> | undefined;

    beforeAll(async () => {
        // No AXIOM_* here: the user adds the connection through the prompts.
        session = await startUiSession({ name: 'editor-ui', events: EVENTS, files: { 'queries.apl': QUERIES }, connection: 'none' });
        ({ service, server, page } = session);
        await openWorkbench(page, server, 'queries.apl');
        await openFile(page, 'queries.apl', 'every event');
    }, 10 * 60_000);

    afterAll(() => session?.stop());

    const step = uiSteps(() => page, 'editor-ui-', { always: true });

    /** A screenshot in the middle of a step, to look at. */
    async function shot(name: string): Promise<void> {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOTS, `editor-ui-${name}.png`) });
    }

    const quickInput = () => page.locator('.quick-input-widget');
    const quickInputBox = () => page.locator('.quick-input-widget .quick-input-box input');
    const frame = () => resultsFrame(page);
    const status = () => frame().locator('[data-testid="apl-status"]');
    const editorText = () => page.locator('.editor-instance .monaco-editor .view-lines').first().innerText().then(t => t.replace(/\u00a0/g, ' '));

    const command = (title: string) => paletteCommand(page, title);

    const runLine = (line: number) => runLineInEditor(page, line);

    /** The validation message under a quick-input box (empty when the answer is fine). */
    const inputMessage = () => page.locator('.quick-input-widget .quick-input-message');

    it('Add Connection checks the URL as it is typed, takes 127.0.0.1:PORT, and keeps the token when it is refused', () =>
        step('add connection', async () => {
            // Each step is waited for (by its placeholder) before it is typed into: under load, text typed
            // before the next step shows goes into the one before.
            const atStep = (placeholder: string) => expect.poll(() => quickInputBox().getAttribute('placeholder'), { timeout: 30_000 }).toBe(placeholder);
            await command('APL: Add Connection');
            await atStep('production');
            await quickInputBox().fill('ui service');
            await page.keyboard.press('Enter');
            // Step 2: the URL. A wrong scheme is named while typing.
            await atStep('https://api.axiom.co');
            await quickInputBox().fill('ftp://127.0.0.1:8686');
            await expect.poll(() => inputMessage().textContent(), { timeout: 10_000 }).toMatch(/http:\/\/ or https:\/\//);
            await shot('add-connection-bad-scheme');
            await quickInputBox().fill('127.0.0.1 8686');
            await expect.poll(() => inputMessage().textContent(), { timeout: 10_000 }).toMatch(/not a valid URL/);
            const port = new URL(service.url).port;
            await quickInputBox().fill(`127.0.0.1:${port}`);
            await expect.poll(() => inputMessage().textContent(), { timeout: 10_000 }).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}`));
            await shot('add-connection-bare-host');
            await page.keyboard.press('Enter');
            // Step 3: the token. A wrong one is refused by the service and the same step comes back with it.
            await atStep('xaat-…');
            await quickInputBox().fill('xaat-wrong-token');
            await page.keyboard.press('Enter');
            await atStep('my-org-1a2b');
            await quickInputBox().fill('');
            await page.keyboard.press('Enter'); // no org id
            await expect.poll(() => inputMessage().textContent(), { timeout: 30_000 }).toMatch(/refused the token/);
            expect(await quickInputBox().inputValue()).toBe('xaat-wrong-token');
            await shot('add-connection-refused-token');
            expect(await quickInputBox().getAttribute('type')).toBe('password');
            await quickInputBox().fill(service.token);
            await page.keyboard.press('Enter');
            await atStep('my-org-1a2b');
            await page.keyboard.press('Enter'); // the org id step again, still empty
            await page.locator('.statusbar-item', { hasText: 'APL: ui service' }).waitFor({ timeout: 30_000 });
            await expect.poll(() => quickInput().isVisible()).toBe(false);
        }),
    120_000);

    it('the Schema view: a click expands a dataset and leaves the file alone; Insert puts the quoted name', () =>
        step('schema view', async () => {
            await openFile(page, 'queries.apl', 'every event');
            const before = await editorText();
            await command('APL: Focus on Schema View');
            const sidebar = page.locator('.part.sidebar');
            const dataset = sidebar.locator('.monaco-list-row', { hasText: 'events' }).first();
            await dataset.waitFor({ timeout: 30_000 });
            await dataset.click();
            await expect.poll(() => dataset.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('true');
            const field = sidebar.locator('.monaco-list-row', { hasText: 'geo.city' }).first();
            await field.waitFor({ timeout: 10_000 });
            await field.click();
            expect(await editorText()).toBe(before);
            // Back in the editor at the end of line 3, Insert the field from the tree.
            await page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'seq >= 0' }).first().click();
            await page.keyboard.press('End');
            await page.keyboard.type(' and ');
            await field.hover();
            await field.locator('.action-label[aria-label="Insert"]').click();
            await expect.poll(() => editorText(), { timeout: 10_000 }).toContain("| where seq >= 0 and ['geo.city']");
            // Undo both edits: the next tests run the file as written.
            await page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'seq >= 0' }).first().click();
            for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Z');
            await page.keyboard.press('Control+S');
            await expect.poll(() => editorText()).toBe(before);
        }),
    120_000);

    it('a range without events says where the events are; Search all time finds them, and All time is remembered for the workspace', () =>
        step('all time', async () => {
            await runLine(3);
            await expect.poll(() => status().getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
            // The picker is a vscode-single-select (@vscode-elements/elements): its value is a property.
            const range = frame().locator('[data-testid="apl-time-range"]');
            const rangeValue = () => range.evaluate(e => (e as unknown as { value: string }).value);
            expect(await range.locator('vscode-option').allTextContents()).toContain('All time');
            // A day long before the events: nothing, and the view says where the events are.
            await range.evaluate(e => {
                (e as unknown as { value: string }).value = 'custom';
                e.dispatchEvent(new Event('change'));
            });
            await frame().locator('vscode-textfield[aria-label^="Start time"] input').fill('2020-01-01T00:00:00Z');
            await frame().locator('vscode-textfield[aria-label^="End time"] input').fill('2020-01-02T00:00:00Z');
            await frame().getByRole('button', { name: 'Apply' }).click();
            const hint = frame().locator('.notes p', { hasText: 'No events between 2020-01-01 00:00 and 2020-01-02 00:00 UTC' });
            await hint.waitFor({ timeout: 60_000 });
            expect(await hint.textContent()).toMatch(/'events' has events from \d{4}-\d\d-\d\d \d\d:\d\d to/);
            await shot('empty-range-hint');
            await hint.getByRole('button', { name: 'Search all time' }).click();
            await expect.poll(() => status().textContent(), { timeout: 60_000 }).toContain('5,000 rows');
            expect(await rangeValue()).toBe('all');
            // A new window on the same workspace starts with the same choice.
            await page.reload();
            await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
            await openFile(page, 'queries.apl', 'every event');
            await runLine(3);
            await expect.poll(() => status().getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
            await expect.poll(rangeValue, { timeout: 30_000 }).toBe('all');
            await expect.poll(() => status().textContent(), { timeout: 30_000 }).toContain('5,000 rows');
        }),
    180_000);

    it("Filter by this value writes | where level == '…' into the query on screen and runs it", () =>
        step('filter by value', async () => {
            await frame().locator('.ag-row[row-index="0"] [col-id="seq"]').click();
            const details = frame().getByRole('complementary', { name: 'Row details' });
            await details.waitFor();
            const level = (await details.locator('dt', { hasText: /^level$/ }).locator('xpath=following-sibling::dd[1]').locator('code').textContent())!;
            await details.locator('dt', { hasText: /^level$/ }).locator('xpath=following-sibling::dd[1]').getByRole('button', { name: 'Filter' }).click();
            await expect.poll(() => editorText(), { timeout: 30_000 }).toContain(`| where level == '${level}'`);
            await shot('filter-by-value');
            await expect.poll(() => status().getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
            const rows = level === 'error' ? Math.ceil(EVENTS / 7) : EVENTS - Math.ceil(EVENTS / 7);
            await expect.poll(() => status().textContent(), { timeout: 30_000 }).toContain(`${rows.toLocaleString('en-US')} rows`);
        }),
    120_000);

    it('Open in editor opens the rows as text in an untitled editor', () =>
        step('open in editor', async () => {
            await frame().getByRole('button', { name: 'Open in editor' }).click();
            await page.locator('.tab', { hasText: 'Untitled' }).first().waitFor({ timeout: 30_000 });
            await expect.poll(() => editorText(), { timeout: 30_000 }).toMatch(/^\[\s*\{\s*"_time"/);
            await shot('open-in-editor-json');
            expect(await page.locator('.tab', { hasText: 'APL Results' }).count()).toBe(0);
            await command('View: Revert and Close Editor');
        }),
    120_000);

    it('Export proposes the dataset and the time as the file name', () =>
        step('export name', async () => {
            await frame().getByRole('button', { name: 'Export', exact: true }).click();
            await quickInput().waitFor({ timeout: 30_000 });
            await expect.poll(() => quickInputBox().inputValue(), { timeout: 10_000 }).toMatch(/\/events-\d{4}-\d\d-\d\dT\d{4}\.csv$/);
            await shot('export-dialog');
            await page.keyboard.press('Escape');
        }),
    120_000);

    it('the history shows readable times and labels without comments, and opens an entry in the editor', () =>
        step('history', async () => {
            await command('APL: Show Query History');
            await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Query History' }).waitFor({ timeout: 30_000 });
            const rows = page.locator('.quick-input-widget .monaco-list-row');
            await rows.first().waitFor({ timeout: 30_000 });
            const texts = await rows.allInnerTexts();
            expect(texts.join('\n')).not.toContain('// every event');
            expect(texts.join('\n')).toMatch(/\b(just now|\d+ min ago)\b/);
            expect(texts.join('\n')).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
            await shot('history-list');
            const first = rows.first();
            await first.hover();
            await first.locator('.action-label[aria-label="Open in editor"]').click();
            await expect.poll(() => editorText(), { timeout: 30_000 }).toContain("['events']");
            await page.locator('.tab.active', { hasText: 'Untitled' }).waitFor({ timeout: 10_000 });
        }),
    120_000);
});
