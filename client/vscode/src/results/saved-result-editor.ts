/**
 * `.aplr` files open in the results view: a read-only custom editor whose tab says what the file
 * holds and shows it in the APL Results panel (the grid, chart and toolbar of a run), without a
 * request. "Open With…" offers the text editor too.
 */
import * as vscode from 'vscode';
import { parseSavedResult, type SavedResult } from './saved-result.js';

export class SavedResultEditor implements vscode.CustomReadonlyEditorProvider<vscode.CustomDocument & { saved?: SavedResult; error?: string }> {
    static readonly viewType = 'apl.savedResult';

    constructor(private readonly show: (saved: SavedResult) => void) {}

    async openCustomDocument(uri: vscode.Uri): Promise<vscode.CustomDocument & { saved?: SavedResult; error?: string }> {
        const name = uri.path.split('/').pop() ?? uri.toString();
        try {
            const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
            return { uri, saved: parseSavedResult(text, name), dispose: () => undefined };
        } catch (e) {
            return { uri, error: e instanceof Error ? e.message : String(e), dispose: () => undefined };
        }
    }

    resolveCustomEditor(document: vscode.CustomDocument & { saved?: SavedResult; error?: string }, panel: vscode.WebviewPanel): void {
        panel.webview.options = { enableScripts: false };
        const h = document.saved?.header;
        const escape = (s: string) => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
        const body = h
            ? `<h2>APL result</h2><p>Shown in the APL Results panel.</p><pre>${escape(h.query)}</pre><p>${escape(h.connection.name)} · ${escape(h.timeRange.label)} · ${h.rowsSaved.toLocaleString('en-US')} of ${h.rowCount.toLocaleString('en-US')} rows · saved ${escape(h.savedAt)}</p>`
            : `<h2>Not an APL result file</h2><p>${escape(document.error ?? '')}</p>`;
        panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"></head><body style="font-family: var(--vscode-font-family); color: var(--vscode-foreground)">${body}</body></html>`;
        if (document.saved) this.show(document.saved);
        else void vscode.window.showErrorMessage(`APL: ${document.error}`);
    }
}
