/** The Run CodeLens: one per runnable query block, on the block's first line; blocks are separated by blank lines. */
import { describe, expect, it } from 'vitest';
import { explainLenses, runLenses } from '../../../client/vscode/src/query/run-lens.js';
import { queryInfo } from '../../../language/lsp/apl-query-info.js';
import { lspServices } from '../../language/lsp/lsp-services.js';

const URI = 'file:///w/q.apl';
const lensLines = (text: string) => runLenses(queryInfo(text, lspServices()).blocks, URI).map(l => l.line);

describe('Run CodeLens', () => {
    it("['sample-http-logs'] | take 5\\n\\n['sample-http-logs']\\n| count", () => {
        const lenses = runLenses(queryInfo("['sample-http-logs'] | take 5\n\n['sample-http-logs']\n| count", lspServices()).blocks, URI);
        expect(lenses).toEqual([
            { line: 0, title: '$(play) Run', tooltip: 'Run this query (Ctrl+Enter)', command: 'apl.run', arguments: [{ uri: URI, line: 0 }] },
            { line: 2, title: '$(play) Run', tooltip: 'Run this query (Ctrl+Enter)', command: 'apl.run', arguments: [{ uri: URI, line: 2 }] },
        ]);
    });

    it("['a']\\n| where x > 1\\n| take 3 (one block over several lines: one lens)", () => {
        expect(lensLines("['a']\n| where x > 1\n| take 3")).toEqual([0]);
    });

    it("// notes\\n\\nlet n = 5;\\n\\n['a'] | take n\\n\\n\\n\\n['b'] | count (comment-only and let-only blocks get none)", () => {
        expect(lensLines("// notes\n\nlet n = 5;\n\n['a'] | take n\n\n\n\n['b'] | count")).toEqual([4, 8]);
    });

    it('an empty document has no lens', () => {
        expect(lensLines('')).toEqual([]);
    });
});

describe('Explain CodeLens', () => {
    it("['sample-http-logs'] | take 5\\n\\nlet n = 5;\\n\\n['sample-http-logs']\\n| count (beside Run on each runnable block)", () => {
        const blocks = queryInfo("['sample-http-logs'] | take 5\n\nlet n = 5;\n\n['sample-http-logs']\n| count", lspServices()).blocks;
        const lenses = explainLenses(blocks, URI);
        expect(lenses.map(l => [l.line, l.title, l.command, l.arguments])).toEqual([
            [0, '$(list-tree) Explain', 'apl.explainQuery', [{ uri: URI, line: 0 }]],
            [4, '$(list-tree) Explain', 'apl.explainQuery', [{ uri: URI, line: 4 }]],
        ]);
        expect(lenses.map(l => l.line)).toEqual(runLenses(blocks, URI).map(l => l.line));
    });
});
