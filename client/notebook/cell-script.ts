/**
 * A notebook is one script in cell order: an APL cell runs with the `let`, `set` and `declare`
 * statements of the APL cells above it, and a cell whose first line is `// as NAME` lends its result
 * to the cells below as `NAME` (a `let NAME = (<its query>);` in their script, so the service, or the
 * reference evaluator, runs the named query as part of the later one: no result is held between
 * cells, and a later cell always sees current data). Positions in the script map back to the cell by
 * the prefix's line count.
 */
import { parse } from '../../language/apl-parse.js';
import type { NotebookCell } from './aplnb.js';

export interface CellScript {
    /** The text to run: the prelude, then the cell's own text. */
    text: string;
    /** Lines before the cell's first line in `text`. */
    preludeLines: number;
}

const AS_NAME = /^\s*\/\/\s*as\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/;

/** The name a cell lends its result under (`// as recent` on its first line), if any. */
export function resultName(text: string): string | undefined {
    const first = text.split('\n', 1)[0];
    return AS_NAME.exec(first)?.[1];
}

/** The statements a cell contributes to the cells below it, each ending in `;`. */
export function cellPrelude(text: string): string[] {
    const { model, problems } = parse(text);
    if (problems.length > 0) return [];
    const out: string[] = [];
    let query: string | undefined;
    for (const st of model.statements) {
        const node = st.$cstNode;
        if (!node) continue;
        const source = text.slice(node.offset, node.end).trim().replace(/;\s*$/, '');
        if (st.$type === 'QueryStatement') query ??= source;
        else out.push(`${source};`);
    }
    const name = resultName(text);
    if (name !== undefined && query !== undefined) out.push(`let ${name} = (${query});`);
    return out;
}

/** The script that cell `index` of `cells` runs. */
export function cellScript(cells: readonly NotebookCell[], index: number): CellScript {
    const prelude = cells
        .slice(0, index)
        .filter(c => c.kind === 'apl')
        .flatMap(c => cellPrelude(c.text));
    if (prelude.length === 0) return { text: cells[index].text, preludeLines: 0 };
    const head = `${prelude.join('\n')}\n`;
    return { text: head + cells[index].text, preludeLines: head.split('\n').length - 1 };
}

/** A 1-based line of the script, in the cell's own text (undefined when it falls in the prelude). */
export function cellLine(script: CellScript, line: number): number | undefined {
    const inCell = line - script.preludeLines;
    return inCell >= 1 ? inCell : undefined;
}
