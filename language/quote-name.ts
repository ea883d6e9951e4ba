/** How a name is written in a query (no dependencies: the editor extension bundles this alone). */

/** A plain identifier needs no brackets. */
export function isPlainIdentifier(name: string): boolean {
    return /^[A-Za-z_$][A-Za-z0-9_]*$/.test(name);
}

/** `name` as it must be written in a query: `status` or `['geo.city']`. */
export function quoteName(name: string): string {
    return isPlainIdentifier(name) && !RESERVED.has(name) ? name : `['${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/** Words that cannot stand as a bare column name. */
const RESERVED = new Set(['and', 'or', 'not', 'where', 'project', 'extend', 'summarize', 'by', 'on', 'in', 'has', 'contains', 'let', 'true', 'false', 'null', 'dynamic', 'typeof', 'print', 'union', 'search', 'parse', 'join', 'lookup', 'datatable', 'externaldata', 'between', 'set', 'declare']);
