import { AstUtils, type AstNode, type LangiumDocument } from 'langium';
import type { FoldingRangeProvider } from 'langium/lsp';
import { FoldingRangeKind, type FoldingRange, type FoldingRangeParams } from 'vscode-languageserver';
import * as ast from '../generated/ast.js';

/**
 * Folding for APL: every multi-line statement (a query block or a `let`), runs of consecutive `let`
 * statements, multi-line parenthesised sub-queries, `datatable`/`externaldata` bodies, `dynamic`
 * literals, and runs of two or more comment lines.
 */
export class AplFoldingRangeProvider implements FoldingRangeProvider {
    getFoldingRanges(document: LangiumDocument, _params: FoldingRangeParams): FoldingRange[] {
        const model = document.parseResult.value as ast.Model;
        const ranges: FoldingRange[] = [];
        const lineOf = (offset: number) => document.textDocument.positionAt(offset).line;
        const add = (node: AstNode | undefined, kind?: string) => {
            const cst = node?.$cstNode;
            if (!cst) return;
            const start = lineOf(cst.offset);
            const end = lineOf(cst.end);
            if (end > start) ranges.push({ startLine: start, endLine: end, kind });
        };
        const statements = model.statements ?? [];
        for (const s of statements) add(s, FoldingRangeKind.Region);
        // Consecutive lets.
        for (let i = 0; i < statements.length; i++) {
            if (!ast.isLetStatement(statements[i])) continue;
            let j = i;
            while (j + 1 < statements.length && ast.isLetStatement(statements[j + 1])) j++;
            const first = statements[i].$cstNode;
            const last = statements[j].$cstNode;
            if (j > i && first && last) ranges.push({ startLine: lineOf(first.offset), endLine: lineOf(last.end), kind: FoldingRangeKind.Region });
            i = j;
        }
        for (const node of AstUtils.streamAllContents(model)) {
            if (ast.isParenthesizedExpression(node) || ast.isDatatableExpression(node) || ast.isExternalDataExpression(node)
                || ast.isDynamicLiteral(node) || ast.isInExpression(node)) add(node);
        }
        // Comment runs.
        const text = document.textDocument.getText();
        const lines = text.split(/\r?\n/);
        for (let i = 0; i < lines.length; i++) {
            if (!/^\s*\/\//.test(lines[i])) continue;
            let j = i;
            while (j + 1 < lines.length && /^\s*\/\//.test(lines[j + 1])) j++;
            if (j > i) ranges.push({ startLine: i, endLine: j, kind: FoldingRangeKind.Comment });
            i = j;
        }
        const seen = new Set<string>();
        return ranges.filter(r => {
            const k = `${r.startLine}:${r.endLine}`;
            if (seen.has(k)) return false;
            seen.add(k);
            return true;
        }).sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    }
}
