/**
 * Event normalisation (API.md §3.5): `_time` selection, flattening, reserved names, labels, limits.
 *
 * OUTPUT FORM (compact, columnar per batch): `NormalizedEvents` = `times: BigInt64Array` (the `_time`
 * of each event, ns since the epoch) + `fields: FlatFields[]` (one flat object per event, WITHOUT
 * `_time`; keys may contain dots). `_sysTime` is one value per batch (the ingest time), kept by the
 * caller. Flat objects are the parsed objects themselves whenever nothing needs changing (no nested
 * object, no null, no reserved name, no `_time`), so the common path allocates nothing per event.
 *
 * DECISIONS
 * - `_time` comes from `timestamp-field` (default `_time`) only. Other names (`time`, `timestamp`,
 *   `@timestamp`) are NOT used automatically: API.md §3.5 says so explicitly (go integration suite).
 *   A dotted `timestamp-field` (`meta.ts`) also finds a nested value.
 * - A missing or null time field → the server receive time. A present value that cannot be parsed →
 *   the event fails alone ("cannot parse timestamp …"), it is not silently re-timed.
 * - Numbers (and all-digit strings) are Unix epochs; the unit is chosen by magnitude:
 *   |v| < 1e11 → seconds (fractions kept), < 1e14 → ms, < 1e17 → µs, else ns.
 * - `timestamp-format` is a Go layout (see go-layout.ts); if the value does not match the layout the
 *   heuristics are tried before failing the event.
 * - U3: when `timestamp-field` names another field (`ts`), that field is KEPT as a normal field (lossless);
 *   an `_time` key in the event is then dropped (the chosen time wins).
 * - Flattening: nested objects become dotted names at every depth (`{a:{b:{c:1}}}` → `a.b.c`).
 *   Arrays are values and are not looked into (objects inside arrays stay as they are). A dotted
 *   prefix that is a declared map field (`/mapfields`, e.g. `foo` or `foo.bar`) stops flattening:
 *   the whole object is stored as one dynamic value. An empty nested object contributes no field.
 * - Limits (limits.ts): an event nested deeper than 100 levels (objects and arrays together, the
 *   event itself being level 1), or with more than 1,024 fields after flattening, FAILS alone with a
 *   reason naming the field: nothing of it is cut or dropped silently. (Axiom cuts objects nested
 *   past 100 levels to null; failing instead says what happened.) The checks stop at the limit, so
 *   a hostile event costs no more than its own size.
 * - `_time` must be a representable time (limits.ts: 1677-09-21 to 2262-04-11, int64 ns); a
 *   time outside fails the event, naming the field and the value, instead of wrapping around.
 * - Null values are dropped (in a columnar store a null and a missing field are the same thing).
 * - Reserved names `_blockInfo`, `_cursor`, `_rowID`, `_source`, `_sysTime` are renamed to
 *   `_user_<name without the underscore>` (docs: `_sysTime` → `_user_sysTime`).
 * - Strings longer than 1 MB become `<invalid string: too long>`; ±Infinity (JSON `1e999`) becomes null.
 * - Labels (`X-Axiom-Event-Labels`) are flattened the same way and set on every event; a label
 *   overrides an event field of the same name (labels are request-level metadata).
 */
import type { JsonValue } from '../values.js';
import { daysInMonth, parseDatetime } from '../values.js';
import { daysFromCivil } from '../builtins/time-parts.js';
import { IngestError } from './errors.js';
import { parseGoLayout } from './go-layout.js';
import { MAX_FIELDS_PER_EVENT, MAX_NESTING, MAX_TIME_NS, MIN_TIME_NS, TIME_RANGE_TEXT } from './limits.js';
import type { EventFailure, RawEvent } from './parse-events.js';

export type FlatFields = Record<string, JsonValue>;

export interface NormalizedEvents {
    /** `_time` per event, ns since the epoch. */
    times: BigInt64Array;
    /** Flat fields per event (no `_time`, no `_sysTime`). Treat as read-only. */
    fields: FlatFields[];
    /** Events that failed normalisation (index = position in the parsed event list). */
    failures: EventFailure[];
}

