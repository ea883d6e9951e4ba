/**
 * A notebook exported to files: Markdown (with each chart as an SVG file beside it, linked by a
 * relative path) or Jupyter `.ipynb` (each chart an `image/svg+xml` output). The charts are the
 * cells' own (chart-image.ts), rendered without a DOM, so the extension and the CLI write the same
 * files. Why SVG and not PNG: a PNG needs a rasteriser (a browser canvas, or a native module), and
 * every reader of these files (GitHub's Markdown and notebook views, Jupyter, VS Code) draws SVG.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { ChartData } from '../vscode/src/results/chart-data.js';
import type { AplNotebook } from './aplnb.js';
import { snapshotChart } from './stored-chart.js';
import { notebookToIpynb } from './ipynb.js';
import { notebookToMarkdown } from './markdown.js';

export type ExportKind = 'markdown' | 'ipynb';

export function exportKindOf(path: string): ExportKind | undefined {
    const ext = extname(path).toLowerCase();
    return ext === '.md' || ext === '.markdown' ? 'markdown' : ext === '.ipynb' ? 'ipynb' : undefined;
}

/** The picture of cell `index` (0-based) beside `target`: `report.md` → `report-cell-3.svg`. */
export function chartFileName(target: string, index: number): string {
    return `${basename(target, extname(target))}-cell-${index + 1}.svg`;
}

/** Each APL cell's chart: the caller's (a live run's), else its snapshot's. */
async function cellCharts(notebook: AplNotebook, charts: ReadonlyMap<number, ChartData>): Promise<Map<number, string>> {
    // Loaded when there is something to export: ECharts is not part of every `apl` command's start.
    const { chartSvg } = await import('./chart-image.js');
    const out = new Map<number, string>();
    notebook.cells.forEach((c, i) => {
        if (c.kind !== 'apl' || !c.output || c.output.error) return;
        const data = charts.get(i) ?? snapshotChart(c.output);
        if (data && data.series.length > 0 && data.x.length > 0) out.set(i, chartSvg(data));
    });
    return out;
}

async function writeAtomically(path: string, text: string): Promise<void> {
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
}

/** Writes the export; returns the files written (the document first). */
export async function exportNotebook(notebook: AplNotebook, target: string, kind: ExportKind, charts: ReadonlyMap<number, ChartData> = new Map()): Promise<string[]> {
    const svgs = await cellCharts(notebook, charts);
    await mkdir(dirname(target), { recursive: true });
    if (kind === 'ipynb') {
        await writeAtomically(target, notebookToIpynb(notebook, svgs));
        return [target];
    }
    const links = new Map<number, string>();
    const written: string[] = [];
    for (const [i, svg] of svgs) {
        const name = chartFileName(target, i);
        const path = join(dirname(target), name);
        await writeAtomically(path, svg);
        written.push(path);
        links.set(i, encodeURIComponent(name));
    }
    await writeAtomically(target, notebookToMarkdown(notebook, links));
    return [target, ...written];
}
