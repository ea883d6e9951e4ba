import type { AstNode } from 'langium';
import type * as ast from '../../language/generated/ast.js';

/** Prints an expression as a fully bracketed tree, so precedence is visible in test expectations. */
export function bracketed(node: AstNode | undefined): string {
    if (!node) return '?';
    const n = node as ast.Expression;
    switch (n.$type) {
        case 'BinaryExpression': return `(${bracketed(n.left)} ${n.operator} ${bracketed(n.right)})`;
        case 'UnaryExpression': return `(${n.operator}${bracketed(n.operand)})`;
        case 'NotExpression': return `(not ${bracketed(n.operand)})`;
        case 'InExpression': return `(${bracketed(n.left)} ${n.operator} [${n.items.map(bracketed).join(', ')}])`;
        case 'BetweenExpression': return `(${bracketed(n.left)} ${n.operator} [${bracketed(n.low)} .. ${bracketed(n.high)}])`;
        case 'ParenthesizedExpression': return bracketed(n.expression);
        case 'NameReference': return n.name;
        case 'BracketReference': return `['${n.name}']`;
        case 'MemberAccess': return `${bracketed(n.receiver)}.${n.member ?? `['${n.bracketMember}']`}`;
        case 'IndexAccess': return `${bracketed(n.receiver)}[${n.bracketIndex !== undefined ? `'${n.bracketIndex}'` : bracketed(n.index)}${n.slice ? `:${n.sliceEnd ? bracketed(n.sliceEnd) : ''}` : ''}]`;
        case 'FunctionCall': return `${n.function}(${n.arguments.map(a => (a.name ? `${a.name}=` : '') + bracketed(a.expression)).join(', ')})`;
        case 'StarExpression': return '*';
        case 'StringLiteral': return JSON.stringify(n.value);
        case 'LongLiteral': case 'RealLiteral': case 'TimespanLiteral': case 'DatetimeLiteral': return n.value;
        case 'BooleanLiteral': return n.value;
        case 'NullLiteral': return 'null';
        case 'DynamicLiteral': return 'dynamic(...)';
        case 'TypeofLiteral': return `typeof(${n.type})`;
        default: return `<${n.$type}>`;
    }
}

/**
 * A plain-data copy of a syntax tree: each node's type, own properties and text range, without the
 * links back to parents, CST and document. Two parsers gave the same tree iff the snapshots are equal.
 */
export function astSnapshot(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(astSnapshot);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as AstNode;
    const snapshot: Record<string, unknown> = { $type: node.$type, $range: node.$cstNode && [node.$cstNode.offset, node.$cstNode.length] };
    for (const [key, property] of Object.entries(node)) {
        if (!key.startsWith('$')) snapshot[key] = astSnapshot(property);
    }
    return snapshot;
}
