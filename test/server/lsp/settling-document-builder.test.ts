/**
 * The language server's document builder: an edit's build waits for a quiet period (bursts of
 * edits parse once), while the first build of a document it has never seen (an editor opening a
 * query) starts at once. Fake timers: a build that waits cannot finish until the clock moves.
 */
import { EmptyFileSystem, URI } from 'langium';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAplServices } from '../../../language/apl-module.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';
import { SETTLE_MS, SettlingDocumentBuilder } from '../../../server/lsp/settling-document-builder.js';

function services() {
    return createAplServices({
        ...EmptyFileSystem,
        module: { schema: { SchemaProvider: () => new BuiltinSchemaProvider() } },
        sharedModule: { workspace: { DocumentBuilder: (s) => new SettlingDocumentBuilder(s) } },
    }).shared;
}

/** Whether `p` settles while the fake clock stands still (microtasks and immediates only). */
async function settlesWithoutTime(p: Promise<unknown>): Promise<boolean> {
    let done = false;
    void p.then(() => (done = true));
    for (let i = 0; i < 50 && !done; i++) await vi.advanceTimersByTimeAsync(0);
    return done;
}

describe('SettlingDocumentBuilder', () => {
    beforeEach(() => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    });
    afterEach(() => {
        vi.useRealTimers();
    });

    it("['sample-http-logs'] | take 1 — opened: built at once; then edited: built after the quiet period", async () => {
        const shared = services();
        const uri = URI.parse('file:///settle/query.apl');
        const docs = shared.workspace.TextDocuments!;
        docs.set(TextDocument.create(uri.toString(), 'apl', 1, "['sample-http-logs'] | take 1"));
        const first = shared.workspace.DocumentBuilder.update([uri], []);
        expect(await settlesWithoutTime(first)).toBe(true);
        expect(shared.workspace.LangiumDocuments.getDocument(uri)?.textDocument.getText()).toBe("['sample-http-logs'] | take 1");

        docs.set(TextDocument.create(uri.toString(), 'apl', 2, "['sample-http-logs'] | take 2"));
        const edit = shared.workspace.DocumentBuilder.update([uri], []);
        expect(await settlesWithoutTime(edit)).toBe(false);
        await vi.advanceTimersByTimeAsync(SETTLE_MS);
        await edit;
        expect(shared.workspace.LangiumDocuments.getDocument(uri)?.textDocument.getText()).toBe("['sample-http-logs'] | take 2");
    });
});
