/**
 * Typed fields of a JSON request body. Every problem is a 400 whose message names the field and
 * the value sent (`invalid threshold: expected a number, got "high"`); `null` counts as absent, as
 * the Go client sends zero values and the js client leaves keys out.
 */
import { badRequest, type HttpError } from './errors.js';

type Body = Record<string, unknown>;

/** The value as the message shows it: JSON, cut short so that a huge value does not flood logs. */
export function shownValue(v: unknown): string {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

export function fieldError(key: string, expected: string, value: unknown): HttpError {
    return badRequest(`invalid ${key}: expected ${expected}, got ${shownValue(value)}`);
}

export function optString(body: Body, key: string, maxLength?: number): string | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw fieldError(key, 'a string', v);
    if (maxLength !== undefined && v.length > maxLength) throw badRequest(`invalid ${key}: ${v.length} characters, at most ${maxLength} allowed (got ${shownValue(v)})`);
    return v;
}

export function optBool(body: Body, key: string): boolean | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw fieldError(key, 'true or false', v);
    return v;
}

/** A finite number within [min, max]. */
export function optNumber(body: Body, key: string, range: { min?: number; max?: number } = {}, integer = false): number | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !(integer ? Number.isInteger(v) : Number.isFinite(v))) throw fieldError(key, integer ? 'an integer' : 'a number', v);
    checkRange(key, v, range);
    return v;
}

/** An integer within [min, max]. */
export function optInteger(body: Body, key: string, range: { min?: number; max?: number } = {}): number | undefined {
    return optNumber(body, key, range, true);
}

function checkRange(key: string, v: number, { min, max }: { min?: number; max?: number }): void {
    if ((min !== undefined && v < min) || (max !== undefined && v > max)) {
        const want = min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
        throw badRequest(`invalid ${key}: expected a value ${want}, got ${shownValue(v)}`);
    }
}

/** An array of strings (each passed to `check`, which throws for a bad item). */
export function optStringList(body: Body, key: string, check?: (item: string, index: number) => void): string[] | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw fieldError(key, 'an array of strings', v);
    v.forEach((item, i) => {
        if (typeof item !== 'string') throw fieldError(`${key}[${i}]`, 'a string', item);
        check?.(item, i);
    });
    return v as string[];
}
