/**
 * A parser for Go reference-time layouts (`Mon Jan 2 15:04:05 -0700 MST 2006`), as used by the
 * `timestamp-format` ingest parameter (API.md §3.1). It follows Go's `time.Parse` for the common
 * tokens: 2006 06 01 1 Jan January 02 2 _2 002 15 03 3 04 4 05 5 PM pm Mon Monday MST
 * Z07:00 Z0700 Z07 -07:00 -0700 -07 .000/.999/,000/,999 (fixed/variable fractions). As in Go, a
 * fractional second may follow the seconds even when the layout has none. Times without a zone
 * are UTC. Returns nanoseconds since the Unix epoch, or undefined when the value does not match.
 */

type Tok =
    | { k: 'lit'; s: string }
    | { k: 'year4' | 'year2' | 'month' | 'month2' | 'monthName' | 'monthShort' | 'day' | 'day2' | 'dayUnder' | 'yday' }
    | { k: 'hour24' | 'hour12' | 'hour12_2' | 'min' | 'min2' | 'sec' | 'sec2' | 'pm' | 'PM' | 'wdayName' | 'wdayShort' | 'zoneName' }
    | { k: 'tz'; z: boolean; colon: boolean; hoursOnly: boolean }
    | { k: 'frac'; digits: number; exact: boolean };

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const cache = new Map<string, Tok[]>();

/** Splits a layout into tokens (cached; layouts repeat for every event of a request). */
export function compileLayout(layout: string): Tok[] {
    const hit = cache.get(layout);
    if (hit) return hit;
    const toks: Tok[] = [];
    let lit = '';
    const push = (t: Tok): void => {
        if (lit) toks.push({ k: 'lit', s: lit });
        lit = '';
        toks.push(t);
    };
    let i = 0;
    const at = (s: string): boolean => layout.startsWith(s, i);
    while (i < layout.length) {
        const c = layout[i];
        if (at('January')) { push({ k: 'monthName' }); i += 7; continue; }
        if (at('Jan')) { push({ k: 'monthShort' }); i += 3; continue; }
        if (at('Monday')) { push({ k: 'wdayName' }); i += 6; continue; }
        if (at('Mon')) { push({ k: 'wdayShort' }); i += 3; continue; }
        if (at('MST')) { push({ k: 'zoneName' }); i += 3; continue; }
        if (at('2006')) { push({ k: 'year4' }); i += 4; continue; }
        if (at('002')) { push({ k: 'yday' }); i += 3; continue; }
        if (at('01')) { push({ k: 'month2' }); i += 2; continue; }
        if (at('02')) { push({ k: 'day2' }); i += 2; continue; }
        if (at('03')) { push({ k: 'hour12_2' }); i += 2; continue; }
        if (at('04')) { push({ k: 'min2' }); i += 2; continue; }
        if (at('05')) { push({ k: 'sec2' }); i += 2; continue; }
        if (at('06')) { push({ k: 'year2' }); i += 2; continue; }
        if (at('_2') && !at('_2006')) { push({ k: 'dayUnder' }); i += 2; continue; }
        if (at('15')) { push({ k: 'hour24' }); i += 2; continue; }
        if (at('Z07:00')) { push({ k: 'tz', z: true, colon: true, hoursOnly: false }); i += 6; continue; }
        if (at('Z0700')) { push({ k: 'tz', z: true, colon: false, hoursOnly: false }); i += 5; continue; }
        if (at('Z07')) { push({ k: 'tz', z: true, colon: false, hoursOnly: true }); i += 3; continue; }
        if (at('-07:00')) { push({ k: 'tz', z: false, colon: true, hoursOnly: false }); i += 6; continue; }
        if (at('-0700')) { push({ k: 'tz', z: false, colon: false, hoursOnly: false }); i += 5; continue; }
        if (at('-07')) { push({ k: 'tz', z: false, colon: false, hoursOnly: true }); i += 3; continue; }
        if (at('PM')) { push({ k: 'PM' }); i += 2; continue; }
        if (at('pm')) { push({ k: 'pm' }); i += 2; continue; }
        if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
            const d = layout[i + 1];
            let j = i + 1;
            while (layout[j] === d) j++;
            // Go: only a fraction when not followed by another digit
            if (!(layout[j] >= '0' && layout[j] <= '9')) {
                push({ k: 'frac', digits: j - i - 1, exact: d === '0' });
                i = j;
                continue;
            }
        }
        if (c === '1') { push({ k: 'month' }); i += 1; continue; }
        if (c === '2') { push({ k: 'day' }); i += 1; continue; }
        if (c === '3') { push({ k: 'hour12' }); i += 1; continue; }
        if (c === '4') { push({ k: 'min' }); i += 1; continue; }
        if (c === '5') { push({ k: 'sec' }); i += 1; continue; }
        lit += c;
        i++;
    }
    if (lit) toks.push({ k: 'lit', s: lit });
    cache.set(layout, toks);
    return toks;
}