export interface NormalizeOptions {
    timestampField?: string | null;
    /** Fields tried in order when an event lacks `timestampField` (the engine's option; the service sends none). */
    timestampFallbacks?: readonly string[] | null;
    timestampFormat?: string | null;
    /** Already parsed with parseEventLabels. */
    labels?: FlatFields | null;
    mapFields?: ReadonlySet<string> | null;
    /** Used for events without a time. */
    receiveTimeNs: bigint;
}

export const RESERVED_FIELDS: ReadonlySet<string> = new Set(['_blockInfo', '_cursor', '_rowID', '_source', '_sysTime']);
/** Longest string stored as sent (UTF-8 bytes); a longer one becomes TOO_LONG. */
export const MAX_STRING_BYTES = 1024 * 1024;

/** Why one event cannot be stored (thrown while flattening, caught per event). */
class EventRejected extends Error {}

function tooDeep(name: string): EventRejected {
    return new EventRejected(`field "${name}" is nested more than ${MAX_NESTING} levels deep (objects and arrays); at most ${MAX_NESTING} levels are stored`);
}

function tooWide(count: number | string): EventRejected {
    return new EventRejected(`the event has ${count} fields after flattening; at most ${MAX_FIELDS_PER_EVENT} fields per event are stored`);
}

/**
 * True when `v` (a container at nesting `level`) holds no container deeper than MAX_NESTING. The
 * recursion stops at the limit, so it is bounded whatever the input.
 */
function withinNesting(v: object, level: number): boolean {
    if (level > MAX_NESTING) return false;
    if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
            const e: unknown = v[i];
            if (typeof e === 'object' && e !== null && !withinNesting(e, level + 1)) return false;
        }
    } else {
        for (const k in v) {
            const e = (v as Record<string, unknown>)[k];
            if (typeof e === 'object' && e !== null && !withinNesting(e, level + 1)) return false;
        }
    }
    return true;
}
export const TOO_LONG = '<invalid string: too long>';

export function renameReserved(name: string): string {
    return RESERVED_FIELDS.has(name) ? `_user_${name.slice(1)}` : name;
}

