/**
 * The series_* functions: element-wise arithmetic and comparison on numeric dynamic arrays, fills,
 * filters (FIR/IIR), the discrete Fourier transform and summary statistics.
 *
 * Conventions (KQL's): an element that is not a number (null, string, bool, missing because one
 * series is shorter) yields null in the output; either operand of a binary function may be a scalar,
 * which is applied to every element; a first argument that is not an array gives null.
 */
import type { ScalarFunction, Signature } from './catalogue-types.js';
import type { AplValue, JsonValue } from '../values.js';
import { asNumber, isArray, param, toJson, valuesEqual } from './functions-collections-util.js';

type Num = number | null;

/** The numeric value of element `i` of a series operand (array element or broadcast scalar). */
function operandAt(v: AplValue, i: number): Num {
    if (isArray(v)) return i < v.length ? asNumber(v[i]) : null;
    return asNumber(v);
}

function operandLength(v: AplValue): number | null {
    return isArray(v) ? v.length : null;
}

/** Maps a unary numeric function over a series; non-numbers and non-finite math results (NaN) map to null. */
function unary(f: (x: number) => number, nanIsNull = true) {
    return ([arr]: AplValue[]): AplValue => {
        if (!isArray(arr)) return null;
        return arr.map(e => {
            const x = asNumber(e);
            if (x === null) return null;
            const y = f(x);
            return nanIsNull && Number.isNaN(y) && !Number.isNaN(x) ? null : y;
        });
    };
}

/** Combines two operands element-wise; the result is as long as the longer array operand. */
function binary<R extends JsonValue>(f: (a: number, b: number) => R) {
    return ([a, b]: AplValue[]): AplValue => {
        const la = operandLength(a);
        const lb = operandLength(b);
        if (la === null && lb === null) return null;
        const n = Math.max(la ?? 0, lb ?? 0);
        const out: JsonValue[] = [];
        for (let i = 0; i < n; i++) {
            const x = operandAt(a, i);
            const y = operandAt(b, i);
            out.push(x === null || y === null ? null : f(x, y));
        }
        return out;
    };
}

/** Numbers of an array, with non-numbers as 0 (for transforms and filters). */
function numbersOrZero(arr: JsonValue[]): number[] {
    return arr.map(e => asNumber(e) ?? 0);
}

/**
 * The discrete Fourier transform by the direct O(n²) sum (any length, no power-of-two padding):
 * forward X[k] = Σ x[t]·e^(-2πikt/n); inverse x[t] = (1/n)·Σ X[k]·e^(+2πikt/n).
 */
function dft(re: number[], im: number[], inverse: boolean): [number[], number[]] {
    const n = re.length;
    const outRe = new Array<number>(n).fill(0);
    const outIm = new Array<number>(n).fill(0);
    const sign = inverse ? 1 : -1;
    for (let k = 0; k < n; k++) {
        let sr = 0;
        let si = 0;
        for (let t = 0; t < n; t++) {
            // (k·t) mod n keeps the angle small, so sin/cos stay accurate for long series.
            const angle = (sign * 2 * Math.PI * ((k * t) % n)) / n;
            const c = Math.cos(angle);
            const s = Math.sin(angle);
            sr += re[t] * c - im[t] * s;
            si += re[t] * s + im[t] * c;
        }
        outRe[k] = inverse ? sr / n : sr;
        outIm[k] = inverse ? si / n : si;
    }
    // Round floating-point dust (relative to the input's magnitude) to exact zeros.
    const scale = re.reduce((m, v, i) => m + Math.abs(v) + Math.abs(im[i]), 0);
    const eps = 1e-12 * Math.max(1, scale);
    const clean = (x: number) => (Math.abs(x) < eps ? 0 : x);
    return [outRe.map(clean), outIm.map(clean)];
}

function fourier(inverse: boolean) {
    return ([reArg, imArg]: AplValue[]): AplValue => {
        if (!isArray(reArg)) return null;
        const re = numbersOrZero(reArg);
        let im: number[];
        if (imArg === undefined || imArg === null) im = re.map(() => 0);
        else if (isArray(imArg) && imArg.length === re.length) im = numbersOrZero(imArg);
        else return null;
        const [r, i] = dft(re, im, inverse);
        return [r, i];
    };
}

