/**
 * THE catalogue of built-ins: one lookup over every scalar function, aggregation, scalar operator
 * and tabular operator. Everything that needs to know a built-in reads it from here.
 */
import type { AggregateFunction, ParamSpec, ScalarFunction, ScalarOperatorEntry, Signature, TabularOperatorEntry } from './catalogue-types.js';
import { FUNCTIONS as TEXT_FUNCTIONS } from './functions-text.js';
import { FUNCTIONS as NUMERIC_TIME_FUNCTIONS } from './functions-numeric-time.js';
import { FUNCTIONS as COLLECTION_FUNCTIONS } from './functions-collections.js';
import { TYPE_CAST_FUNCTIONS } from './type-casts.js';
import { AGGREGATES } from './aggregates.js';
import { SCALAR_OPERATORS, TABULAR_OPERATORS } from './operators.js';

export * from './catalogue-types.js';
/** What the evaluator runs with, besides the catalogue entries themselves. */
export { compileRegex, quoteMeta, toText, type LinearRegex } from './functions-text-helpers.js';
export { autoBinSizeFor } from './functions-numeric-time-rounding.js';
export { castToType } from './type-casts.js';
export { nearestRank } from './aggregates.js';

export const SCALAR_FUNCTIONS: readonly ScalarFunction[] = [...TEXT_FUNCTIONS, ...NUMERIC_TIME_FUNCTIONS, ...COLLECTION_FUNCTIONS, ...TYPE_CAST_FUNCTIONS];
export { AGGREGATES, SCALAR_OPERATORS, TABULAR_OPERATORS };

function indexByName<T extends { name: string; aliases?: string[] }>(entries: readonly T[]): Map<string, T> {
    const map = new Map<string, T>();
    for (const e of entries) {
        for (const n of [e.name, ...(e.aliases ?? [])]) {
            if (map.has(n)) throw new Error(`catalogue: '${n}' is listed twice`);
            map.set(n, e);
        }
    }
    return map;
}

const scalarByName = indexByName(SCALAR_FUNCTIONS);
const aggregateByName = indexByName(AGGREGATES);
const tabularByName = indexByName(TABULAR_OPERATORS);
const operatorByName = new Map(SCALAR_OPERATORS.map(o => [o.name, o] as const));

export function lookupScalarFunction(name: string): ScalarFunction | undefined {
    return scalarByName.get(name);
}

export function lookupAggregate(name: string): AggregateFunction | undefined {
    return aggregateByName.get(name);
}

export function lookupTabularOperator(name: string): TabularOperatorEntry | undefined {
    return tabularByName.get(name);
}

export function lookupScalarOperator(name: string): ScalarOperatorEntry | undefined {
    return operatorByName.get(name);
}

/** Every callable name (functions, aggregations and their aliases), for "did you mean". */
export function allCallableNames(): string[] {
    return [...scalarByName.keys(), ...aggregateByName.keys()];
}

/** The fewest and most arguments a signature takes (Infinity when variadic). */
export function arityOf(sig: Signature): { min: number; max: number } {
    const required = sig.params.filter((p: ParamSpec) => !p.optional && !p.variadic).length;
    const variadic = sig.params.some(p => p.variadic);
    return {
        min: sig.arity?.min ?? required,
        max: sig.arity?.max ?? (variadic ? Infinity : sig.params.length),
    };
}

/** Whether `count` arguments fit one of the entry's signatures. */
export function acceptsArgumentCount(entry: { signatures: Signature[] }, count: number): boolean {
    return entry.signatures.some(sig => {
        const { min, max } = arityOf(sig);
        if (count < min || count > max) return false;
        if (sig.arity?.parity === 'odd' && count % 2 === 0) return false;
        if (sig.arity?.parity === 'even' && count % 2 === 1) return false;
        return true;
    });
}

/** What the signatures take, for the wrong-argument-count message (APL0002) of the checker and the evaluator. */
export function describeArity(signatures: Signature[]): string {
    const parts = signatures.map(s => {
        const { min, max } = arityOf(s);
        // `case(c1, v1, c2, v2)` is not short of arguments: it lacks the else value. Say what the arguments are.
        if (s.arity?.shape) return `${s.arity.shape} (${s.arity.parity ? `an ${s.arity.parity} number of arguments, ` : ''}at least ${min})`;
        if (max === Infinity) return `at least ${min}`;
        return min === max ? `${min}` : `${min} to ${max}`;
    });
    const unique = [...new Set(parts)];
    const text = unique.join(' or ');
    return signatures.some(s => s.arity?.shape) ? text : `${text} argument${text === '1' ? '' : 's'}`;
}

/** Renders a signature as `name(a: string, [b: long], c...)` for hover and signature help. */
export function formatSignature(name: string, sig: Signature): string {
    const params = sig.params.map(p => {
        const text = `${p.name}: ${p.type}${p.variadic ? ', ...' : ''}`;
        return p.optional ? `[${text}]` : text;
    });
    return `${name}(${params.join(', ')})`;
}

/** The declared type of argument `index` under a signature (the last variadic one repeats). */
export function paramTypeAt(sig: Signature, index: number): ParamSpec['type'] | undefined {
    if (index < sig.params.length) return sig.params[index].type;
    const last = sig.params[sig.params.length - 1];
    return last?.variadic ? last.type : undefined;
}

const NUMBER_PARAMS = new Set<ParamSpec['type']>(['number', 'long', 'real', 'numeric_or_time']);

/**
 * THE argument-type rule, for the checker and the evaluator alike: the first argument that no
 * signature taking this many arguments accepts, or undefined. Only certain mismatches count (a
 * string where a number is required); `unknown` and `dynamic` fit anything.
 */
export function argumentTypeProblem(signatures: readonly Signature[], argTypes: readonly string[]): { index: number; expected: 'a number' | 'a number, datetime or timespan' } | undefined {
    let first: { index: number; param: ParamSpec['type'] } | undefined;
    for (const sig of signatures) {
        const { min, max } = arityOf(sig);
        if (argTypes.length < min || argTypes.length > max) continue;
        const bad = argTypes.findIndex((t, i) => {
            const param = paramTypeAt(sig, i);
            return param !== undefined && NUMBER_PARAMS.has(param) && t === 'string';
        });
        if (bad < 0) return undefined;
        first ??= { index: bad, param: paramTypeAt(sig, bad)! };
    }
    if (!first) return undefined;
    return { index: first.index, expected: first.param === 'numeric_or_time' ? 'a number, datetime or timespan' : 'a number' };
}
