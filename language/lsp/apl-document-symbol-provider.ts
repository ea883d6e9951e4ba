import type { LangiumDocument } from 'langium';
import type { DocumentSymbolProvider } from 'langium/lsp';
import { CancellationToken, SymbolKind, type DocumentSymbol, type DocumentSymbolParams, type Range } from 'vscode-languageserver';
import * as ast from '../generated/ast.js';
import type { AplServices } from '../apl-module.js';
import type { AplTypeComputer } from '../types/apl-type-computer.js';
import { GrammarUtils, interruptAndCheck, isOperationCancelled } from 'langium';
import { reportProviderError } from './apl-names.js';

/**
 * The outline: `let` statements (variables, or tables when their value is tabular), query
 * parameters, and each query, named after its source and listing its operators as children.
 */
export class AplDocumentSymbolProvider implements DocumentSymbolProvider {
    private readonly types: AplTypeComputer;

    constructor(services: AplServices) {
        this.types = services.types.TypeComputer;
    }

    async getSymbols(document: LangiumDocument, _params: DocumentSymbolParams, cancelToken = CancellationToken.None): Promise<DocumentSymbol[]> {
        const out: DocumentSymbol[] = [];
        try {
            // A big document has thousands of statements: yield to other requests now and then, stop when cancelled.
            for (const symbol of this.symbols(document)) {
                out.push(symbol);
                if ((out.length & 255) === 0) await interruptAndCheck(cancelToken);
            }
        } catch (e) {
            if (isOperationCancelled(e)) throw e;
            reportProviderError('document symbols', e);
            return [];
        }
        return out;
    }

    private *symbols(document: LangiumDocument): Generator<DocumentSymbol> {
        const model = document.parseResult.value as ast.Model;
        const range = (start: number, end: number): Range => ({ start: document.textDocument.positionAt(start), end: document.textDocument.positionAt(end) });
        const text = document.textDocument.getText();
        let queryNumber = 0;
        for (const s of model.statements ?? []) {
            const cst = s.$cstNode;
            if (!cst) continue;
            const full = range(cst.offset, cst.end);
            if (ast.isLetStatement(s)) {
                const nameNode = GrammarUtils.findNodeForProperty(cst, 'name') ?? cst;
                const tabular = s.value ? this.types.isTabularPosition(s.value) : false;
                yield {
                    name: s.name,
                    detail: tabular ? 'table' : s.value ? this.types.typeOf(s.value) : undefined,
                    kind: tabular ? SymbolKind.Struct : SymbolKind.Variable,
                    range: full,
                    selectionRange: range(nameNode.offset, nameNode.end),
                    children: s.value ? this.operatorSymbols(s.value, range) : undefined,
                };
            } else if (ast.isDeclareStatement(s)) {
                for (const p of s.parameters) {
                    const pc = p.$cstNode ?? cst;
                    yield { name: p.name, detail: p.type, kind: SymbolKind.Variable, range: range(pc.offset, pc.end), selectionRange: range(pc.offset, pc.end) };
                }
            } else if (ast.isQueryStatement(s)) {
                queryNumber++;
                const firstLine = text.slice(cst.offset, cst.end).split(/\r?\n/)[0].trim();
                const source = ast.isPipeline(s.body) ? s.body.source?.$cstNode?.text : undefined;
                yield {
                    name: `query ${queryNumber}${source ? `: ${source}` : firstLine ? `: ${firstLine.slice(0, 40)}` : ''}`,
                    kind: SymbolKind.Namespace,
                    range: full,
                    selectionRange: range(cst.offset, Math.min(cst.end, cst.offset + firstLine.length || cst.end)),
                    children: this.operatorSymbols(s.body, range),
                };
            } else if (ast.isSetStatement(s)) {
                yield { name: `set ${s.name}`, kind: SymbolKind.Property, range: full, selectionRange: full };
            }
        }
    }

    private operatorSymbols(e: ast.Expression | undefined, range: (s: number, e: number) => Range): DocumentSymbol[] | undefined {
        if (!ast.isPipeline(e)) return undefined;
        return e.operators.flatMap(op => {
            const c = op.$cstNode;
            if (!c) return [];
            return [{ name: op.keyword, detail: c.text.split(/\r?\n/)[0].slice(0, 60), kind: SymbolKind.Operator, range: range(c.offset, c.end), selectionRange: range(c.offset, c.offset + op.keyword.length) }];
        });
    }
}
