/**
 * Actions on VS Code's own UI that the UI suites share: a command from the command palette, a path
 * typed into code-server's simple file dialog.
 */
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const QUICK_INPUT_BOX = '.quick-input-widget .quick-input-box input';

/**
 * Runs `title` from the command palette, opened afresh until the command is listed: an open palette
 * does not list commands registered after it opened (the extension's, once the extension host read it).
 */
export async function paletteCommand(page: Page, title: string, timeout = 60_000): Promise<void> {
    const input = page.locator(QUICK_INPUT_BOX);
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    await expect
        .poll(
            async () => {
                if (await input.isVisible()) await page.keyboard.press('Escape');
                await page.keyboard.press('Control+Shift+P');
                await input.fill(`>${title}`);
                return row.waitFor({ timeout: 3000 }).then(
                    () => true,
                    () => false,
                );
            },
            { timeout },
        )
        .toBe(true);
    await page.keyboard.press('Enter');
}

export interface FileDialogOptions {
    /** What the dialog's own proposal looks like once it is all there (default: a path). */
    proposal?: RegExp;
    timeout?: number;
}

/** Types `file` into VS Code's own file dialog (code-server's simple dialog: a path in an input), accepts it, and waits until the file exists. */
export async function fileDialog(page: Page, file: string, options: FileDialogOptions = {}): Promise<void> {
    const timeout = options.timeout ?? 60_000;
    const input = page.locator(QUICK_INPUT_BOX);
    await input.waitFor({ timeout });
    // The dialog fills in its proposal after it opens (the folder first, a file name after it): replace it
    // once it is there, and keep it replaced.
    await expect.poll(() => input.inputValue(), { timeout }).toMatch(options.proposal ?? /\//);
    await expect
        .poll(
            async () => {
                if ((await input.inputValue()) !== file) await input.fill(file);
                await page.waitForTimeout(300);
                return input.inputValue();
            },
            { timeout },
        )
        .toBe(file);
    await page.keyboard.press('Enter');
    await expect.poll(() => existsSync(file), { timeout }).toBe(true);
}
