/** Every AST node under a parse result, for tests that look for the nodes a generated query holds. */
export interface WalkedNode {
    $type: string;
    [k: string]: unknown;
}

/** Every node under `node`, depth first (properties that start with `$` are Langium's links, not children). */
export function* walkAst(node: unknown): Generator<WalkedNode> {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
        for (const n of node) yield* walkAst(n);
        return;
    }
    const n = node as WalkedNode;
    if (typeof n.$type === 'string') yield n;
    for (const [k, v] of Object.entries(n)) if (!k.startsWith('$')) yield* walkAst(v);
}
