import { parseArgs } from 'node:util';
import { translate, TranslationError } from '../../../language/legacy/translate.js';
import { CliError } from '../cli-error.js';
import { queryTextFrom } from '../options.js';
import { formatQueryError } from '../query-error.js';
import { resolveTimeRange } from '../time-arg.js';

export const TRANSLATE_USAGE = `apl translate [--start TIME] [--end TIME] [--body] (QUERY | --file F)

Translates an APL query to the legacy structured query JSON (POST /v1/datasets/{dataset}/query).
Prints {"dataset": …, "query": {…}}. Exit code 0: translated; 1: the query has no legacy form (or a
syntax error), printed as file:line:col with the construct; 2: usage or I/O error.
  --start, --end   the time range: RFC 3339, a date, or now-1h / now-7d (default: 1970-01-01 to now)
  --body           print only the query body (what you POST), not the wrapper with the dataset
  --file F         read the query from F ('-' for standard input)`;

export async function runTranslate(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            start: { type: 'string' },
            end: { type: 'string' },
            file: { type: 'string', short: 'f' },
            body: { type: 'boolean', default: false },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(TRANSLATE_USAGE + '\n');
        return 0;
    }
    const query = queryTextFrom(positionals, values.file, TRANSLATE_USAGE);
    const range = resolveTimeRange({ start: values.start, end: values.end });
    const startTime = range.startTime ?? '1970-01-01T00:00:00Z';
    const endTime = range.endTime ?? new Date().toISOString();
    if (range.startTime === undefined && range.endNs !== undefined && range.endNs < 0n) {
        throw new CliError('--end is before 1970-01-01; give --start as well');
    }
    let result;
    try {
        result = translate(query.text, { startTime, endTime });
    } catch (e) {
        if (e instanceof TranslationError) {
            const { start, end } = e.range;
            const endColumn = end.line === start.line && end.character > start.character ? end.character + 1 : undefined;
            err.write(formatQueryError(query.name, query.text, e.message, { line: start.line + 1, column: start.character + 1, endColumn }) + '\n');
            return 1;
        }
        throw e;
    }
    out.write(JSON.stringify(values.body ? result.query : result, null, 2) + '\n');
    return 0;
}
