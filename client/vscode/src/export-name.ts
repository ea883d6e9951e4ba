/** The file name Export proposes: what the result is of and when it ran, e.g. `sample-http-logs-2026-11-28T0312.csv`. */

export function exportFileName(datasets: readonly string[], ranAt: Date, format: string): string {
    // Characters a file name cannot hold on some system (Windows is the strictest) become '-'.
    const base = (datasets.length > 0 ? datasets.join('+') : 'apl-results').replace(/[\\/:*?"<>|\s]+/g, '-');
    const stamp = ranAt.toISOString().slice(0, 16).replace(':', '');
    return `${base}-${stamp}.${format}`;
}
