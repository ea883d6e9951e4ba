/** Small helpers shared by the commands' option parsing. */
import { CliError } from './cli-error.js';
import { readInput } from './read-input.js';
import { OUTPUT_FORMATS, type OutputFormat } from './render.js';

export function parseIntOption(option: string, value: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
        const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
        throw new CliError(`${option} must be ${range}, not '${value}'`);
    }
    return n;
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
    if (file !== undefined && positionals.length > 0) throw new CliError(`give the query as an argument or with --file, not both\n\n${usage}`);
    if (file !== undefined) return readInput(file);
    if (positionals.length === 0) throw new CliError(`missing the query (an argument, or --file F)\n\n${usage}`);
    if (positionals.length > 1) {
        throw new CliError(`expected one query argument, got ${positionals.length} (quote the query: apl … "['logs'] | take 10")\n\n${usage}`);
    }
    const text = positionals[0];
    if (text.trim() === '') throw new CliError('the query is empty');
    return { name: '<query>', text };
}
