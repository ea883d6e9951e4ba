/**
 * Small shared pieces for the numeric, rounding, datetime, IP and GenAI built-ins: signature
 * builders, return-type rules and value helpers. Internal to `functions-numeric-time-*.ts`.
 */
import type { AplType } from '../types/apl-types.js';
import { Datetime, Timespan, formatDatetime, type AplValue, type JsonValue } from '../values.js';
import type { EvalContext, ParamSpec, ParamType, ReturnRule, ScalarCategory, ScalarFunction, Signature } from './catalogue-types.js';

/** A parameter. `opts` adds `optional`, `variadic`, `constant` or a description. */
export function p(name: string, type: ParamType, opts: Omit<ParamSpec, 'name' | 'type'> = {}): ParamSpec {
    return { name, type, ...opts };
}

export function sig(...params: ParamSpec[]): Signature {
    return { params };
}

type Evaluate = (args: AplValue[], ctx: EvalContext) => AplValue;

/**
 * Null propagation: if any supplied argument is null the result is null. Omitted optional arguments
 * arrive as `undefined` (the array is shorter) and are not nulls.
 */
export function strict(f: Evaluate): Evaluate {
    return (args, ctx) => (args.some(a => a === null) ? null : f(args, ctx));
}

/** The type of argument `i`, or 'unknown'. */
function argType(argTypes: readonly AplType[], i: number): AplType {
    return argTypes[i] ?? 'unknown';
}

/** Returns the type of argument `i` (abs, ceiling, floor, sign, round). */
export function sameAs(i: number): ReturnRule {
    return argTypes => argType(argTypes, i);
}

/**
 * The type two or more numbers combine to: real if any is real, long if all are long, otherwise the
 * first known type (datetime, timespan, string, ...), else 'unknown'.
 */
export function commonType(argTypes: readonly AplType[]): AplType {
    const known = argTypes.filter(t => t !== 'unknown');
    if (known.length === 0) return 'unknown';
    if (known.every(t => t === 'long' || t === 'real')) return known.includes('real') ? 'real' : 'long';
    return known[0];
}

/** True when the evaluator typed the result as a long (decides wrap-around and truncation). */
export function isLongResult(ctx: EvalContext): boolean {
    return ctx.resultType === 'long';
}

/** A number argument, or undefined for anything else (strings, bags, ...). */
export function num(v: AplValue | undefined): number | undefined {
    return typeof v === 'number' ? v : undefined;
}

/** A string argument; dynamic strings count too. */
export function str(v: AplValue | undefined): string | undefined {
    return typeof v === 'string' ? v : undefined;
}

/** A scalar value as it appears inside dynamic: datetimes and timespans become strings. */
export function toJson(v: AplValue): JsonValue {
    if (v instanceof Datetime) return formatDatetime(v.ns);
    if (v instanceof Timespan) return v.toJSON();
    return v;
}

/** A canonical text key for deep equality of dynamic values (object keys sorted). */
export function canonicalKey(v: JsonValue): string {
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    if (Array.isArray(v)) return `[${v.map(canonicalKey).join(',')}]`;
    const keys = Object.keys(v).sort();
    return `{${keys.map(k => `${JSON.stringify(k)}:${canonicalKey(v[k])}`).join(',')}}`;
}

/** Parses a dynamic argument that arrived as JSON text (e.g. a string column holding an array). */
export function asDynamic(v: AplValue): JsonValue | undefined {
    if (v === null) return null;
    if (typeof v === 'string') {
        const t = v.trim();
        if (t.startsWith('[') || t.startsWith('{')) {
            try {
                return JSON.parse(t) as JsonValue;
            } catch {
                return undefined;
            }
        }
        return v;
    }
    if (v instanceof Datetime || v instanceof Timespan) return toJson(v);
    return v;
}

/** A dynamic array argument (or JSON text of one), else undefined. */
export function asArray(v: AplValue): JsonValue[] | undefined {
    const d = asDynamic(v);
    return Array.isArray(d) ? d : undefined;
}

/** Integer part of a long-ish argument (reals are truncated, as KQL's implicit long conversion does). */
export function toInt(v: AplValue | undefined): number | undefined {
    return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

/** Builds entries of one category without repeating `kind` and `category`. */
export function categoryBuilder(category: ScalarCategory): (entry: Omit<ScalarFunction, 'kind' | 'category'>) => ScalarFunction {
    return entry => ({ kind: 'scalar', category, ...entry });
}
