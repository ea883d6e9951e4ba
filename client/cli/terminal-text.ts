/**
 * Text from data, a file or a service's answer, made safe to print on a terminal: control
 * characters (C0, DEL and C1, which a terminal may take as commands) are written as C escapes, the
 * way git quotes a path (`\n`, `\t`, `\033`), so nothing read can move the cursor, set a title or
 * change colours. Bidi controls and other invisible format characters are shown as `\u202E`, so
 * that nothing read can reorder or hide what is printed around it.
 */
import { INVISIBLE_CHARS, unicodeEscape } from '../../language/invisible-chars.js';

const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${INVISIBLE_CHARS.source}`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\u0007': '\\a' };

/** Bidi and invisible format characters (a right-to-left override shows `gnp.exe` as `exe.png`) as `\u202E`. */
export function terminalText(s: string): string {
    return s.replace(CONTROL, ch => NAMED[ch] ?? (ch.charCodeAt(0) > 0x9f ? unicodeEscape(ch) : `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`));
}

/** The same, keeping line breaks (a message of several lines). */
export function terminalLines(s: string): string {
    return s.split('\n').map(terminalText).join('\n');
}
