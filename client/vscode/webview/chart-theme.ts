/** The charts' colours and font from VS Code's theme (a webview and a notebook output both have its CSS variables). */
import type { TimeZone } from './cell-format.js';
import type { ChartTheme } from './echarts-option.js';

const PALETTE = ['blue', 'orange', 'green', 'red', 'purple', 'yellow'];
const FALLBACK = ['#3794ff', '#d18616', '#89d185', '#f14c4c', '#b180d7', '#cca700'];

function css(name: string, fallback: string): string {
    return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

export function chartTheme(zone: TimeZone): ChartTheme {
    return {
        foreground: css('--vscode-foreground', '#cccccc'),
        background: css('--vscode-editor-background', '#1e1e1e'),
        grid: css('--vscode-panel-border', '#80808060'),
        fontFamily: css('--vscode-font-family', 'sans-serif'),
        fontSize: parseInt(css('--vscode-font-size', '13px'), 10) || 13,
        palette: PALETTE.map((c, i) => css(`--vscode-charts-${c}`, FALLBACK[i])),
        utc: zone === 'utc',
    };
}
