import { parseDocument } from 'langium/test';
import { describe, expect, it } from 'vitest';
import type { InlayHint } from 'vscode-languageserver';
import { lspServices } from './lsp-services.js';

const services = lspServices();
const configuration = services.shared.workspace.ConfigurationProvider;

function setSummarizeColumns(on: boolean): void {
    configuration.updateConfiguration({ settings: { apl: { inlayHints: { summarizeColumns: on } } } });
}

/** The text with each hint's label written in at its position, as an editor shows it. */
async function withHints(text: string): Promise<string> {
    const document = await parseDocument(services, text);
    const end = document.textDocument.positionAt(text.length);
    const hints: InlayHint[] = (await services.lsp.InlayHintProvider!.getInlayHints(document, { textDocument: { uri: document.uri.toString() }, range: { start: { line: 0, character: 0 }, end } })) ?? [];
    const placed = hints
        .map(h => ({ at: document.textDocument.offsetAt(h.position), label: (h.paddingLeft ? ' ' : '') + (typeof h.label === 'string' ? h.label : h.label.map(p => p.value).join('')) }))
        .sort((a, b) => b.at - a.at);
    let shown = text;
    for (const h of placed) shown = shown.slice(0, h.at) + h.label + shown.slice(h.at);
    return shown;
}

describe('inlay hints: extend and project column types', () => {
    it("['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024, slow = req_duration_ms > 100", async () => {
        setSummarizeColumns(false);
        expect(await withHints("['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024, slow = req_duration_ms > 100"))
            .toBe("['sample-http-logs'] | extend kb: long = resp_body_size_bytes / 1024, slow: bool = req_duration_ms > 100");
    });

    it("['sample-http-logs'] | project status, ms = req_duration_ms, t = _time", async () => {
        setSummarizeColumns(false);
        expect(await withHints("['sample-http-logs'] | project status, ms = req_duration_ms, t = _time"))
            .toBe("['sample-http-logs'] | project status: string, ms: real = req_duration_ms, t: datetime = _time");
    });

    it("['sample-http-logs'] | extend n = strlen(uri) | project m = n * 2", async () => {
        setSummarizeColumns(false);
        expect(await withHints("['sample-http-logs'] | extend n = strlen(uri) | project m = n * 2"))
            .toBe("['sample-http-logs'] | extend n: long = strlen(uri) | project m: long = n * 2");
    });

    it("['unknown-dataset'] | extend x = y (an unknown type gets no hint)", async () => {
        setSummarizeColumns(false);
        expect(await withHints("['unknown-dataset'] | extend x = y")).toBe("['unknown-dataset'] | extend x = y");
    });
});

describe('inlay hints: summarize result columns (apl.inlayHints.summarizeColumns)', () => {
    it("['sample-http-logs'] | summarize n = count() by status (off by default)", async () => {
        setSummarizeColumns(false);
        expect(await withHints("['sample-http-logs'] | summarize n = count() by status")).toBe("['sample-http-logs'] | summarize n = count() by status");
    });

    it("['sample-http-logs'] | summarize n = count(), avg(req_duration_ms) by status (on)", async () => {
        setSummarizeColumns(true);
        expect(await withHints("['sample-http-logs'] | summarize n = count(), avg(req_duration_ms) by status"))
            .toBe("['sample-http-logs'] | summarize n = count(), avg(req_duration_ms) by status → (status: string, n: long, avg_req_duration_ms: real)");
    });
});
