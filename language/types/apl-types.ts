/**
 * The APL type system: the scalar types of KQL/APL plus the two helper kinds the
 * analyser needs ('unknown' when nothing certain is known, 'table' for tabular values).
 */
export type AplScalarType = 'string' | 'long' | 'real' | 'bool' | 'datetime' | 'timespan' | 'dynamic';
export type AplType = AplScalarType | 'unknown';

export const SCALAR_TYPES: readonly AplScalarType[] = ['string', 'long', 'real', 'bool', 'datetime', 'timespan', 'dynamic'];

/** Type names as written in APL (`typeof(int)`, `x:string`, `long(null)`) and what they mean. */
export const TYPE_NAME_ALIASES: Readonly<Record<string, AplScalarType>> = {
    string: 'string',
    long: 'long',
    int: 'long',
    int64: 'long',
    int32: 'long',
    real: 'real',
    double: 'real',
    float: 'real',
    decimal: 'real',
    bool: 'bool',
    boolean: 'bool',
    datetime: 'datetime',
    date: 'datetime',
    timespan: 'timespan',
    time: 'timespan',
    dynamic: 'dynamic',
};

export function typeFromName(name: string): AplScalarType | undefined {
    return Object.prototype.hasOwnProperty.call(TYPE_NAME_ALIASES, name) ? TYPE_NAME_ALIASES[name] : undefined;
}

export function isNumeric(t: AplType): boolean {
    return t === 'long' || t === 'real';
}

/** A column of a row type: the fields in scope after a tabular operator. */
export interface ColumnType {
    name: string;
    type: AplType;
}

/** The row type after a pipeline stage. `open` means more fields may exist than are listed (unknown schema). */
export interface RowType {
    columns: ColumnType[];
    open: boolean;
}

/**
 * Field types as Axiom reports them (`string`, `integer`, `float`, `boolean`, `datetime`, `timespan`,
 * `map`, `array`, and unions like `integer|float`) mapped to APL types.
 */
export function typeFromAxiomFieldType(axiomType: string): AplType {
    const parts = axiomType.split('|').map(p => p.trim()).filter(p => p.length > 0);
    if (parts.length === 0) return 'unknown';
    const mapped = new Set(parts.map(mapOneAxiomType));
    if (mapped.size === 1) return [...mapped][0];
    // integer|float is a number that may be real; any other union is dynamic.
    if ([...mapped].every(t => t === 'long' || t === 'real')) return 'real';
    return 'dynamic';
}

function mapOneAxiomType(t: string): AplType {
    switch (t) {
        case 'string': return 'string';
        case 'integer': case 'int': case 'long': return 'long';
        case 'float': case 'float64': case 'real': case 'double': return 'real';
        case 'boolean': case 'bool': return 'bool';
        case 'datetime': return 'datetime';
        case 'timespan': return 'timespan';
        case 'map': case 'array': case 'object': case 'dynamic': return 'dynamic';
        default: return 'unknown';
    }
}

/** The reverse direction, for result `fields[].type`. */
export function axiomFieldType(t: AplType): string {
    switch (t) {
        case 'string': return 'string';
        case 'long': return 'integer';
        case 'real': return 'float';
        case 'bool': return 'boolean';
        case 'datetime': return 'datetime';
        case 'timespan': return 'timespan';
        case 'dynamic': return 'unknown';
        default: return 'unknown';
    }
}
