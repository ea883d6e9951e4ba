/**
 * The formatter's options: what they are, their defaults (today's output, so that nobody's files
 * change), and reading them from untrusted JSON (`apl.format` settings, `.aplrc.json`'s `format`)
 * with a clear error for each bad field.
 *
 * APL keywords are case-sensitive (`AND` is a name, not the operator), so a keyword-case option would
 * change what a query means: there is none.
 */
export interface AplFormatOptions {
    /** Where a statement's `|` goes: starting the operator's line (`start`) or ending the line before (`end`). */
    pipe: 'start' | 'end';
    /** `one-per-line`: every `| operator` on its own line; `fit`: a pipeline that fits in `width` stays on one line. */
    pipeline: 'one-per-line' | 'fit';
    /** The line width for `pipeline: "fit"` and for long `project` lists. */
    width: number;
    /** `kind=inner` (false) or `kind = inner` (true): `=` in an operator's named arguments. */
    namedArgumentSpaces: boolean;
    /**
     * A `project` list longer than `width`: `keep` it as written, or one column a line with the comma at
     * the `end` of each line or at the `start` of the next.
     */
    projectCommas: 'keep' | 'end' | 'start';
    /** Continuation lines: `keep` their indentation as written, or indent them by this many spaces. */
    indent: 'keep' | number;
}

export const DEFAULT_FORMAT_OPTIONS: Readonly<AplFormatOptions> = Object.freeze({
    pipe: 'start',
    pipeline: 'one-per-line',
    width: 100,
    namedArgumentSpaces: false,
    projectCommas: 'keep',
    indent: 'keep',
});

/** The spaces of a generated continuation line when the indentation is kept as written. */
export const GENERATED_INDENT = 4;

type Check = (value: unknown) => boolean;

const CHECKS: Record<keyof AplFormatOptions, { valid: Check; expected: string }> = {
    pipe: { valid: v => v === 'start' || v === 'end', expected: '"start" or "end"' },
    pipeline: { valid: v => v === 'one-per-line' || v === 'fit', expected: '"one-per-line" or "fit"' },
    width: { valid: v => Number.isInteger(v) && (v as number) >= 20 && (v as number) <= 1000, expected: 'an integer from 20 to 1000' },
    namedArgumentSpaces: { valid: v => typeof v === 'boolean', expected: 'true or false' },
    projectCommas: { valid: v => v === 'keep' || v === 'end' || v === 'start', expected: '"keep", "end" or "start"' },
    indent: { valid: v => v === 'keep' || (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 16), expected: '"keep" or an integer from 0 to 16' },
};

export interface ReadFormatOptions {
    options: Partial<AplFormatOptions>;
    /** One line per bad or unknown field: `where.field: got …, expected …`. */
    problems: string[];
}

/**
 * The valid fields of a `format` object; every other field is a problem named with `where`
 * (e.g. `.aplrc.json format` or `apl.format`). `undefined` and `null` read as no options.
 */
export function readFormatOptions(value: unknown, where: string): ReadFormatOptions {
    const options: Partial<AplFormatOptions> = {};
    const problems: string[] = [];
    if (value === undefined || value === null) return { options, problems };
    if (typeof value !== 'object' || Array.isArray(value)) return { options, problems: [`${where}: expected an object, got ${show(value)}`] };
    for (const [key, v] of Object.entries(value)) {
        if (!Object.hasOwn(CHECKS, key)) {
            problems.push(`${where}.${key}: unknown option (known: ${Object.keys(CHECKS).join(', ')})`);
            continue;
        }
        const problem = formatOptionProblem(key as keyof AplFormatOptions, v);
        if (problem) {
            problems.push(`${where}.${key}: ${problem}`);
            continue;
        }
        (options as Record<string, unknown>)[key] = v;
    }
    return { options, problems };
}

/** Why `value` is not a valid `key` (`got …, expected …`), or undefined when it is. */
export function formatOptionProblem(key: keyof AplFormatOptions, value: unknown): string | undefined {
    const check = CHECKS[key];
    return check.valid(value) ? undefined : `got ${show(value)}, expected ${check.expected}`;
}

function show(v: unknown): string {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
