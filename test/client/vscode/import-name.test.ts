/** The name an imported .ipynb gets: <name>.aplnb beside it, never one that exists or is open. */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedNotebookPath } from '../../../client/vscode/src/notebook/import-name.js';

describe('importedNotebookPath', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apl-import-name-'));

    it('kqlmagic.ipynb becomes kqlmagic.aplnb beside it', () => {
        expect(importedNotebookPath(join(dir, 'kqlmagic.ipynb'), existsSync)).toBe(join(dir, 'kqlmagic.aplnb'));
    });

    it('an existing report.aplnb, or one already open, is not proposed again', () => {
        writeFileSync(join(dir, 'report.aplnb'), '{}');
        const open = new Set([join(dir, 'report-2.aplnb')]);
        expect(importedNotebookPath(join(dir, 'report.ipynb'), p => existsSync(p) || open.has(p))).toBe(join(dir, 'report-3.aplnb'));
    });

    it('a file named .ipynb still gets a name', () => {
        expect(importedNotebookPath(join(dir, '.ipynb'), existsSync)).toBe(join(dir, '.ipynb.aplnb'));
    });
});
