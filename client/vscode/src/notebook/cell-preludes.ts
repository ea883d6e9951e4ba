/**
 * What the language server needs to check each APL cell of a notebook as part of the one script the
 * notebook is (client/notebook/cell-script.ts): the prelude (the statements of the cells above) and
 * the names that only cells below define, so a use of one is reported as such (APL0050).
 */
import type { NotebookCell } from '../../../notebook/aplnb.js';
import { cellPrelude, cellScript } from '../../../notebook/cell-script.js';

export interface CellPreludeInfo {
    /** Index of the cell in the notebook. */
    index: number;
    prelude: string;
    /** Names first defined by a cell below, with that cell's 1-based number. */
    later: { name: string; cell: number }[];
}

const LET_NAME = /^let\s+([A-Za-z_][A-Za-z0-9_]*)\s*=/;

function definedBy(cell: NotebookCell): string[] {
    if (cell.kind !== 'apl') return [];
    return cellPrelude(cell.text).flatMap(s => LET_NAME.exec(s)?.[1] ?? []);
}

export function cellPreludes(cells: readonly NotebookCell[]): CellPreludeInfo[] {
    const defined = cells.map(definedBy);
    const out: CellPreludeInfo[] = [];
    cells.forEach((cell, index) => {
        if (cell.kind !== 'apl') return;
        const script = cellScript(cells, index);
        const prelude = script.text.slice(0, script.text.length - cell.text.length);
        const seen = new Set(defined.slice(0, index + 1).flat());
        const later = new Map<string, number>();
        for (let j = index + 1; j < cells.length; j++) for (const name of defined[j]) if (!seen.has(name) && !later.has(name)) later.set(name, j + 1);
        out.push({ index, prelude, later: [...later].map(([name, n]) => ({ name, cell: n })) });
    });
    return out;
}