function fir([xArg, filterArg, normalizeArg, centerArg]: AplValue[]): AplValue {
    if (!isArray(xArg) || !isArray(filterArg) || filterArg.length === 0) return null;
    const filter = filterArg.map(asNumber);
    if (filter.some(f => f === null)) return null;
    let coeffs = filter as number[];
    const hasNegative = coeffs.some(c => c < 0);
    const normalize = normalizeArg === undefined || normalizeArg === null ? !hasNegative : normalizeArg === true;
    if (normalize) {
        if (hasNegative) return null;
        const sum = coeffs.reduce((s, c) => s + c, 0);
        if (sum === 0) return null;
        coeffs = coeffs.map(c => c / sum);
    }
    const center = centerArg === true;
    const x = numbersOrZero(xArg);
    const k = coeffs.length;
    const offset = center ? Math.floor(k / 2) : 0;
    return x.map((_, i) => {
        let y = 0;
        for (let j = 0; j < k; j++) {
            const idx = i + offset - j;
            if (idx >= 0 && idx < x.length) y += coeffs[j] * x[idx];
        }
        return y;
    });
}

function iir([xArg, numArg, denArg]: AplValue[]): AplValue {
    if (!isArray(xArg) || !isArray(numArg) || !isArray(denArg) || numArg.length === 0 || denArg.length === 0) return null;
    const b = numArg.map(asNumber);
    const a = denArg.map(asNumber);
    if (b.some(v => v === null) || a.some(v => v === null) || a[0] === 0) return null;
    const bn = b as number[];
    const an = a as number[];
    const x = numbersOrZero(xArg);
    const y: number[] = [];
    for (let n = 0; n < x.length; n++) {
        let acc = 0;
        for (let i = 0; i < bn.length; i++) if (n - i >= 0) acc += bn[i] * x[n - i];
        for (let j = 1; j < an.length; j++) if (n - j >= 0) acc -= an[j] * y[n - j];
        y.push(acc / an[0]);
    }
    return y;
}

/** Whether element `e` is "missing" for the fill functions (equal to the placeholder, null by default). */
function isMissing(e: JsonValue, placeholder: AplValue | undefined): boolean {
    if (placeholder === undefined || placeholder === null) return e === null;
    return e === null || valuesEqual(e, toJson(placeholder));
}

function fillForward([arr, placeholder]: AplValue[]): AplValue {
    if (!isArray(arr)) return null;
    let last: JsonValue | undefined;
    return arr.map(e => {
        if (isMissing(e, placeholder)) return last === undefined ? e : last;
        last = e;
        return e;
    });
}

function fillBackward([arr, placeholder]: AplValue[]): AplValue {
    if (!isArray(arr)) return null;
    const out = [...arr];
    let next: JsonValue | undefined;
    for (let i = out.length - 1; i >= 0; i--) {
        if (isMissing(out[i], placeholder)) {
            if (next !== undefined) out[i] = next;
        } else {
            next = out[i];
        }
    }
    return out;
}

function fillConst([arr, constant, placeholder]: AplValue[]): AplValue {
    if (!isArray(arr)) return null;
    const c = toJson(constant);
    return arr.map(e => (isMissing(e, placeholder) ? c : e));
}

function fillLinear([arr, placeholder, fillEdgesArg, constantArg]: AplValue[]): AplValue {
    if (!isArray(arr)) return null;
    const fillEdges = fillEdgesArg === undefined || fillEdgesArg === null ? true : fillEdgesArg === true;
    const constant = constantArg === undefined || constantArg === null ? 0 : toJson(constantArg);
    const known: number[] = [];
    arr.forEach((e, i) => {
        if (!isMissing(e, placeholder) && typeof e === 'number') known.push(i);
    });
    if (known.length === 0) return arr.map(e => (isMissing(e, placeholder) ? constant : e));
    const out: JsonValue[] = [...arr];
    for (let i = 0; i < arr.length; i++) {
        if (!isMissing(arr[i], placeholder)) continue;
        const after = known.find(k => k > i);
        let before: number | undefined;
        for (const k of known) if (k < i) before = k;
        if (before !== undefined && after !== undefined) {
            const x0 = arr[before] as number;
            const x1 = arr[after] as number;
            out[i] = x0 + ((x1 - x0) * (i - before)) / (after - before);
        } else if (fillEdges) {
            out[i] = arr[(before ?? after) as number];
        }
    }
    return out;
}

interface SeriesStats {
    min: Num;
    min_idx: Num;
    max: Num;
    max_idx: Num;
    avg: Num;
    variance: Num;
    stdev: Num;
}

