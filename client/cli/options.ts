/** Small helpers shared by the commands' option parsing. */
import { parseGoDuration } from '../../language/values.js';
import { CliError } from './cli-error.js';
import { readInput } from './read-input.js';
import { commandOfUsage, helpPointer } from './usage-error.js';
import { OUTPUT_FORMATS, type OutputFormat } from './render.js';

export function parseIntOption(option: string, value: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
        const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
        throw new CliError(`${option} must be ${range}, not '${value}'`);
    }
    return n;
}

/** A size option: bytes, or a number with k, m or g (binary units: `512m`, `1.5g`), in bytes. */
export function parseSizeOption(option: string, value: string, min = 1): number {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(value);
    const unit = m ? { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'] : 0;
    const n = m ? Math.floor(Number(m[1]) * unit) : NaN;
    if (!(n >= min)) throw new CliError(`${option} must be a size of at least ${min} bytes, such as 512m or 4g, not '${value}'`);
    return n;
}

/** A positive duration option (`30s`, `2m`, `500ms`, or a bare number of seconds), in ms. */
export function parseDurationOption(option: string, value: string): number {
    const text = value.trim();
    const ns = /^[0-9]+(\.[0-9]+)?$/.test(text) ? BigInt(Math.round(Number(text) * 1e9)) : parseGoDuration(text);
    if (ns === undefined || ns < 1_000_000n || ns > 86_400_000_000_000n) {
        throw new CliError(`${option} must be a duration from 1ms to 24h (such as 30s, 2m or 500ms), not '${value}'`);
    }
    return Number(ns / 1_000_000n);
}

export function parseOutputFormat(value: string | undefined, allowed: readonly OutputFormat[] = OUTPUT_FORMATS): OutputFormat {
    const f = value ?? 'table';
    if (!(allowed as readonly string[]).includes(f)) throw new CliError(`--format must be one of ${allowed.join(', ')}, not '${f}'`);
    return f as OutputFormat;
}

export interface QueryText {
    /** What to call the query in messages: the file name or `<query>`. */
    name: string;
    text: string;
}

/** The query from the single positional argument or `--file F` (`-` = stdin), exactly one of them. */
export function queryTextFrom(positionals: string[], file: string | undefined, usage: string): QueryText {
    if (file !== undefined && positionals.length > 0) throw new CliError(`give the query as an argument or with --file, not both\n${helpPointer(commandOfUsage(usage))}`);
    if (file !== undefined) return readInput(file);
    if (positionals.length === 0) throw new CliError(`missing the query (an argument, or --file F)\n${helpPointer(commandOfUsage(usage))}`);
    if (positionals.length > 1) {
        throw new CliError(`expected one query argument, got ${positionals.length} (quote the query: apl … "['logs'] | take 10")\n${helpPointer(commandOfUsage(usage))}`);
    }
    const text = positionals[0];
    if (text.trim() === '') throw new CliError('the query is empty');
    return { name: '<query>', text };
}
