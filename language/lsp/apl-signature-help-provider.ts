import type { LangiumDocument } from 'langium';
import type { SignatureHelpProvider } from 'langium/lsp';
import type { ParameterInformation, SignatureHelp, SignatureHelpOptions, SignatureHelpParams, SignatureInformation } from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import {
    acceptsArgumentCount,
    arityOf,
    formatSignature,
    lookupAggregate,
    lookupScalarFunction,
    type AggregateFunction,
    type ScalarFunction,
    type Signature,
} from '../builtins/index.js';
import { safely } from './apl-names.js';

/** The call the cursor is in: the function name and the index of the argument under the cursor. */
export interface CallAtCursor {
    name: string;
    /** 0-based index of the argument the cursor is in. */
    argument: number;
    /** Offset of the function name. */
    nameOffset: number;
}

/**
 * Signature help for every catalogue function and aggregation. The call under the cursor is found
 * from the tokens before it (not the AST), so it works in unfinished text, across nested calls and
 * with comments or strings holding commas inside the argument list.
 */
export class AplSignatureHelpProvider implements SignatureHelpProvider {
    constructor(private readonly services: AplServices) {}

    get signatureHelpOptions(): SignatureHelpOptions {
        return { triggerCharacters: ['(', ','], retriggerCharacters: [',', ')'] };
    }

    provideSignatureHelp(document: LangiumDocument, params: SignatureHelpParams): SignatureHelp | undefined {
        return safely('signature help', undefined, () => this.help(document, params));
    }

    private help(document: LangiumDocument, params: SignatureHelpParams): SignatureHelp | undefined {
        const text = document.textDocument.getText();
        const offset = document.textDocument.offsetAt(params.position);
        const call = this.callAt(text, offset);
        if (!call) return undefined;
        const scalar = lookupScalarFunction(call.name);
        const aggregate = lookupAggregate(call.name);
        const entries: (ScalarFunction | AggregateFunction)[] = [];
        if (aggregate && this.inAggregationClause(text, call.nameOffset)) entries.push(aggregate);
        if (scalar) entries.push(scalar);
        if (aggregate && !entries.includes(aggregate)) entries.push(aggregate);
        if (entries.length === 0) return undefined;
        const signatures: SignatureInformation[] = [];
        const fits: boolean[] = [];
        const activeParameters: number[] = [];
        for (const entry of entries) {
            for (const sig of entry.signatures) {
                signatures.push(signatureInformation(call.name, sig, entry.description));
                fits.push(acceptsArgumentCount({ signatures: [sig] }, call.argument + 1) || arityOf(sig).max > call.argument);
                activeParameters.push(activeParameterOf(sig, call.argument));
            }
        }
        let activeSignature = fits.indexOf(true);
        if (activeSignature < 0) activeSignature = 0;
        return { signatures: signatures.map((s, i) => ({ ...s, activeParameter: activeParameters[i] })), activeSignature, activeParameter: activeParameters[activeSignature] };
    }

    /** The innermost call whose argument list contains `offset`, from the tokens before it. */
    callAt(text: string, offset: number): CallAtCursor | undefined {
        const tokens = this.services.parser.Lexer.tokenize(text.slice(0, offset)).tokens;
        interface Frame { call?: { name: string; nameOffset: number }; argument: number }
        const stack: Frame[] = [];
        for (let i = 0; i < tokens.length; i++) {
            const t = tokens[i].image;
            if (t === '(') {
                const prev = tokens[i - 1];
                const isName = prev !== undefined && /^[A-Za-z_$][A-Za-z0-9_]*$/.test(prev.image) && (lookupScalarFunction(prev.image) !== undefined || lookupAggregate(prev.image) !== undefined || prev.tokenType.name === 'ID');
                stack.push({ call: isName ? { name: prev.image, nameOffset: prev.startOffset } : undefined, argument: 0 });
            } else if (t === '[' || t === '{') {
                stack.push({ argument: 0 });
            } else if (t === ')' || t === ']' || t === '}') {
                stack.pop();
            } else if (t === ',') {
                const top = stack[stack.length - 1];
                if (top) top.argument++;
            } else if (t === '|' && stack.length === 0) {
                // a new pipe stage at the top level: nothing open
            }
        }
        for (let i = stack.length - 1; i >= 0; i--) {
            const f = stack[i];
            if (f.call) return { name: f.call.name, nameOffset: f.call.nameOffset, argument: f.argument };
            if (i === stack.length - 1 && !f.call) {
                // inside brackets or a parenthesised expression within a call: keep looking outward
                continue;
            }
        }
        return undefined;
    }

    /** Whether `offset` lies in a summarize/make-series clause (after the last top-level pipe). */
    private inAggregationClause(text: string, offset: number): boolean {
        const before = text.slice(0, offset);
        const pipe = before.lastIndexOf('|');
        const stage = before.slice(pipe + 1);
        return /^\s*(summarize|make-series)\b/.test(stage) && !/\bby\b/.test(stage.replace(/\([^()]*\)/g, ''));
    }
}

function paramLabel(p: Signature['params'][number]): string {
    const text = `${p.name}: ${p.type}${p.variadic ? ', ...' : ''}`;
    return p.optional ? `[${text}]` : text;
}

function signatureInformation(name: string, sig: Signature, description: string): SignatureInformation {
    const label = formatSignature(name, sig);
    const parameters: ParameterInformation[] = [];
    let from = name.length + 1;
    for (const p of sig.params) {
        const pl = paramLabel(p);
        const start = label.indexOf(pl, from);
        const range: [number, number] = start >= 0 ? [start, start + pl.length] : [0, 0];
        if (start >= 0) from = start + pl.length;
        parameters.push({ label: range, documentation: p.description });
    }
    return { label, documentation: { kind: 'markdown', value: description }, parameters };
}

/** The parameter index for argument `argument`: variadic parameters absorb the rest. */
export function activeParameterOf(sig: Signature, argument: number): number {
    const n = sig.params.length;
    if (n === 0) return 0;
    if (argument < n) return argument;
    const variadicIndex = sig.params.findIndex(p => p.variadic);
    if (variadicIndex < 0) return n - 1;
    // A repeating group: the variadic parameter and what follows it repeat.
    const groupSize = n - variadicIndex;
    return variadicIndex + ((argument - variadicIndex) % groupSize);
}