/**
 * min/max (with the first index where each occurs), mean, and sample variance/stdev (n-1) of the
 * numeric elements. With `ignoreNonfinite` false (the default) any null, non-number or non-finite
 * element makes every statistic null, as in KQL; with true such elements are skipped.
 */
function stats(arr: JsonValue[], ignoreNonfinite: boolean): SeriesStats {
    const empty: SeriesStats = { min: null, min_idx: null, max: null, max_idx: null, avg: null, variance: null, stdev: null };
    const values: Array<[number, number]> = [];
    for (let i = 0; i < arr.length; i++) {
        const x = asNumber(arr[i]);
        if (x === null || !Number.isFinite(x)) {
            if (!ignoreNonfinite) return empty;
            continue;
        }
        values.push([x, i]);
    }
    if (values.length === 0) return empty;
    let [min, minIdx] = values[0];
    let [max, maxIdx] = values[0];
    let sum = 0;
    for (const [x, i] of values) {
        if (x < min) [min, minIdx] = [x, i];
        if (x > max) [max, maxIdx] = [x, i];
        sum += x;
    }
    const n = values.length;
    const avg = sum / n;
    const variance = n < 2 ? 0 : values.reduce((s, [x]) => s + (x - avg) * (x - avg), 0) / (n - 1);
    return { min, min_idx: minIdx, max, max_idx: maxIdx, avg, variance, stdev: Math.sqrt(variance) };
}

/** Pairs of numeric elements at the same index, missing/non-numeric elements read as 0. */
function zeroPadded(a: AplValue, b: AplValue): Array<[number, number]> | null {
    const la = operandLength(a);
    const lb = operandLength(b);
    if (la === null && lb === null) return null;
    const n = Math.max(la ?? 0, lb ?? 0);
    const out: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) out.push([operandAt(a, i) ?? 0, operandAt(b, i) ?? 0]);
    return out;
}

function dotProduct([a, b]: AplValue[]): AplValue {
    const pairs = zeroPadded(a, b);
    return pairs === null ? null : pairs.reduce((s, [x, y]) => s + x * y, 0);
}

function cosineSimilarity([a, b]: AplValue[]): AplValue {
    const pairs = zeroPadded(a, b);
    if (pairs === null || pairs.length === 0) return null;
    let dot = 0;
    let ma = 0;
    let mb = 0;
    for (const [x, y] of pairs) {
        dot += x * y;
        ma += x * x;
        mb += y * y;
    }
    if (ma === 0 || mb === 0) return null;
    return dot / (Math.sqrt(ma) * Math.sqrt(mb));
}

function pearson([a, b]: AplValue[]): AplValue {
    if (!isArray(a) || !isArray(b) || a.length !== b.length) return null;
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < a.length; i++) {
        const x = asNumber(a[i]);
        const y = asNumber(b[i]);
        if (x === null || y === null) continue;
        xs.push(x);
        ys.push(y);
    }
    const n = xs.length;
    if (n < 2) return null;
    const mx = xs.reduce((s, v) => s + v, 0) / n;
    const my = ys.reduce((s, v) => s + v, 0) / n;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let i = 0; i < n; i++) {
        sxy += (xs[i] - mx) * (ys[i] - my);
        sxx += (xs[i] - mx) ** 2;
        syy += (ys[i] - my) ** 2;
    }
    if (sxx === 0 || syy === 0) return null;
    return sxy / Math.sqrt(sxx * syy);
}

const ONE_ARRAY: Signature[] = [{ params: [param('array', 'array')] }];
const TWO_SERIES: Signature[] = [{ params: [param('series1', 'array'), param('series2', 'any')] }];

function unaryEntry(name: string, what: string, f: (x: number) => number, example: string, nanIsNull = true): ScalarFunction {
    return {
        kind: 'scalar',
        name,
        category: 'series',
        signatures: ONE_ARRAY,
        returns: 'dynamic',
        description: `Applies ${what} to every element of a numeric array; non-numeric elements become null.`,
        example,
        evaluate: unary(f, nanIsNull),
    };
}

function binaryEntry(name: string, what: string, f: (a: number, b: number) => JsonValue, example: string, extra: Partial<ScalarFunction> = {}): ScalarFunction {
    return {
        kind: 'scalar',
        name,
        category: 'series',
        signatures: TWO_SERIES,
        returns: 'dynamic',
        description: `${what} Either argument may be a scalar applied to every element; non-numeric or missing elements give null.`,
        example,
        evaluate: binary(f),
        ...extra,
    };
}

