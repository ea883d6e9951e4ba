import type { LangiumDocument } from 'langium';
import type { CodeActionProvider } from 'langium/lsp';
import { CodeActionKind, type CodeAction, type CodeActionParams, type Command, type Diagnostic } from 'vscode-languageserver';
import { IssueCodes, type AplDiagnosticData } from '../apl-issue-codes.js';
import { bracketName as bracketed, quoteName } from './apl-names.js';
import type { AnalyzerDiagnosticData } from '../analyzers/analyzer-diagnostics.js';

/**
 * Quick fixes for APL diagnostics, switching on `diagnostic.data.code`:
 * - unknown function / dataset / field with a "did you mean" suggestion: replace the name;
 * - a week timespan (`2w`): write it in days (`14d`);
 * - `| render …` (APL has no render): remove the stage;
 * - a best-practice analyzer finding (APL2000…, language/analyzers/): the rewrite it carries in
 *   `data.fix` (preferred when it keeps the rows, offered otherwise).
 */
export class AplCodeActionProvider implements CodeActionProvider {
    getCodeActions(document: LangiumDocument, params: CodeActionParams): Array<Command | CodeAction> | undefined {
        const actions: CodeAction[] = [];
        for (const diagnostic of params.context.diagnostics) {
            const action = this.fixFor(document, diagnostic);
            if (action) actions.push(action);
        }
        return actions.length > 0 ? actions : undefined;
    }

    private fixFor(document: LangiumDocument, diagnostic: Diagnostic): CodeAction | undefined {
        const data = diagnostic.data as AplDiagnosticData | undefined;
        const code = data?.code ?? (typeof diagnostic.code === 'string' ? diagnostic.code : undefined);
        const text = document.textDocument.getText(diagnostic.range);
        const fix = (diagnostic.data as AnalyzerDiagnosticData | undefined)?.fix;
        if (fix) {
            return {
                title: fix.title,
                kind: CodeActionKind.QuickFix,
                diagnostics: [diagnostic],
                isPreferred: fix.safe,
                edit: { changes: { [document.uri.toString()]: fix.edits } },
            };
        }
        switch (code) {
            case IssueCodes.UnknownFunction:
                return data?.suggestion ? this.replace(document, diagnostic, text, data.suggestion, `Change to '${data.suggestion}'`) : undefined;
            case IssueCodes.UnknownDataset: {
                if (!data?.suggestion) return undefined;
                const newText = text.trimStart().startsWith('[') ? bracketed(data.suggestion) : quoteName(data.suggestion);
                return this.replace(document, diagnostic, text, newText, `Change to '${data.suggestion}'`);
            }
            case IssueCodes.UnknownField: {
                if (!data?.suggestion) return undefined;
                return this.replace(document, diagnostic, text, fieldReplacement(text, data.suggestion), `Change to '${data.suggestion}'`);
            }
            case IssueCodes.NoRender:
                return this.removeStage(document, diagnostic);
            case IssueCodes.WeekTimespan: {
                const m = /^([0-9]+(?:\.[0-9]+)?)(w|week|weeks)$/.exec(text);
                if (!m) return undefined;
                const days = `${Number(m[1]) * 7}d`;
                return this.replace(document, diagnostic, text, days, `Write as ${days}`);
            }
        }
        return undefined;
    }

    /** Removes `| render …` with the pipe and the line break or spaces before it: the query reads as if it was never there. */
    private removeStage(document: LangiumDocument, diagnostic: Diagnostic): CodeAction | undefined {
        const text = document.textDocument.getText();
        const end = document.textDocument.offsetAt(diagnostic.range.end);
        let start = document.textDocument.offsetAt(diagnostic.range.start);
        let pipe = start - 1;
        while (pipe >= 0 && /\s/.test(text[pipe])) pipe--;
        if (text[pipe] !== '|') return undefined;
        start = pipe;
        while (start > 0 && /\s/.test(text[start - 1])) start--;
        const range = { start: document.textDocument.positionAt(start), end: document.textDocument.positionAt(end) };
        return {
            title: "Remove the 'render' stage",
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: true,
            edit: { changes: { [document.uri.toString()]: [{ range, newText: '' }] } },
        };
    }

    private replace(document: LangiumDocument, diagnostic: Diagnostic, _old: string, newText: string, title: string): CodeAction {
        return {
            title,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: true,
            edit: { changes: { [document.uri.toString()]: [{ range: diagnostic.range, newText }] } },
        };
    }
}

/** Replaces the field name at the start of a name chain, keeping `$left.` and any keys after the field. */
function fieldReplacement(text: string, suggestion: string): string {
    const side = /^\$(left|right)\./.exec(text)?.[0] ?? '';
    const rest = text.slice(side.length);
    const bracket = /^\[\s*(['"])(?:[^'"\\\n]|\\.)*\1\s*\]/.exec(rest);
    const plain = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*/.exec(rest);
    const head = bracket?.[0] ?? plain?.[0] ?? rest;
    const quoted = head.startsWith('[') ? bracketed(suggestion) : quoteName(suggestion);
    // A dotted chain may be the misspelt field followed by keys; replace the whole written chain only
    // when it is entirely names (the validator reports the chain it could not resolve).
    return side + quoted + rest.slice(head.length);
}
