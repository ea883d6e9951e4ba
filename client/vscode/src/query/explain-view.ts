/**
 * The Explain view's model and page: for each stage of a query, its text, the columns after it and,
 * against the active connection, the rows after it and its first rows. The page is static HTML (no
 * script) under a Content-Security-Policy that allows only its own nonce'd style; every text in it
 * (the query, field names, values from the service) is HTML-escaped.
 */
import { randomBytes } from 'node:crypto';
import type { StageTable } from '../../../../language/explain.js';

export interface ExplainViewStage {
    index: number;
    /** The operator's keyword; undefined for the source. */
    keyword?: string;
    text: string;
    columns: { name: string; type: string }[];
    /** More columns than listed may exist (the schema is not fully known). */
    open: boolean;
    rows?: number;
    error?: string;
    skipped?: boolean;
    sample?: StageTable;
}

/** What `apl.explainQuery` returns and the view shows. */
export interface ExplainSummary {
    /** The document and its block's lines (`q.apl, lines 3–5`). */
    title: string;
    /** Where the stages ran (`test service (http://…)`), or why they did not. */
    ran: string;
    /** How the rows were counted: each stage its own bounded query. */
    note: string;
    /** The time range of the counts (`last 24h`), when they ran. */
    timeRange?: string;
    state: 'schema' | 'running' | 'done' | 'error';
    stages: ExplainViewStage[];
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 12px; }
table { border-collapse: collapse; margin: 6px 0 14px; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border, #8884); vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, td.code { font-family: var(--vscode-editor-font-family); white-space: pre-wrap; }
.note { color: var(--vscode-descriptionForeground); }
.error { color: var(--vscode-errorForeground); }
h2 { font-size: 1.1em; margin: 16px 0 4px; }
`;

export function escapeHtml(text: string): string {
    return text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function columnsText(stage: ExplainViewStage): string {
    const shown = stage.columns.map(c => `${c.name}: ${c.type}`).join(', ');
    return stage.open ? (shown ? `${shown}, …` : '…') : shown;
}

function rowsCell(stage: ExplainViewStage, state: ExplainSummary['state']): string {
    if (stage.rows !== undefined) return stage.rows.toLocaleString('en-US');
    if (stage.error !== undefined) return '<span class="error">failed</span>';
    if (stage.skipped) return 'not run';
    return state === 'running' ? '…' : '';
}

function cellText(v: unknown): string {
    if (v === null || v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
}

function sampleTable(sample: StageTable): string {
    const n = sample.columns?.[0]?.length ?? 0;
    const head = `<tr>${sample.fields.map(f => `<th>${escapeHtml(f.name)}</th>`).join('')}</tr>`;
    const body = Array.from({ length: n }, (_, r) => `<tr>${sample.fields.map((_f, c) => `<td class="code">${escapeHtml(cellText(sample.columns?.[c]?.[r]))}</td>`).join('')}</tr>`).join('');
    return `<table>${head}${body}</table>`;
}

export function explainHtml(summary: ExplainSummary, cspSource: string, nonce: string = randomBytes(16).toString('base64')): string {
    const csp = ["default-src 'none'", `style-src ${cspSource} 'nonce-${nonce}'`].join('; ');
    let previous: string | undefined;
    const rows = summary.stages.map(stage => {
        const columns = columnsText(stage);
        const shown = columns === previous ? '(same)' : `(${stage.columns.length}${stage.open ? '+' : ''}) ${columns}`;
        previous = columns;
        return `<tr><td class="num">${stage.index}</td><td class="code">${escapeHtml(stage.text)}</td><td class="num">${rowsCell(stage, summary.state)}</td><td class="code">${escapeHtml(shown)}</td></tr>`;
    });
    const details = summary.stages.flatMap(stage => {
        if (stage.error !== undefined) return [`<h2>Stage ${stage.index}: <code>${escapeHtml(stage.text)}</code></h2><p class="error">${escapeHtml(stage.error)}</p>`];
        if (!stage.sample) return [];
        const n = stage.sample.columns?.[0]?.length ?? 0;
        return [`<h2>Stage ${stage.index}: <code>${escapeHtml(stage.text)}</code></h2><p class="note">${n} of ${(stage.rows ?? 0).toLocaleString('en-US')} rows</p>${n > 0 ? sampleTable(stage.sample) : ''}`];
    });
    const range = summary.timeRange ? ` over ${escapeHtml(summary.timeRange)}` : '';
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style nonce="${nonce}">${STYLE}</style>
<title>APL Explain</title>
</head>
<body>
<h1>Explain: ${escapeHtml(summary.title)}</h1>
<p class="note">Ran ${escapeHtml(summary.ran)}${range}. ${escapeHtml(summary.note)}</p>
<table>
<tr><th>stage</th><th>operator</th><th>rows</th><th>columns after</th></tr>
${rows.join('\n')}
</table>
${details.join('\n')}
</body>
</html>`;
}
