/**
 * Text from data, a file or a service's answer, made safe to print on a terminal: control
 * characters (C0, DEL and C1, which a terminal may take as commands) are written as C escapes, the
 * way git quotes a path (`\n`, `\t`, `\033`), so nothing read can move the cursor, set a title or
 * change colours.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\u0007': '\\a' };

export function terminalText(s: string): string {
    return s.replace(CONTROL, ch => NAMED[ch] ?? `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/** The same, keeping line breaks (a message of several lines). */
export function terminalLines(s: string): string {
    return s.split('\n').map(terminalText).join('\n');
}
