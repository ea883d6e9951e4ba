/**
 * Flattens a nested event the way ingestion does: nested objects become dotted field names
 * (`{geo: {city}}` -> `geo.city`), except map fields, which stay one field holding the object.
 * Arrays, null and scalars are leaves. Used by tests and by `apl run` over generated samples.
 */
export function flattenEvent(event: Record<string, unknown>, mapFields: ReadonlySet<string> = EMPTY): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    flattenInto(out, event, '', mapFields);
    return out;
}

const EMPTY: ReadonlySet<string> = new Set();

function flattenInto(out: Record<string, unknown>, obj: Record<string, unknown>, prefix: string, mapFields: ReadonlySet<string>): void {
    for (const key of Object.keys(obj)) {
        const name = prefix === '' ? key : `${prefix}.${key}`;
        const value = obj[key];
        if (value !== null && typeof value === 'object' && !Array.isArray(value) && !mapFields.has(name)) {
            flattenInto(out, value as Record<string, unknown>, name, mapFields);
        } else {
            out[name] = value;
        }
    }
}
