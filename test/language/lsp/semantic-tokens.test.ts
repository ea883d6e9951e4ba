import { expectSemanticToken, highlightHelper } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { SemanticTokenTypes } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';

const highlight = highlightHelper(lspServices());

describe('semantic tokens', () => {
    it("<|['sample-http-logs']|> | where status == '500'", async () => {
        expectSemanticToken(await highlight("<|['sample-http-logs']|> | where status == '500'"), { tokenType: SemanticTokenTypes.namespace });
    });

    it("['sample-http-logs'] | <|where|> <|status|> <|==|> <|'500'|>", async () => {
        const t = await highlight("['sample-http-logs'] | <|where|> <|status|> <|==|> <|'500'|>");
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.keyword, rangeIndex: 0 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.property, rangeIndex: 1 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.operator, rangeIndex: 2 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.string, rangeIndex: 3 });
    });

    it("['sample-http-logs'] | summarize <|count|>() by <|bin|>(_time, <|1h|>) <|// per hour|>", async () => {
        const t = await highlight("['sample-http-logs'] | summarize <|count|>() by <|bin|>(_time, <|1h|>) <|// per hour|>");
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.function, rangeIndex: 0 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.function, rangeIndex: 1 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.number, rangeIndex: 2 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.comment, rangeIndex: 3 });
    });

    it("let <|limit_ms|> = 100;\n['sample-http-logs'] | where req_duration_ms > <|limit_ms|>", async () => {
        const t = await highlight("let <|limit_ms|> = 100;\n['sample-http-logs'] | where req_duration_ms > <|limit_ms|>");
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.variable, rangeIndex: 0 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.variable, rangeIndex: 1 });
    });

    it("['sample-http-logs'] | extend <|n|> = <|tolong|>(status) | where <|n|> <|contains|> '5' and x == <|dynamic|>(<|null|>) | mv-expand y to typeof(<|long|>)", async () => {
        const t = await highlight("['sample-http-logs'] | extend <|n|> = <|tolong|>(status) | where <|n|> <|contains|> '5' and x == <|dynamic|>(<|null|>) | mv-expand y to typeof(<|long|>)");
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.property, rangeIndex: 0 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.function, rangeIndex: 1 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.property, rangeIndex: 2 });
        // word operators are keywords (as in Kusto editors); symbol operators are operators
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.keyword, rangeIndex: 3 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.type, rangeIndex: 4 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.keyword, rangeIndex: 5 });
        expectSemanticToken(t, { tokenType: SemanticTokenTypes.type, rangeIndex: 6 });
    });

    it('every token of a corpus-like query is classified or punctuation', async () => {
        const t = await highlight("['sample-http-logs']\n| where _time > ago(1h) and ['geo.country'] == 'US'\n| summarize avg(req_duration_ms) by method\n| order by avg_req_duration_ms desc");
        const texts = t.tokens.map(x => x.text);
        expect(texts).toEqual(expect.arrayContaining(['where', 'ago', '1h', "['geo.country']", 'summarize', 'avg', 'by', 'desc']));
    });
});
