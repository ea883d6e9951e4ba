import { parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { SignatureHelp } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';
import { AGGREGATES, SCALAR_FUNCTIONS } from '../../../language/builtins/index.js';

const services = lspServices();

async function help(input: string): Promise<SignatureHelp | undefined> {
    const offset = input.indexOf('<|>');
    const text = input.replace('<|>', '');
    const document = await parseDocument(services, text);
    return services.lsp.SignatureHelp!.provideSignatureHelp(document, { textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(offset) });
}

function active(h: SignatureHelp | undefined): { label: string; parameter: string } {
    const sig = h!.signatures[h!.activeSignature ?? 0];
    const p = sig.parameters?.[sig.activeParameter ?? h!.activeParameter ?? 0];
    const range = p?.label as [number, number] | undefined;
    return { label: sig.label, parameter: range ? sig.label.slice(range[0], range[1]) : '' };
}

describe('signature help', () => {
    it('trigger characters are ( and ,', () => {
        expect(services.lsp.SignatureHelp!.signatureHelpOptions.triggerCharacters).toEqual(['(', ',']);
    });

    it("['sample-http-logs'] | extend x = substring(<|>", async () => {
        const a = active(await help("['sample-http-logs'] | extend x = substring(<|>"));
        expect(a.label).toMatch(/^substring\(/);
        expect(a.parameter).toMatch(/^source/);
    });

    it("['sample-http-logs'] | extend x = substring(uri, <|>", async () => {
        expect(active(await help("['sample-http-logs'] | extend x = substring(uri, <|>")).parameter).toMatch(/^startingIndex|^start/);
    });

    it("['sample-http-logs'] | extend x = substring(strlen(uri<|>), 1)", async () => {
        expect(active(await help("['sample-http-logs'] | extend x = substring(strlen(uri<|>), 1)")).label).toMatch(/^strlen\(/);
    });

    it("['sample-http-logs'] | extend x = substring(strlen(uri), <|>1)", async () => {
        const a = active(await help("['sample-http-logs'] | extend x = substring(strlen(uri), <|>1)"));
        expect(a.label).toMatch(/^substring\(/);
        expect(a.parameter).not.toMatch(/^source/);
    });

    it("['sample-http-logs'] | extend x = substring('a,b', // a, comment\n 1, <|>", async () => {
        const h = await help("['sample-http-logs'] | extend x = substring('a,b', // a, comment\n 1, <|>");
        expect(active(h).label).toMatch(/^substring\(/);
        expect(h!.signatures[h!.activeSignature ?? 0].activeParameter).toBe(2);
    });

    it("['sample-http-logs'] | summarize percentile(req_duration_ms, <|>", async () => {
        const a = active(await help("['sample-http-logs'] | summarize percentile(req_duration_ms, <|>"));
        expect(a.label).toMatch(/^percentile\(/);
        expect(a.parameter).not.toBe('');
    });

    it("['sample-http-logs'] | where iff(<|>", async () => {
        expect(active(await help("['sample-http-logs'] | where iff(<|>")).label).toMatch(/^iff\(/);
    });

    it("['sample-http-logs'] | where status == '500'<|>", async () => {
        expect(await help("['sample-http-logs'] | where status == '500'<|>")).toBeUndefined();
    });

    it('every catalogue function and aggregation has signature help', async () => {
        for (const entry of [...SCALAR_FUNCTIONS, ...AGGREGATES]) {
            const h = await help(`print x = ${entry.name}(<|>)`);
            expect(h?.signatures.length, entry.name).toBeGreaterThan(0);
            expect(h!.signatures.some(s => s.label.startsWith(`${entry.name}(`)), entry.name).toBe(true);
        }
    });
});
