import { parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Location, LocationLink } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';

const services = lspServices();

/** Renames the name at `<|>` and returns the new text (or undefined when refused). */
async function rename(input: string, newName: string): Promise<string | undefined> {
    const offset = input.indexOf('<|>');
    const text = input.replace('<|>', '');
    const document = await parseDocument(services, text);
    const position = document.textDocument.positionAt(offset);
    const edit = await services.lsp.RenameProvider!.rename(document, { textDocument: { uri: document.uri.toString() }, position, newName });
    const edits = edit?.changes?.[document.uri.toString()];
    if (!edits) return undefined;
    return TextDocument.applyEdits(TextDocument.create('x', 'apl', 1, text), edits);
}

async function references(input: string, includeDeclaration = true): Promise<string[]> {
    const offset = input.indexOf('<|>');
    const text = input.replace('<|>', '');
    const document = await parseDocument(services, text);
    const locations: Location[] = await services.lsp.ReferencesProvider!.findReferences(document, {
        textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(offset), context: { includeDeclaration },
    });
    return locations.map(l => `${l.range.start.line}:${l.range.start.character}`);
}

async function definition(input: string): Promise<string | undefined> {
    const offset = input.indexOf('<|>');
    const text = input.replace('<|>', '');
    const document = await parseDocument(services, text);
    const links = (await services.lsp.DefinitionProvider!.getDefinition(document, { textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(offset) })) as LocationLink[] | undefined;
    const target = links?.[0]?.targetSelectionRange;
    return target ? document.textDocument.getText(target) + `@${target.start.line}:${target.start.character}` : undefined;
}

describe('rename', () => {
    it("let <|>threshold = 100;\n['sample-http-logs'] | where req_duration_ms > threshold | extend t = threshold", async () => {
        expect(await rename("let <|>threshold = 100;\n['sample-http-logs'] | where req_duration_ms > threshold | extend t = threshold", 'limit_ms'))
            .toBe("let limit_ms = 100;\n['sample-http-logs'] | where req_duration_ms > limit_ms | extend t = limit_ms");
    });

    it('from a reference: let errors = ...; <|>errors | count', async () => {
        expect(await rename("let errors = ['sample-http-logs'] | where status == '500';\n<|>errors | count", 'failures'))
            .toBe("let failures = ['sample-http-logs'] | where status == '500';\nfailures | count");
    });

    it("['sample-http-logs'] | extend <|>ms = req_duration_ms | where ms > 100 | project ms, status | sort by ms", async () => {
        expect(await rename("['sample-http-logs'] | extend <|>ms = req_duration_ms | where ms > 100 | project ms, status | sort by ms", 'millis'))
            .toBe("['sample-http-logs'] | extend millis = req_duration_ms | where millis > 100 | project millis, status | sort by millis");
    });

    it("['sample-http-logs'] | summarize <|>c = count() by method | where c > 10 | project-away c", async () => {
        expect(await rename("['sample-http-logs'] | summarize <|>c = count() by method | where c > 10 | project-away c", 'total'))
            .toBe("['sample-http-logs'] | summarize total = count() by method | where total > 10 | project-away total");
    });

    it('a later redefinition is a different column: extend a = 1 | extend b = <|>a | extend a = 2 | where a > 0', async () => {
        expect(await rename("T | extend a = 1 | extend b = <|>a | extend a = 2 | where a > 0", 'z'))
            .toBe("T | extend z = 1 | extend b = z | extend a = 2 | where a > 0");
    });

    it("a name that needs brackets: extend <|>ms = 1 | where ms > 0 → ['req ms']", async () => {
        expect(await rename("T | extend <|>ms = 1 | where ms > 0", 'req ms')).toBe("T | extend ['req ms'] = 1 | where ['req ms'] > 0");
    });

    it("['sample-http-logs'] | where <|>status == '500' (a dataset field cannot be renamed)", async () => {
        expect(await rename("['sample-http-logs'] | where <|>status == '500'", 'code')).toBeUndefined();
    });

    it("project-rename <|>s = status | where s == '500'", async () => {
        expect(await rename("['sample-http-logs'] | project-rename <|>s = status | where s == '500'", 'code'))
            .toBe("['sample-http-logs'] | project-rename code = status | where code == '500'");
    });
});

describe('references and definition', () => {
    it("let x = 1;\nT | where a > x | extend y = <|>x", async () => {
        expect(await references("let x = 1;\nT | where a > x | extend y = <|>x")).toEqual(['0:4', '1:14', '1:29']);
        expect(await references("let x = 1;\nT | where a > x | extend y = <|>x", false)).toEqual(['1:14', '1:29']);
    });

    it("let x = 1;\nT | where a > <|>x", async () => {
        expect(await definition("let x = 1;\nT | where a > <|>x")).toBe('x@0:4');
    });

    it("T | extend total = a + b | where <|>total > 1", async () => {
        expect(await definition("T | extend total = a + b | where <|>total > 1")).toBe('total@0:11');
    });

    it("['sample-http-logs'] | where <|>status == '500' (no definition in the document)", async () => {
        expect(await definition("['sample-http-logs'] | where <|>status == '500'")).toBeUndefined();
    });

    it('document highlight marks the declaration as a write', async () => {
        const text = 'T | extend n = 1 | where n > 0';
        const document = await parseDocument(services, text);
        const highlights = await services.lsp.DocumentHighlightProvider!.getDocumentHighlight(document, { textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(text.lastIndexOf('n')) });
        expect(highlights?.map(h => h.kind)).toEqual([3, 2]);
    });
});
