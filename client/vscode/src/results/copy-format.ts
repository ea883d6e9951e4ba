/** Rows as text for the clipboard: TSV, CSV, JSON (an array of objects) or a Markdown table. */
import { csvField } from '../../../cli/render.js';

export const COPY_FORMATS = ['tsv', 'csv', 'json', 'markdown'] as const;
export type CopyFormat = (typeof COPY_FORMATS)[number];

function text(v: unknown): string {
    if (v === null || v === undefined) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** `formulaGuard` (`apl.export.csvFormulaGuard`, default on): CSV text that a spreadsheet would run gets a leading `'`. */
export function formatRows(fields: readonly string[], rows: readonly unknown[][], format: CopyFormat, headers: boolean, { formulaGuard = true }: { formulaGuard?: boolean } = {}): string {
    switch (format) {
        case 'json':
            return JSON.stringify(rows.map(r => Object.fromEntries(fields.map((f, i) => [f, r[i] ?? null]))), null, 2);
        case 'csv': {
            const csv = (v: unknown) => csvField(v, formulaGuard);
            const lines = rows.map(r => fields.map((_, i) => csv(r[i])).join(','));
            return (headers ? [fields.map(csv).join(','), ...lines] : lines).join('\n');
        }
        case 'tsv': {
            const cell = (v: unknown) => text(v).replace(/[\t\r\n]+/g, ' ');
            const lines = rows.map(r => fields.map((_, i) => cell(r[i])).join('\t'));
            return (headers ? [fields.map(cell).join('\t'), ...lines] : lines).join('\n');
        }
        case 'markdown': {
            const cell = (v: unknown) => text(v).replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
            const lines = rows.map(r => `| ${fields.map((_, i) => cell(r[i])).join(' | ')} |`);
            // A Markdown table needs a header row; without headers it gets empty ones.
            const head = `| ${fields.map(f => (headers ? cell(f) : ' ')).join(' | ')} |`;
            const rule = `| ${fields.map(() => '---').join(' | ')} |`;
            return [head, rule, ...lines].join('\n');
        }
    }
}
