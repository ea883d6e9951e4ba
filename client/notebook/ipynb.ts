/**
 * Jupyter `.ipynb` (nbformat 4) to and from `.aplnb`. Export: APL cells become code cells of
 * language `apl` with their snapshot as an HTML table (and plain text) and their chart as SVG;
 * markdown stays markdown.
 * Import: KQL/APL code cells from Kqlmagic notebooks (`%%kql` cell magic, `%kql` line magic) and
 * Polyglot / .NET Interactive notebooks (`#!kql…` magic, or a cell whose metadata names a kql kernel);
 * the magics and their connection arguments are stripped. Code cells of other languages (Python set-up
 * such as `%reload_ext Kqlmagic`, C#) are not queries: they become a markdown cell quoting them, so
 * nothing is lost and nothing runs that is not APL.
 */
import { APLNB_FORMAT, NotebookFormatError, type AplNotebook, type NotebookCell, type SnapshotTable } from './aplnb.js';

interface IpynbCell {
    id?: string;
    cell_type: 'code' | 'markdown' | 'raw';
    source: string | string[];
    metadata?: Record<string, unknown>;
    outputs?: unknown[];
    execution_count?: number | null;
}

interface Ipynb {
    nbformat: number;
    nbformat_minor: number;
    metadata: Record<string, unknown>;
    cells: IpynbCell[];
}

function sourceText(source: unknown, path: string): string {
    if (typeof source === 'string') return source;
    if (Array.isArray(source) && source.every(s => typeof s === 'string')) return source.join('');
    throw new NotebookFormatError(path, 'expected the cell source (a string or an array of strings)');
}

/** nbformat keeps a source as lines that end in '\n' (all but the last). */
function sourceLines(text: string): string[] {
    const lines = text.split('\n');
    return lines.map((l, i) => (i < lines.length - 1 ? `${l}\n` : l)).filter((l, i) => l !== '' || i < lines.length - 1);
}

/** The kernel language a notebook or a cell declares (Polyglot keeps it per cell). */
function declaredLanguage(metadata: Record<string, unknown> | undefined): string | undefined {
    const m = metadata ?? {};
    const polyglot = (m.polyglot_notebook ?? m.dotnet_interactive) as { kernelName?: unknown; language?: unknown } | undefined;
    const vscode = m.vscode as { languageId?: unknown } | undefined;
    const kernel = m.kernelspec as { language?: unknown } | undefined;
    const info = m.language_info as { name?: unknown } | undefined;
    const name = polyglot?.kernelName ?? polyglot?.language ?? vscode?.languageId ?? m.language ?? kernel?.language ?? info?.name;
    return typeof name === 'string' ? name.toLowerCase() : undefined;
}

const KQLISH = /^(kql|kusto|apl)/;