const safeLog = (x: number): number => (x < 0 ? NaN : Math.log(x));

export const SERIES_FUNCTIONS: ScalarFunction[] = [
    unaryEntry('series_abs', 'the absolute value', Math.abs, 'print r = series_abs(dynamic([-1, 2, -3]))'),
    unaryEntry('series_acos', 'the arc cosine (radians; null outside [-1, 1])', Math.acos, 'print r = series_acos(dynamic([1, 0, -1]))'),
    binaryEntry('series_add', 'Adds two numeric series element by element.', (a, b) => a + b, 'print r = series_add(dynamic([1, 2, 3]), dynamic([10, 20, 30]))'),
    unaryEntry('series_asin', 'the arc sine (radians; null outside [-1, 1])', Math.asin, 'print r = series_asin(dynamic([0, 1]))'),
    unaryEntry('series_atan', 'the arc tangent (radians)', Math.atan, 'print r = series_atan(dynamic([0, 1]))'),
    unaryEntry('series_ceiling', 'rounding up to the next integer', Math.ceil, 'print r = series_ceiling(dynamic([1.2, -1.5]))'),
    unaryEntry('series_cos', 'the cosine (radians)', Math.cos, 'print r = series_cos(dynamic([0, 3.14159]))'),
    {
        kind: 'scalar',
        name: 'series_cosine_similarity',
        category: 'series',
        signatures: [{ params: [param('series1', 'array'), param('series2', 'array')] }],
        returns: 'real',
        description:
            'Computes the cosine of the angle between two numeric vectors (from -1 to 1). The shorter series is padded with zeros; the result is null when either vector is empty or all zeros.',
        example: 'print s = series_cosine_similarity(dynamic([1, 2, 3]), dynamic([2, 4, 6]))',
        evaluate: cosineSimilarity,
    },
    binaryEntry('series_divide', 'Divides the first series by the second element by element, always as real division (x/0 gives ±infinity or NaN).', (a, b) => a / b, 'print r = series_divide(dynamic([10, 20, 30]), dynamic([2, 4, 0]))'),
    {
        kind: 'scalar',
        name: 'series_dot_product',
        category: 'series',
        signatures: TWO_SERIES,
        returns: 'real',
        description:
            'Returns the sum of the element-wise products of two numeric series (or a series and a scalar). Missing or non-numeric elements count as zero.',
        example: 'print d = series_dot_product(dynamic([1, 2, 3]), dynamic([4, 5, 6]))',
        evaluate: dotProduct,
    },
    binaryEntry('series_equals', 'Compares two series element by element and returns true where the values are equal.', (a, b) => a === b, 'print r = series_equals(dynamic([1, 2, 3]), 2)'),
    unaryEntry('series_exp', 'the exponential function e^x', Math.exp, 'print r = series_exp(dynamic([0, 1]))'),
    {
        kind: 'scalar',
        name: 'series_fft',
        category: 'series',
        signatures: [{ params: [param('x_real', 'array'), param('x_imaginary', 'array', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Transforms a series (optionally complex, with a separate imaginary part) to the frequency domain with a discrete Fourier transform. Returns a two-element array: `[real_parts, imaginary_parts]`. Non-numeric elements count as zero.',
        example: 'print f = series_fft(dynamic([1, 0, -1, 0]))',
        evaluate: fourier(false),
    },
    {
        kind: 'scalar',
        name: 'series_fill_backward',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('missing_value_placeholder', 'scalar', { optional: true })] }],
        returns: 'dynamic',
        description: 'Replaces each missing element (null, or the given placeholder) with the next present value; trailing missing elements stay as they are.',
        example: 'print r = series_fill_backward(dynamic([null, 1, null, 3]))',
        evaluate: fillBackward,
    },
    {
        kind: 'scalar',
        name: 'series_fill_const',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('constant_value', 'scalar'), param('missing_value_placeholder', 'scalar', { optional: true })] }],
        returns: 'dynamic',
        description: 'Replaces each missing element (null, or the given placeholder) with a constant.',
        example: 'print r = series_fill_const(dynamic([1, null, 3]), 0)',
        evaluate: fillConst,
    },
    {
        kind: 'scalar',
        name: 'series_fill_forward',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('missing_value_placeholder', 'scalar', { optional: true })] }],
        returns: 'dynamic',
        description: 'Replaces each missing element (null, or the given placeholder) with the previous present value; leading missing elements stay as they are.',
        example: 'print r = series_fill_forward(dynamic([1, null, null, 4]))',
        evaluate: fillForward,
    },
    {
        kind: 'scalar',
        name: 'series_fill_linear',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [
            {
                params: [
                    param('array', 'array'),
                    param('missing_value_placeholder', 'scalar', { optional: true }),
                    param('fill_edges', 'bool', { optional: true }),
                    param('constant_value', 'scalar', { optional: true }),
                ],
            },
        ],
        returns: 'dynamic',
        description:
            'Fills missing elements by linear interpolation between their present neighbours. Leading and trailing gaps take the nearest present value unless `fill_edges` is false; an array with no present value is filled with `constant_value` (0).',
        example: 'print r = series_fill_linear(dynamic([1, null, 3, null, 5]))',
        evaluate: fillLinear,
    },
    {
        kind: 'scalar',
        name: 'series_fir',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('filter', 'array'), param('normalize', 'bool', { optional: true }), param('center', 'bool', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Applies a finite impulse response filter: each output is the sum of the filter coefficients times the current and preceding inputs (values before the start count as 0). Coefficients are normalised to sum to 1 unless `normalize` is false (the default when any coefficient is negative); `center` centres the window on the current element.',
        example: 'print r = series_fir(dynamic([1, 2, 3, 4, 5]), dynamic([1, 1, 1]), false, true)',
        evaluate: fir,
    },
    unaryEntry('series_floor', 'rounding down to the previous integer', Math.floor, 'print r = series_floor(dynamic([1.7, -1.2]))'),
    binaryEntry('series_greater', 'Returns true where the first series is greater than the second, element by element.', (a, b) => a > b, 'print r = series_greater(dynamic([1, 5, 3]), dynamic([2, 4, 3]))'),
    binaryEntry('series_greater_equals', 'Returns true where the first series is greater than or equal to the second, element by element.', (a, b) => a >= b, 'print r = series_greater_equals(dynamic([1, 5, 3]), dynamic([2, 4, 3]))'),
    {
        kind: 'scalar',
        name: 'series_ifft',
        category: 'series',
        signatures: [{ params: [param('fft_real', 'array'), param('fft_imaginary', 'array', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Transforms a frequency-domain series back to the time domain (inverse discrete Fourier transform, scaled by 1/n). Returns a two-element array: `[real_parts, imaginary_parts]`.',
        example: 'print x = series_ifft(dynamic([0, 2, 0, 2]), dynamic([0, 0, 0, 0]))',
        evaluate: fourier(true),
    },
    {
        kind: 'scalar',
        name: 'series_iir',
        resultName: 'firstArgument',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('numerators', 'array'), param('denominators', 'array')] }],
        returns: 'dynamic',
        description:
            'Applies an infinite impulse response filter: y[n] = (Σ b[i]·x[n-i] − Σ_{j≥1} a[j]·y[n-j]) / a[0], with `numerators` b and `denominators` a. Null when a[0] is 0.',
        example: 'print cumsum = series_iir(dynamic([1, 2, 3, 4]), dynamic([1]), dynamic([1, -1]))',
        evaluate: iir,
    },
    binaryEntry('series_less', 'Returns true where the first series is less than the second, element by element.', (a, b) => a < b, 'print r = series_less(dynamic([1, 5, 3]), dynamic([2, 4, 3]))'),
    binaryEntry('series_less_equals', 'Returns true where the first series is less than or equal to the second, element by element.', (a, b) => a <= b, 'print r = series_less_equals(dynamic([1, 5, 3]), dynamic([2, 4, 3]))'),
    unaryEntry('series_log', 'the natural logarithm (null for negative numbers, -infinity for 0)', safeLog, 'print r = series_log(dynamic([1, 2.718281828]))'),
    {
        kind: 'scalar',
        name: 'series_magnitude',
        category: 'series',
        signatures: ONE_ARRAY,
        returns: 'real',
        description: 'Returns the Euclidean length of a numeric vector: the square root of the sum of the squared elements. Non-numeric elements are skipped.',
        example: 'print m = series_magnitude(dynamic([3, 4]))',
        evaluate: ([arr]) => (isArray(arr) ? Math.sqrt(arr.reduce<number>((s, e) => s + (asNumber(e) ?? 0) ** 2, 0)) : null),
    },
    binaryEntry('series_max', 'Returns the larger of the two values at each position.', (a, b) => Math.max(a, b), 'print r = series_max(dynamic([1, 5, 3]), dynamic([4, 2, 6]))', { axiomOnly: true }),
    binaryEntry('series_min', 'Returns the smaller of the two values at each position.', (a, b) => Math.min(a, b), 'print r = series_min(dynamic([1, 5, 3]), dynamic([4, 2, 6]))', { axiomOnly: true }),
    binaryEntry('series_multiply', 'Multiplies two numeric series element by element.', (a, b) => a * b, 'print r = series_multiply(dynamic([1, 2, 3]), dynamic([4, 5, 6]))'),
    binaryEntry('series_not_equals', 'Compares two series element by element and returns true where the values differ.', (a, b) => a !== b, 'print r = series_not_equals(dynamic([1, 2, 3]), dynamic([1, 0, 3]))'),
    {
        kind: 'scalar',
        name: 'series_pearson_correlation',
        category: 'series',
        signatures: [{ params: [param('series1', 'array'), param('series2', 'array')] }],
        returns: 'real',
        description:
            'Returns the Pearson correlation coefficient (-1 to 1) of two numeric series of the same length. Positions where either element is not a number are skipped; null for different lengths, fewer than two pairs or a constant series.',
        example: 'print r = series_pearson_correlation(dynamic([1, 2, 3]), dynamic([2, 4, 7]))',
        evaluate: pearson,
    },
    binaryEntry('series_pow', 'Raises each element of the first series to the power given by the second (a series or a scalar).', (a, b) => a ** b, 'print r = series_pow(dynamic([1, 2, 3]), 2)'),
    unaryEntry('series_sign', 'the sign function (-1, 0 or 1)', Math.sign, 'print r = series_sign(dynamic([-5, 0, 5]))'),
    unaryEntry('series_sin', 'the sine (radians)', Math.sin, 'print r = series_sin(dynamic([0, 1.5708]))'),
    {
        kind: 'scalar',
        name: 'series_stats',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('ignore_nonfinite', 'bool', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Summarises a numeric series as a seven-element array `[min, min_idx, max, max_idx, avg, variance, stdev]` (sample variance and deviation). Nulls or non-finite elements make every statistic null unless `ignore_nonfinite` is true, which skips them.',
        example: 'print s = series_stats(dynamic([1, 2, 3, 4]))',
        evaluate: ([arr, ignore]) => {
            if (!isArray(arr)) return null;
            const s = stats(arr, ignore === true);
            return [s.min, s.min_idx, s.max, s.max_idx, s.avg, s.variance, s.stdev];
        },
    },
    {
        kind: 'scalar',
        name: 'series_stats_dynamic',
        category: 'series',
        signatures: [{ params: [param('array', 'array'), param('ignore_nonfinite', 'bool', { optional: true })] }],
        returns: 'dynamic',
        description:
            'Summarises a numeric series as a property bag with `min`, `min_idx`, `max`, `max_idx`, `avg`, `stdev` and `variance` (sample statistics). Nulls or non-finite elements make every statistic null unless `ignore_nonfinite` is true.',
        example: 'print s = series_stats_dynamic(dynamic([1, 2, 3, 4]))',
        evaluate: ([arr, ignore]) => {
            if (!isArray(arr)) return null;
            const s = stats(arr, ignore === true);
            return { min: s.min, min_idx: s.min_idx, max: s.max, max_idx: s.max_idx, avg: s.avg, stdev: s.stdev, variance: s.variance };
        },
    },
    binaryEntry('series_subtract', 'Subtracts the second series from the first element by element.', (a, b) => a - b, 'print r = series_subtract(dynamic([10, 20, 30]), dynamic([1, 2, 3]))'),
    {
        kind: 'scalar',
        name: 'series_sum',
        category: 'series',
        signatures: ONE_ARRAY,
        returns: 'real',
        description: 'Adds up the numeric elements of a series; non-numeric elements are skipped.',
        example: 'print total = series_sum(dynamic([1, 2, 3]))',
        evaluate: ([arr]) => (isArray(arr) ? arr.reduce<number>((s, e) => s + (asNumber(e) ?? 0), 0) : null),
    },
    unaryEntry('series_tan', 'the tangent (radians)', Math.tan, 'print r = series_tan(dynamic([0, 0.7854]))'),
];
