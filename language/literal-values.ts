/**
 * The values of literal AST nodes. The parser keeps literal tokens as raw text; everyone who needs a
 * literal's value (type computer, evaluator, legacy compiler) reads it through here.
 */
import type { Literal } from './generated/ast.js';
import { Datetime, Timespan, parseDatetime, parseTimespanLiteral, type AplValue } from './values.js';
import type { AplType } from './types/apl-types.js';

export class LiteralError extends Error {}

export function literalType(node: Literal): AplType {
    switch (node.$type) {
        case 'StringLiteral': return 'string';
        case 'LongLiteral': return 'long';
        case 'RealLiteral': return 'real';
        case 'TimespanLiteral': return 'timespan';
        case 'DatetimeLiteral': return 'datetime';
        case 'BooleanLiteral': return 'bool';
        case 'NullLiteral': return 'dynamic';
    }
}

/** Throws LiteralError with a readable message for malformed literal text (e.g. `datetime(2024-13-45)`). */
export function literalValue(node: Literal): AplValue {
    switch (node.$type) {
        case 'StringLiteral': return node.value;
        case 'LongLiteral': return parseLongText(node.value);
        case 'RealLiteral': return Number(node.value);
        case 'TimespanLiteral': {
            const ns = parseTimespanLiteral(node.value);
            if (ns === undefined) throw new LiteralError(`'${node.value}' is not a valid timespan`);
            return new Timespan(ns);
        }
        case 'DatetimeLiteral': return datetimeLiteralValue(node.value);
        case 'BooleanLiteral': return node.value === 'true';
        case 'NullLiteral': return null;
    }
}

export function parseLongText(text: string): number {
    return /^0[xX]/.test(text) ? Number(BigInt.asIntN(64, BigInt(text))) : Number(text);
}

/** `datetime(2024-01-15T14:00:00Z)`, `datetime('2022-09-16')`, `datetime(null)`. */
export function datetimeLiteralValue(raw: string): Datetime | null {
    let inner = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')')).trim();
    if (/^(['"]).*\1$/.test(inner)) inner = inner.slice(1, -1);
    if (inner === 'null') return null;
    const ns = parseDatetime(inner);
    if (ns === undefined) throw new LiteralError(`'${inner}' is not a valid datetime`);
    return new Datetime(ns);
}