/** The query in a code cell, or undefined when the cell is not KQL/APL. */
export function queryOfCodeCell(text: string, cellLanguage: string | undefined, notebookLanguage: string | undefined): string | undefined {
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    const first = lines.findIndex(l => l.trim() !== '');
    if (first < 0) return undefined;
    const head = lines[first].trim();
    // Kqlmagic: `%%kql [connection or options]` on the first line, the query below.
    if (/^%%kql\b/i.test(head)) return lines.slice(first + 1).join('\n').trim();
    // Kqlmagic line magic: `%kql <query>` (possibly with a leading connection string in quotes).
    // A line magic that only names a connection (`%kql AzureDataExplorer://code;cluster='help'`) is set-up.
    if (/^%kql\b/i.test(head)) {
        const rest = head.replace(/^%kql\s*/i, '').replace(/^(['"])[^'"]*\1\s*/, '').trim();
        return rest === '' || /^[A-Za-z_-]+:\/\//.test(rest) ? undefined : rest;
    }
    // Polyglot: `#!kql`, `#!kql-<connection>`, followed by the query; `#!connect` cells are set-up.
    if (/^#!connect\b/i.test(head)) return undefined;
    if (/^#!(kql|kusto|apl)\b/i.test(head)) return lines.slice(first + 1).join('\n').trim();
    if (head.startsWith('#!') || head.startsWith('%')) return undefined;
    const language = cellLanguage ?? notebookLanguage;
    return language !== undefined && KQLISH.test(language) ? text.trim() : undefined;
}

/** Reads an `.ipynb` file into a notebook (outputs are not imported: they are another tool's). */
export function notebookFromIpynb(text: string): AplNotebook {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (e) {
        throw new NotebookFormatError('(file)', `not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    const nb = json as Partial<Ipynb>;
    if (json === null || typeof json !== 'object' || !Array.isArray(nb.cells)) throw new NotebookFormatError('cells', 'not a Jupyter notebook (no "cells" array)');
    if (nb.nbformat !== 4) throw new NotebookFormatError('nbformat', `expected 4, found ${JSON.stringify(nb.nbformat)}`);
    const notebookLanguage = declaredLanguage(nb.metadata);
    const cells: NotebookCell[] = nb.cells.map((c, i): NotebookCell => {
        const source = sourceText(c?.source, `cells[${i}].source`);
        if (c.cell_type === 'markdown') return { kind: 'markdown', text: source };
        if (c.cell_type === 'code') {
            const query = queryOfCodeCell(source, declaredLanguage(c.metadata), notebookLanguage);
            if (query !== undefined) return { kind: 'apl', text: query };
            const language = declaredLanguage(c.metadata) ?? notebookLanguage ?? '';
            return { kind: 'markdown', text: `Imported ${language || 'code'} cell (not a query):\n\n${fence(source, language)}` };
        }
        return { kind: 'markdown', text: fence(source, '') };
    });
    return { format: APLNB_FORMAT, cells };
}

/** A fenced code block that its own text cannot close. */
export function fence(text: string, language: string): string {
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map(m => m[0].length));
    const ticks = '`'.repeat(longest + 1);
    return `${ticks}${language}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

function escapeHtml(s: string): string {
    return s.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function cellValueText(v: unknown): string {
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
}

function htmlTable(table: SnapshotTable): string {
    const head = table.fields.map(f => `<th>${escapeHtml(f.name)}</th>`).join('');
    const body = table.rows.map(r => `<tr>${r.map(v => `<td>${escapeHtml(cellValueText(v))}</td>`).join('')}</tr>`).join('');
    const more = table.totalRows > table.rows.length ? `<p>${table.rows.length} of ${table.totalRows} rows</p>` : '';
    return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${more}`;
}

function plainTable(table: SnapshotTable): string {
    const lines = [table.fields.map(f => f.name).join('\t'), ...table.rows.map(r => r.map(cellValueText).join('\t'))];
    return lines.join('\n');
}

/**
 * Writes a notebook as nbformat 4.5; each APL cell's snapshot becomes a display_data output, and
 * its chart (`charts`: per cell index, an SVG document) an `image/svg+xml` one, which Jupyter,
 * VS Code and GitHub's notebook view all draw.
 */
export function notebookToIpynb(notebook: AplNotebook, charts: ReadonlyMap<number, string> = new Map()): string {
    const cells: IpynbCell[] = notebook.cells.map((c, i) => {
        // nbformat 4.5 asks for a unique id per cell.
        const id = `cell-${i + 1}`;
        if (c.kind === 'markdown') return { id, cell_type: 'markdown', metadata: {}, source: sourceLines(c.text) };
        const outputs: unknown[] = [];
        const out = c.output;
        if (out?.error) outputs.push({ output_type: 'error', ename: 'APL error', evalue: out.error.message, traceback: [] });
        for (const t of out?.tables ?? []) outputs.push({ output_type: 'display_data', metadata: {}, data: { 'text/html': htmlTable(t), 'text/plain': plainTable(t) } });
        const svg = charts.get(i);
        if (svg !== undefined) outputs.push({ output_type: 'display_data', metadata: {}, data: { 'image/svg+xml': sourceLines(svg), 'text/plain': `<chart of cell ${i + 1}>` } });
        return { id, cell_type: 'code', execution_count: null, metadata: { vscode: { languageId: 'apl' } }, source: sourceLines(c.text), outputs };
    });
    const ipynb: Ipynb = {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: 'apl', display_name: 'APL', language: 'apl' }, language_info: { name: 'apl' } },
        cells,
    };
    return `${JSON.stringify(ipynb, null, 1)}\n`;
}