function isDigit(c: number): boolean {
    return c >= 48 && c <= 57;
}

/** Parses `value` with the Go layout; undefined if it does not match. */
export function parseGoLayout(value: string, layout: string): bigint | undefined {
    const toks = compileLayout(layout);
    let p = 0;
    let year = 1970; // Go defaults to year 0 but a missing year is almost never meant literally
    let month = 1;
    let day = 1;
    let yday = -1;
    let hour = 0;
    let min = 0;
    let sec = 0;
    let nanos = 0;
    let pm: boolean | undefined;
    let offsetMin = 0;
    const num = (minDigits: number, maxDigits: number): number | undefined => {
        let j = p;
        while (j < value.length && j - p < maxDigits && isDigit(value.charCodeAt(j))) j++;
        if (j - p < minDigits) return undefined;
        const n = Number(value.slice(p, j));
        p = j;
        return n;
    };
    const word = (names: string[], short: boolean): number | undefined => {
        const rest = value.slice(p).toLowerCase();
        for (let k = 0; k < names.length; k++) {
            const n = short ? names[k].slice(0, 3) : names[k];
            if (rest.startsWith(n)) {
                p += n.length;
                return k;
            }
        }
        return undefined;
    };
    const fracAfterSeconds = (): void => {
        // Go accepts a fraction after the seconds even if the layout has none
        const nextTok = toks[ti + 1];
        if (nextTok && nextTok.k === 'frac') return;
        const c = value[p];
        if ((c === '.' || c === ',') && isDigit(value.charCodeAt(p + 1))) {
            p++;
            const s = p;
            while (p < value.length && isDigit(value.charCodeAt(p))) p++;
            nanos = Number(value.slice(s, Math.min(p, s + 9)).padEnd(9, '0'));
        }
    };
    let ti = 0;
    for (; ti < toks.length; ti++) {
        const t = toks[ti];
        let n: number | undefined;
        switch (t.k) {
            case 'lit':
                // Go: spaces in the layout match any run of spaces in the value
                for (let q = 0; q < t.s.length; q++) {
                    if (t.s[q] === ' ') {
                        if (value[p] !== ' ') return undefined;
                        while (value[p] === ' ') p++;
                        while (t.s[q + 1] === ' ') q++;
                    } else if (value[p] === t.s[q]) p++;
                    else return undefined;
                }
                continue;
            case 'year4':
                if ((n = num(4, 4)) === undefined) return undefined;
                year = n;
                continue;
            case 'year2':
                if ((n = num(2, 2)) === undefined) return undefined;
                year = n >= 69 ? 1900 + n : 2000 + n;
                continue;
            case 'month':
            case 'month2':
                if ((n = num(t.k === 'month2' ? 2 : 1, 2)) === undefined || n < 1 || n > 12) return undefined;
                month = n;
                continue;
            case 'monthName':
            case 'monthShort':
                if ((n = word(MONTHS, t.k === 'monthShort')) === undefined) return undefined;
                month = n + 1;
                continue;
            case 'wdayName':
            case 'wdayShort':
                if (word(WDAYS, t.k === 'wdayShort') === undefined) return undefined;
                continue;
            case 'day':
            case 'day2':
            case 'dayUnder':
                if (t.k === 'dayUnder' && value[p] === ' ') p++;
                if ((n = num(t.k === 'day2' ? 2 : 1, 2)) === undefined || n < 1 || n > 31) return undefined;
                day = n;
                continue;
            case 'yday':
                if ((n = num(3, 3)) === undefined || n < 1 || n > 366) return undefined;
                yday = n;
                continue;
            case 'hour24':
                if ((n = num(2, 2)) === undefined || n > 23) return undefined;
                hour = n;
                continue;
            case 'hour12':
            case 'hour12_2':
                if ((n = num(t.k === 'hour12_2' ? 2 : 1, 2)) === undefined || n > 12) return undefined;
                hour = n;
                continue;
            case 'min':
            case 'min2':
                if ((n = num(t.k === 'min2' ? 2 : 1, 2)) === undefined || n > 59) return undefined;
                min = n;
                continue;
            case 'sec':
            case 'sec2':
                if ((n = num(t.k === 'sec2' ? 2 : 1, 2)) === undefined || n > 60) return undefined;
                sec = n;
                fracAfterSeconds();
                continue;
            case 'PM':
            case 'pm': {
                const s = value.slice(p, p + 2).toUpperCase();
                if (s !== 'AM' && s !== 'PM') return undefined;
                pm = s === 'PM';
                p += 2;
                continue;
            }
            case 'frac': {
                const sep = value[p];
                if (sep !== '.' && sep !== ',') {
                    if (t.exact) return undefined;
                    continue; // .999 is optional
                }
                p++;
                const s = p;
                while (p < value.length && isDigit(value.charCodeAt(p))) p++;
                if (t.exact && p - s !== t.digits) return undefined;
                if (p === s) return undefined;
                nanos = Number(value.slice(s, Math.min(p, s + 9)).padEnd(9, '0'));
                continue;
            }
            case 'zoneName': {
                const s = p;
                while (p < value.length && /[A-Za-z]/.test(value[p])) p++;
                if (p - s < 3) return undefined;
                // Go: known abbreviations resolve in the local zone; we only know UTC/GMT/Z and treat
                // other abbreviations as UTC (Go fabricates a zero-offset zone for unknown names too).
                if (value.startsWith('GMT', s) || value.startsWith('UTC', s)) {
                    const sign = value[p];
                    if (sign === '+' || sign === '-') {
                        p++;
                        const h = num(1, 2);
                        if (h === undefined) return undefined;
                        offsetMin = (sign === '-' ? -1 : 1) * h * 60;
                    }
                }
                continue;
            }
            case 'tz': {
                if (t.z && (value[p] === 'Z' || value[p] === 'z')) {
                    p++;
                    offsetMin = 0;
                    continue;
                }
                const sign = value[p];
                if (sign !== '+' && sign !== '-') return undefined;
                p++;
                const h = num(2, 2);
                if (h === undefined) return undefined;
                let m = 0;
                if (!t.hoursOnly) {
                    if (t.colon) {
                        if (value[p] !== ':') return undefined;
                        p++;
                    }
                    const mm = num(2, 2);
                    if (mm === undefined) return undefined;
                    m = mm;
                }
                offsetMin = (sign === '-' ? -1 : 1) * (h * 60 + m);
                continue;
            }
        }
    }
    if (p !== value.length) return undefined;
    if (pm !== undefined) {
        if (hour < 1 || hour > 12) return undefined;
        if (pm && hour < 12) hour += 12;
        else if (!pm && hour === 12) hour = 0;
    }
    let ms: number;
    if (yday !== -1) {
        ms = Date.UTC(year, 0, 1, hour, min, sec) + (yday - 1) * 86_400_000;
    } else {
        ms = Date.UTC(year, month - 1, day, hour, min, sec);
        if (new Date(ms).getUTCDate() !== day) return undefined; // Feb 30 etc.
    }
    if (year < 100) ms = setFullYear(ms, year);
    if (Number.isNaN(ms)) return undefined;
    ms -= offsetMin * 60_000;
    return BigInt(ms) * 1_000_000n + BigInt(nanos);
}

/** Date.UTC maps years 0..99 to 1900..1999; undo that. */
function setFullYear(ms: number, year: number): number {
    const d = new Date(ms);
    d.setUTCFullYear(year);
    return d.getTime();
}
