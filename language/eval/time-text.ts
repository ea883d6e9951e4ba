/**
 * Datetimes as result text, straight from a time column's parts (whole ms and the ns below them),
 * with the exact text of `formatDatetime`: rendering 1,000 rows through a bigint, a `Date` and a
 * regex per cell cost as much as the query that found them (`take 1000` at 1M events).
 */
import { formatDatetime } from '../values.js';
import { TimeColumn } from './columns.js';
import type { FrameCol } from './frame.js';

const MS_PER_DAY = 86_400_000;
/** 0001-01-01 and 10000-01-01: outside, `formatDatetime` (whose text there is its own) decides. */
const MIN_MS = -62_135_596_800_000;
const MAX_MS = 253_402_300_800_000;

const TWO = Array.from({ length: 60 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));
/** `.5`, `.05`, `.123`: a whole-ms fraction, trailing zeros trimmed ('' for 0). */
const MS_FRACTION = Array.from({ length: 1000 }, (_, i) => (i === 0 ? '' : `.${String(i).padStart(3, '0').replace(/0+$/, '')}`));

let lastDay = NaN;
let lastDayText = '';

/** `yyyy-mm-ddT` of a day since the epoch (the previous one is kept: rows come in time order). */
function dayText(day: number): string {
    if (day !== lastDay) {
        lastDay = day;
        lastDayText = new Date(day * MS_PER_DAY).toISOString().slice(0, 11);
    }
    return lastDayText;
}

/** The text of the datetime `ms * 1e6 + sub` ns: equal to `formatDatetime` of it. */
export function formatTimeParts(ms: number, sub: number): string {
    if (!(ms >= MIN_MS && ms < MAX_MS) || !Number.isInteger(ms) || !(sub >= 0 && sub < 1_000_000) || !Number.isInteger(sub)) {
        return formatDatetime(BigInt(ms) * 1_000_000n + BigInt(sub));
    }
    const day = Math.floor(ms / MS_PER_DAY);
    const inDay = ms - day * MS_PER_DAY;
    const secs = Math.floor(inDay / 1000);
    const milli = inDay - secs * 1000;
    const h = Math.floor(secs / 3600);
    const m = Math.floor((secs - h * 3600) / 60);
    const s = secs - h * 3600 - m * 60;
    const base = `${dayText(day)}${TWO[h]}:${TWO[m]}:${TWO[s]}`;
    if (sub === 0) return `${base}${MS_FRACTION[milli]}Z`;
    const frac = String(milli * 1_000_000 + sub).padStart(9, '0');
    let end = 9;
    while (frac.charCodeAt(end - 1) === 48) end--;
    return `${base}.${frac.slice(0, end)}Z`;
}

/** The texts of a datetime frame column's first `n` cells (null for null), or undefined when it is no stored time column. */
export function datetimeTexts(c: FrameCol, n: number): (string | null)[] | undefined {
    const d = c.data;
    if (!(d instanceof TimeColumn) || d.type !== 'datetime') return undefined;
    const { ms, sub } = d;
    const sel = c.sel;
    const out: (string | null)[] = new Array(n);
    for (let i = 0; i < n; i++) {
        const r = sel === null ? i : sel[i];
        const t = ms[r];
        out[i] = t !== t ? null : formatTimeParts(t, sub[r]);
    }
    return out;
}
