/**
 * Characters that show nothing yet change what text around them shows: bidirectional controls
 * (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C: a right-to-left override makes `gnp.exe` show
 * as `exe.png`), zero-width and other invisible format characters, and the Unicode line separators.
 * Output built from data shows them as `\u202E`, as VS Code's editor highlights them. No dependencies:
 * the editor's webview bundles this too.
 */
export const INVISIBLE_CHARS = /[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

/** `c` as `\uXXXX` (upper-case hex, as Unicode writes code points). */
export function unicodeEscape(c: string): string {
    return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` with every invisible or bidi character shown as `\uXXXX`. */
export function showInvisible(text: string): string {
    return text.replace(INVISIBLE_CHARS, unicodeEscape);
}
