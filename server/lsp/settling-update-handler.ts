/**
 * Langium's document update handler, except that a change waits for a short quiet period before the
 * rebuild starts. Langium cancels a running build when a newer change arrives, but parsing is one
 * synchronous step and the client's messages are handled one per event-loop turn, so a burst of
 * edits used to parse every intermediate version (50 edits of a 200 KB document: 80 s of work).
 * Waiting inside the write lock keeps requests correct: they queue behind the pending rebuild.
 */
import type { URI } from 'langium';
import { DefaultDocumentUpdateHandler } from 'langium/lsp';

/** How long a document must stay unchanged before it is rebuilt. */
export const SETTLE_MS = 50;

export class SettlingDocumentUpdateHandler extends DefaultDocumentUpdateHandler {
    protected override fireDocumentUpdate(changed: URI[], deleted: URI[]): void {
        this.workspaceManager.ready
            .then(() =>
                this.workspaceLock.write(async token => {
                    await new Promise(resolve => setTimeout(resolve, SETTLE_MS));
                    // A newer change cancelled this one: its own write rebuilds the document.
                    if (token.isCancellationRequested) return;
                    await this.documentBuilder.update(changed, deleted, token);
                }),
            )
            .catch(err => console.error('APL: a document update failed.', err));
    }
}
