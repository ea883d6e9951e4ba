/** Jupyter import (Kqlmagic- and Polyglot-style notebooks, fixtures written from their public formats) and export. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APLNB_FORMAT, type AplNotebook } from '../../../client/notebook/aplnb.js';
import { notebookFromIpynb, notebookToIpynb } from '../../../client/notebook/ipynb.js';
import { notebookToMarkdown } from '../../../client/notebook/markdown.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/notebooks/${name}`, import.meta.url), 'utf8');

describe('ipynb import', () => {
    it('Kqlmagic: %%kql and %kql query cells become APL cells; %reload_ext and a connection-only %kql do not', () => {
        const nb = notebookFromIpynb(fixture('kqlmagic.ipynb'));
        expect(nb.cells.map(c => c.kind)).toEqual(['markdown', 'markdown', 'markdown', 'apl', 'apl']);
        expect(nb.cells[3].text).toBe("['sample-http-logs']\n| summarize count() by status\n| take 10");
        expect(nb.cells[4].text).toBe("['sample-http-logs'] | count");
        expect(nb.cells[1].text).toContain('%reload_ext Kqlmagic');
    });

    it('Polyglot: a cell of a kql kernel and a #!kql-… cell become APL cells; #r and #!connect do not', () => {
        const nb = notebookFromIpynb(fixture('polyglot.ipynb'));
        expect(nb.cells.map(c => c.kind)).toEqual(['markdown', 'markdown', 'markdown', 'apl', 'apl']);
        expect(nb.cells[3].text).toBe("['sample-http-logs']\n| where status == '500'\n| take 5");
        expect(nb.cells[4].text).toBe("['sample-http-logs'] | count");
    });

    it.each([['{'], ['{"cells":[]}'], ['{"nbformat":4,"cells":[{"cell_type":"code","source":3}]}']])('%s is refused', text => {
        expect(() => notebookFromIpynb(text)).toThrow();
    });
});

const NB: AplNotebook = {
    format: APLNB_FORMAT,
    cells: [
        { kind: 'markdown', text: '# Title' },
        {
            kind: 'apl',
            text: "['logs'] | summarize n = count() by host",
            output: { ranAt: '2026-11-28T07:00:00.000Z', tables: [{ name: '0', fields: [{ name: 'host', type: 'string' }, { name: 'n', type: 'long' }], rows: [['<b>a|b</b>', 2]], totalRows: 30 }] },
        },
    ],
};

describe('ipynb and Markdown export', () => {
    it('an APL cell is a code cell of language apl, its snapshot an escaped HTML table; it imports back', () => {
        const ipynb = JSON.parse(notebookToIpynb(NB)) as { nbformat: number; cells: { id: string; cell_type: string; source: string[]; metadata: unknown; outputs?: { data: Record<string, string> }[] }[] };
        expect(ipynb.nbformat).toBe(4);
        expect(ipynb.cells[1]).toMatchObject({ cell_type: 'code', metadata: { vscode: { languageId: 'apl' } } });
        expect(new Set(ipynb.cells.map(c => c.id)).size).toBe(2);
        const html = ipynb.cells[1].outputs![0].data['text/html'];
        expect(html).toContain('&lt;b&gt;a|b&lt;/b&gt;');
        expect(html).toContain('1 of 30 rows');
        const back = notebookFromIpynb(notebookToIpynb(NB));
        expect(back.cells.map(c => [c.kind, c.text])).toEqual(NB.cells.map(c => [c.kind, c.text]));
    });

    it('Markdown: fenced apl blocks, tables with escaped pipes and HTML, the row count and the run time', () => {
        const md = notebookToMarkdown(NB);
        expect(md).toContain("```apl\n['logs'] | summarize n = count() by host\n```");
        expect(md).toContain('| host | n |');
        expect(md).toContain('| &lt;b&gt;a\\|b&lt;/b&gt; | 2 |');
        expect(md).toContain('_1 of 30 rows._');
        expect(md).toContain('Ran 2026-11-28T07:00:00.000Z');
    });
});
