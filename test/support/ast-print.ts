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
