/**
 * The nested values of a JSON cell with their paths, as APL writes them: `['geo']['city']`,
 * `['tags'][0]` (the column's name first, every key through the one quoting helper, so any key
 * reads back exactly). The row details list them to copy a value or its path.
 */
import { bracketName, quoteString } from '../../../../language/quote-name.js';

export interface JsonLeaf {
    path: string;
    /** The keys under the column (`['geo']['city']`: ['city']). */
    keys: (string | number)[];
    /** How deep under the column (1: a key of the cell). */
    depth: number;
    value: unknown;
}

/** Every nested value of `value` under column `column` (objects and arrays too, before their members), up to `limit`. */
export function jsonLeaves(column: string, value: unknown, limit = 500): JsonLeaf[] {
    const out: JsonLeaf[] = [];
    const walk = (v: unknown, path: string, keys: (string | number)[]) => {
        if (out.length >= limit) return;
        if (keys.length > 0) out.push({ path, keys, depth: keys.length, value: v });
        if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, [...keys, i]));
        else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}[${quoteString(k)}]`, [...keys, k]);
    };
    walk(value, bracketName(column), []);
    return out;
}