/** Parses the `X-Axiom-Event-Labels` header (a JSON object) into flat fields. Throws 400. */
export function parseEventLabels(header: string | undefined | null): FlatFields | null {
    if (header === undefined || header === null || header.trim() === '') return null;
    let v: unknown;
    try {
        v = JSON.parse(header);
    } catch (err) {
        throw new IngestError(400, `invalid X-Axiom-Event-Labels header: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        throw new IngestError(400, 'invalid X-Axiom-Event-Labels header: must be a JSON object');
    }
    try {
        return flattenLabels(v as Record<string, unknown>);
    } catch (err) {
        if (err instanceof EventRejected) throw new IngestError(400, `invalid X-Axiom-Event-Labels header: ${err.message}`);
        throw err;
    }
}

/** Labels added to every event, flattened like an event (the header's object, or the engine's option). */
export function flattenLabels(labels: Record<string, unknown>): FlatFields {
    const out: FlatFields = {};
    flattenInto(out, '', labels, 1, null);
    return out;
}

/**
 * One event flattened exactly as ingest stores it (dotted names, reserved names renamed, nulls
 * dropped, `_time` kept as given), for tests and tools that show events the way queries see them.
 */
export function flattenEvent(event: Record<string, unknown>, mapFields: ReadonlySet<string> | null = null): FlatFields {
    const out: FlatFields = {};
    flattenInto(out, '', event, 1, mapFields);
    if (event._time !== undefined && event._time !== null) out._time = event._time as JsonValue;
    return out;
}

function isLongString(s: string): boolean {
    return s.length > MAX_STRING_BYTES / 3 && Buffer.byteLength(s) > MAX_STRING_BYTES;
}

/**
 * Dotted names `prefix.key`, memoised per batch: events of one batch mostly share their nested
 * keys, and a memoised name is also an already-internalised property key for `out[name]`.
 */
type NameCache = Map<string, Map<string, string>>;

function childName(cache: NameCache | null, prefix: string, key: string): string {
    if (cache === null) return `${prefix}.${key}`;
    let m = cache.get(prefix);
    if (m === undefined) {
        m = new Map();
        cache.set(prefix, m);
    }
    let name = m.get(key);
    if (name === undefined) {
        name = `${prefix}.${key}`;
        m.set(key, name);
    }
    return name;
}

/** Counts the fields written by `flattenInto`, failing the event past MAX_FIELDS_PER_EVENT. */
interface FieldBudget {
    left: number;
}

/**
 * Copies `obj` (a container at nesting `level`; the event is level 1) into `out` with dotted
 * names, applying every rule above. Throws EventRejected past a limit.
 */
function flattenInto(
    out: FlatFields,
    prefix: string,
    obj: Record<string, unknown>,
    level: number,
    mapFields: ReadonlySet<string> | null | undefined,
    names: NameCache | null = null,
    budget: FieldBudget = { left: MAX_FIELDS_PER_EVENT },
): void {
    for (const k in obj) {
        const v = obj[k];
        if (v === null || v === undefined) continue;
        if (prefix === '' && k === '_time') continue; // becomes the record's _time
        const name = prefix === '' ? (k.charCodeAt(0) === 95 /* _ */ ? renameReserved(k) : k) : childName(names, prefix, k);
        if (typeof v === 'object') {
            const stored = Array.isArray(v) || (mapFields !== null && mapFields !== undefined && mapFields.has(name));
            if (!stored) {
                if (level + 1 > MAX_NESTING) throw tooDeep(name);
                flattenInto(out, name, v as Record<string, unknown>, level + 1, mapFields, names, budget);
                continue;
            }
            if (!withinNesting(v, level + 1)) throw tooDeep(name);
            out[name] = v as JsonValue;
        } else if (typeof v === 'string') {
            out[name] = isLongString(v) ? TOO_LONG : v;
        } else if (typeof v === 'number') {
            if (!Number.isFinite(v)) continue;
            out[name] = v;
        } else if (typeof v === 'boolean') {
            out[name] = v;
        } else continue;
        if (--budget.left < 0) throw tooWide(`more than ${MAX_FIELDS_PER_EVENT}`);
    }
}

const NS_PER_SEC = 1_000_000_000n;

/** Epoch number → ns, with the unit chosen by magnitude. */
export function epochToNs(v: number): bigint | undefined {
    if (!Number.isFinite(v)) return undefined;
    const a = Math.abs(v);
    if (a < 1e11) {
        const s = Math.floor(v);
        return BigInt(s) * NS_PER_SEC + BigInt(Math.round((v - s) * 1e9));
    }
    if (a < 1e14) {
        const ms = Math.floor(v);
        return BigInt(ms) * 1_000_000n + BigInt(Math.round((v - ms) * 1e6));
    }
    if (a < 1e17) {
        const us = Math.floor(v);
        return BigInt(us) * 1_000n + BigInt(Math.round((v - us) * 1e3));
    }
    return BigInt(Math.round(v));
}

/** RFC 3339 texts up to this length are read from one scratch array (nine fraction digits and an offset take 35). */
const RFC3339_MAX = 64;
const rfc3339Scratch = new Uint8Array(RFC3339_MAX);

/**
 * Fast path for `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; undefined when the string is not exactly
 * that. The characters are copied to bytes and read by `parseRfc3339Bytes`: one parser for both.
 */
function parseRfc3339Fast(s: string): bigint | undefined {
    const n = s.length;
    if (n < 20) return undefined;
    const bytes = n <= RFC3339_MAX ? rfc3339Scratch : new Uint8Array(n); // (any number of fraction digits)
    for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) return undefined;
        bytes[i] = c;
    }
    return parseRfc3339Bytes(bytes, 0, n);
}

function b2(b: Uint8Array, i: number): number {
    const x = b[i] - 48;
    const y = b[i + 1] - 48;
    return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` in the bytes `b[s, e)` (ingest's byte scanner reads
 * `_time` without making a string); undefined when the bytes are not exactly that form.
 */
export function parseRfc3339Bytes(b: Uint8Array, s: number, e: number): bigint | undefined {
    if (!parseRfc3339Parts(b, s, e, rfc3339Parts)) return undefined;
    return BigInt(rfc3339Parts[0]) * NS_PER_SEC + BigInt(rfc3339Parts[1]);
}
const rfc3339Parts = new Float64Array(2);

/**
 * `parseRfc3339Bytes` without a BigInt: the time as whole seconds since the epoch (`out[0]`) and
 * nanoseconds past them (`out[1]`, 0 to 999,999,999); false when the bytes are not that form.
 */
export function parseRfc3339Parts(b: Uint8Array, s: number, e: number, out: Float64Array): boolean {
    const n = e - s;
    if (n < 20 || b[s + 4] !== 45 || b[s + 7] !== 45 || b[s + 13] !== 58 || b[s + 16] !== 58) return false;
    const t = b[s + 10];
    if (t !== 84 && t !== 116 && t !== 32) return false;
    const y1 = b2(b, s);
    const y2 = b2(b, s + 2);
    const mo = b2(b, s + 5);
    const d = b2(b, s + 8);
    const h = b2(b, s + 11);
    const mi = b2(b, s + 14);
    const se = b2(b, s + 17);
    if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y1 * 100 + y2, mo) || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60) return false;
    let i = s + 19;
    let nanos = 0;
    if (i < e && b[i] === 46) {
        i++;
        let digits = 0;
        for (; i < e; i++) {
            const c = b[i] - 48;
            if (c < 0 || c > 9) break;
            if (digits < 9) nanos = nanos * 10 + c;
            digits++;
        }
        if (digits === 0) return false;
        for (let k = digits; k < 9; k++) nanos *= 10;
    }
    let offsetMin = 0;
    const z = i < e ? b[i] : -1;
    if (z === 90 || z === 122) {
        if (i + 1 !== e) return false;
    } else if (z === 43 || z === 45) {
        if (i + 6 !== e || b[i + 3] !== 58) return false;
        const oh = b2(b, i + 1);
        const om = b2(b, i + 4);
        if (oh < 0 || om < 0) return false;
        offsetMin = (oh * 60 + om) * (z === 45 ? -1 : 1);
    } else return false;
    // What Date.UTC gives (second 60 included: the next minute's second 0), without calling it:
    // exact integer arithmetic for every year 0000-9999, and cheaper per event.
    out[0] = daysFromCivil(y1 * 100 + y2, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offsetMin * 60;
    out[1] = nanos;
    return true;
}

const DIGITS = /^-?\d+(\.\d+)?$/;

/** Parses one time value: a number (epoch), or a string (Go layout if given, then heuristics). */
export function parseTimeValue(v: unknown, layout?: string | null): bigint | undefined {
    if (typeof v === 'number') return epochToNs(v);
    if (typeof v !== 'string') return undefined;
    if (layout) {
        const t = parseGoLayout(v, layout);
        if (t !== undefined) return t;
    }
    const fast = parseRfc3339Fast(v);
    if (fast !== undefined) return fast;
    const s = v.trim();
    if (DIGITS.test(s)) return epochToNs(Number(s));
    return parseDatetime(s) ?? parseCommonLayouts(s);
}

/** A few non-ISO layouts log shippers commonly send (Apache/nginx CLF, RFC 1123 with numeric zone). */
const COMMON_LAYOUTS = ['02/Jan/2006:15:04:05 -0700', 'Mon, 02 Jan 2006 15:04:05 -0700', 'Mon, 02 Jan 2006 15:04:05 MST', '2006/01/02 15:04:05'];
function parseCommonLayouts(s: string): bigint | undefined {
    for (const l of COMMON_LAYOUTS) {
        const t = parseGoLayout(s, l);
        if (t !== undefined) return t;
    }
    return undefined;
}

function lookupPath(ev: RawEvent, path: string): unknown {
    let v: unknown = ev[path];
    if (v !== undefined || !path.includes('.')) return v;
    v = ev;
    for (const part of path.split('.')) {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
        v = (v as Record<string, unknown>)[part];
    }
    return v;
}

/** For a value that starts like an ISO date whose day its month does not have, says why (else undefined). */
function impossibleDate(v: unknown): string | undefined {
    const m = typeof v === 'string' ? /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?![0-9])/.exec(v) : null;
    if (!m) return undefined;
    const [year, month, day] = [+m[1], +m[2], +m[3]];
    if (month < 1 || month > 12 || day < 1) return undefined;
    const days = daysInMonth(year, month);
    return day > days ? `${m[1]}-${String(month).padStart(2, '0')} has ${days} days` : undefined;
}

function describe(v: unknown): string {
    const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
    return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

/** Normalises parsed events (mutating them where that avoids a copy). */
export function normalizeEvents(events: RawEvent[], opts: NormalizeOptions): NormalizedEvents {
    const tsField = opts.timestampField || '_time';
    const layout = opts.timestampFormat || null;
    const labels = opts.labels ?? null;
    const labelKeys = labels ? Object.keys(labels) : [];
    const mapFields = opts.mapFields && opts.mapFields.size ? opts.mapFields : null;
    const receive = opts.receiveTimeNs;
    const fallbacks = opts.timestampFallbacks && opts.timestampFallbacks.length ? opts.timestampFallbacks : null;
    const times = new BigInt64Array(events.length);
    const fields: FlatFields[] = new Array<FlatFields>(events.length);
    const failures: EventFailure[] = [];
    let names: NameCache | null = null;
    let n = 0;
    for (let i = 0; i < events.length; i++) {
        const ev = events[i];
        let tv = lookupPath(ev, tsField);
        if ((tv === undefined || tv === null) && fallbacks !== null) {
            for (const f of fallbacks) {
                tv = lookupPath(ev, f);
                if (tv !== undefined && tv !== null) break;
            }
        }
        let t = receive;
        if (tv !== undefined && tv !== null) {
            const parsed = parseTimeValue(tv, layout);
            if (parsed === undefined) {
                const impossible = impossibleDate(tv);
                failures.push({
                    index: i,
                    error: impossible
                        ? `timestamp field "${tsField}" is not a real date: ${describe(tv)} (${impossible})`
                        : `cannot parse timestamp field "${tsField}": ${describe(tv)}`,
                });
                continue;
            }
            if (parsed < MIN_TIME_NS || parsed > MAX_TIME_NS) {
                failures.push({ index: i, error: `timestamp field "${tsField}" is out of range: ${describe(tv)}; supported times are ${TIME_RANGE_TEXT}` });
                continue;
            }
            t = parsed;
        }
        // One pass to see whether the object can be stored as is.
        let clean = true;
        let count = 0;
        let rejected: string | undefined;
        for (const k in ev) {
            if (++count > MAX_FIELDS_PER_EVENT) {
                // Possibly fewer after flattening (nulls, `_time`): the flattening pass counts exactly.
                clean = false;
                break;
            }
            const v = ev[k];
            if (typeof v === 'object') {
                if (v === null || !Array.isArray(v)) {
                    clean = false;
                    break;
                }
                if (!withinNesting(v, 2)) {
                    rejected = tooDeep(renameReserved(k)).message;
                    break;
                }
            } else if (typeof v === 'string') {
                if (v.length > MAX_STRING_BYTES / 3 && isLongString(v)) {
                    clean = false;
                    break;
                }
            } else if (typeof v === 'number' && !Number.isFinite(v)) {
                clean = false;
                break;
            }
            if (k.charCodeAt(0) === 95 /* _ */ && (k === '_time' || RESERVED_FIELDS.has(k))) {
                clean = false;
                break;
            }
        }
        if (rejected !== undefined) {
            failures.push({ index: i, error: rejected });
            continue;
        }
        let out: FlatFields;
        if (clean) {
            out = ev as FlatFields;
        } else {
            out = {};
            const budget: FieldBudget = { left: MAX_FIELDS_PER_EVENT };
            try {
                flattenInto(out, '', ev, 1, mapFields, (names ??= new Map()), budget);
            } catch (err) {
                if (!(err instanceof EventRejected)) throw err;
                failures.push({ index: i, error: err.message });
                continue;
            }
            count = MAX_FIELDS_PER_EVENT - budget.left; // fields written (a name written twice counts twice)
        }
        if (labelKeys.length && count + labelKeys.length > MAX_FIELDS_PER_EVENT) {
            let total = count;
            for (const k of labelKeys) if (!(k in out)) total++;
            if (total > MAX_FIELDS_PER_EVENT) {
                failures.push({ index: i, error: tooWide(`${total} (labels included)`).message });
                continue;
            }
        }
        for (let k = 0; k < labelKeys.length; k++) out[labelKeys[k]] = labels![labelKeys[k]];
        times[n] = t;
        fields[n] = out;
        n++;
    }
    fields.length = n;
    return { times: n === events.length ? times : times.slice(0, n), fields, failures };
}
