/**
 * Read-only documents for "Translate to Legacy Query JSON": the text lives in memory behind a
 * URI of our own scheme, so the editor shows it read-only and closing it asks nothing (an untitled
 * document with content asks to be saved). Each translation gets its own URI.
 */
import * as vscode from 'vscode';

export class LegacyDocuments implements vscode.TextDocumentContentProvider {
    static readonly scheme = 'apl-legacy';
    /** Translations kept (the oldest go): each is a few kilobytes. */
    private static readonly MAX = 50;
    private readonly texts = new Map<string, string>();
    private next = 1;

    /** Keeps `text` and returns the URI that shows it (`…/legacy-query-N.json`: the .json gives the language). */
    add(text: string): vscode.Uri {
        const uri = vscode.Uri.from({ scheme: LegacyDocuments.scheme, path: `/legacy-query-${this.next++}.json` });
        this.texts.set(uri.toString(), text);
        while (this.texts.size > LegacyDocuments.MAX) this.texts.delete(this.texts.keys().next().value!);
        return uri;
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.texts.get(uri.toString()) ?? '// This translation is no longer kept: translate the query again.\n';
    }
}
