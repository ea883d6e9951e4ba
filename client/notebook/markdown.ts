/**
 * A notebook as Markdown, for a README, a wiki or a pull request: markdown cells as they are, APL
 * cells as fenced `apl` blocks, and each snapshot as a table of its first rows (with how many rows
 * there were and when the cell ran), and a chart as a link to its picture (notebook-export.ts
 * writes the SVG files beside the Markdown).
 */
import type { AplNotebook, SnapshotTable } from './aplnb.js';
import { INVISIBLE_CHARS, unicodeEscape } from '../../language/invisible-chars.js';
import { cellValueText, fence } from './ipynb.js';

/** Rows of each table written out; the rest are counted. */
export const MARKDOWN_TABLE_ROWS = 20;

/** A table cell: one line; pipes, backslashes and HTML escaped (data must not become markup); control and bidi characters shown as `\uXXXX`. */
function mdCell(v: unknown): string {
    return cellValueText(v)
        .replace(/\\/g, '\\\\')
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/\|/g, '\\|')
        .replace(/\r?\n/g, ' ')
        // eslint-disable-next-line no-control-regex -- control characters are what this escapes
        .replace(/[\u0000-\u001f\u007f]/g, unicodeEscape)
        .replace(INVISIBLE_CHARS, unicodeEscape);
}

function mdTable(table: SnapshotTable): string {
    if (table.fields.length === 0) return '_(no columns)_';
    const rows = table.rows.slice(0, MARKDOWN_TABLE_ROWS);
    const lines = [`| ${table.fields.map(f => mdCell(f.name)).join(' | ')} |`, `| ${table.fields.map(() => '---').join(' | ')} |`, ...rows.map(r => `| ${r.map(mdCell).join(' | ')} |`)];
    if (table.totalRows > rows.length) lines.push('', `_${rows.length} of ${table.totalRows.toLocaleString('en-US')} rows._`);
    return lines.join('\n');
}

/**
 * `images`: per cell index, the link of its chart's picture, relative to the Markdown file (GitHub
 * draws an image file of the repository, but not a `data:` URI, which its sanitizer drops).
 */
export function notebookToMarkdown(notebook: AplNotebook, images: ReadonlyMap<number, string> = new Map()): string {
    const parts: string[] = [];
    notebook.cells.forEach((c, i) => {
        if (c.kind === 'markdown') {
            parts.push(c.text.trimEnd());
            return;
        }
        parts.push(fence(c.text, 'apl'));
        const out = c.output;
        if (!out) return;
        if (out.error) parts.push(`> **Error**${out.error.line ? ` (line ${out.error.line}${out.error.column ? `, column ${out.error.column}` : ''})` : ''}: ${mdCell(out.error.message)}`);
        const many = out.tables.length > 1;
        out.tables.forEach((t, k) => parts.push(`${many ? `**${k === out.tables.length - 1 && t.name === '_totals' ? 'Totals' : `Table ${mdCell(t.name)}`}**\n\n` : ''}${mdTable(t)}`));
        const image = images.get(i);
        if (image !== undefined) parts.push(`![Chart of cell ${i + 1}](${image})`);
        parts.push(`<sub>Ran ${out.ranAt}${out.ranOn ? ` on ${mdCell(out.ranOn)}` : ''}${out.elapsedMs !== undefined ? ` in ${Math.round(out.elapsedMs)} ms` : ''}.</sub>`);
    });
    return `${parts.join('\n\n')}\n`;
}
