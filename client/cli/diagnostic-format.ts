/** LSP-shaped diagnostics as the CLI prints them. */
export interface CliDiagnostic {
    severity: 'error' | 'warning' | 'info' | 'hint';
    code: string;
    message: string;
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/**
 * `file:line:col: error APL1001 message`, then the source line and a caret under the range
 * (1-based line and column, as compilers print them).
 */
export function formatDiagnosticText(file: string, text: string, d: CliDiagnostic): string {
    const { line, character } = d.range.start;
    const sourceLine = text.split(/\r?\n/)[line] ?? '';
    const sameLine = d.range.end.line === line;
    const width = Math.max(1, sameLine ? d.range.end.character - character : sourceLine.length - character);
    const gutter = `${line + 1} | `;
    const caret = `${' '.repeat(gutter.length - 2)}| ${' '.repeat(character)}${'^'.repeat(Math.min(width, Math.max(1, sourceLine.length - character)))}`;
    return `${file}:${line + 1}:${character + 1}: ${d.severity} ${d.code} ${d.message}\n${gutter}${sourceLine}\n${caret}`;
}
