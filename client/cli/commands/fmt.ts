import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { checkText } from '../../../language/check.js';
import { checkServices } from '../../../language/check.js';
import type { AplFormatter } from '../../../language/lsp/apl-formatter.js';
import { formatOptionProblem, readFormatOptions, type AplFormatOptions } from '../../../language/lsp/apl-format-options.js';
import { AplrcError, loadAplrc } from '../../../server/config/aplrc.js';
import { expandAplPaths } from '../apl-files.js';
import { CliError } from '../cli-error.js';
import { formatDiagnosticText, type CliDiagnostic } from '../diagnostic-format.js';
import { readInputOrReport } from '../read-input.js';

export const FMT_USAGE = `apl fmt [--check] [layout options] [FILE | DIR ... | -]

Formats APL query files with the language server's formatter: one '| operator' per line, one
space around binary operators and after commas, comments kept. Each block of lines up to a blank
line is a query formatted on its own, and one blank line is kept between blocks. A DIR stands for
the .apl files under it (node_modules and dot-folders left out). Files are rewritten in place; '-'
(or no FILE) reads standard input and writes the result to standard output.
Exit code 0: done (or, with --check, every file is formatted); 1: with --check, some file would
change (they are listed), or a block has a syntax error and is left as it is; 2: usage or I/O error.
  --check   change nothing: list the files that are not formatted, and exit 1 if there are any

Layout: the "format" object of the nearest .aplrc.json (or apl.config.json) in the file's folder or
above (the current folder for standard input), then these options, which win over it:
  --pipe start|end                   '|' starts the operator's line (default) or ends the line before
  --pipeline one-per-line|fit        every operator on its own line (default), or short pipelines on one line
  --width N                          the line width for 'fit' and long project lists (default 100)
  --named-argument-spaces            'kind = inner' instead of 'kind=inner'
  --project-commas keep|end|start    a project list longer than the width: one column a line, comma at
                                     the line's end or the next line's start (default: keep as written)
  --indent keep|N                    continuation lines: as written (default) or N spaces
  --no-config                        do not read a project file`;

export async function runFmt(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            check: { type: 'boolean', default: false },
            pipe: { type: 'string' },
            pipeline: { type: 'string' },
            width: { type: 'string' },
            'named-argument-spaces': { type: 'boolean' },
            'project-commas': { type: 'string' },
            indent: { type: 'string' },
            'no-config': { type: 'boolean', default: false },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(FMT_USAGE + '\n');
        return 0;
    }
    const { files, problem } = expandAplPaths(positionals.length > 0 ? positionals : ['-'], 'fmt', err);
    if (files.filter(f => f === '-').length > 1) throw new CliError("standard input ('-') can be read only once");
    const flags = layoutFlags(values);
    const formatter = checkServices().lsp.Formatter as AplFormatter;
    let worst = problem ? 2 : 0;
    for (const path of files) {
        const input = readInputOrReport(path, 'fmt', err);
        if (input === undefined) {
            worst = 2;
            continue;
        }
        const fromFile = values['no-config'] ? {} : projectFormatOptions(path === '-' ? process.cwd() : dirname(path));
        const options = { ...fromFile, ...flags };
        // The formatter leaves a block with syntax errors alone (and formats the others); say why.
        const syntax = (await checkText(input.text, { syntaxOnly: true })) as CliDiagnostic[];
        if (syntax.length > 0) {
            for (const d of syntax) err.write(formatDiagnosticText(input.name, input.text, d) + '\n');
            const lines = [...new Set(syntax.map(d => d.range.start.line + 1))];
            err.write(`apl fmt: ${input.name}: the query block at line ${lines.join(', ')} is not formatted (syntax error)\n`);
            worst = Math.max(worst, 1);
        }
        const formatted = formatter.formatText(input.text, options);
        const changed = formatted !== input.text;
        if (values.check) {
            if (changed) {
                out.write(`${input.name}\n`);
                worst = Math.max(worst, 1);
            }
            continue;
        }
        if (path === '-') {
            out.write(formatted);
            continue;
        }
        if (!changed) continue;
        try {
            writeFileSync(path, formatted);
        } catch (e) {
            err.write(`apl fmt: ${input.name}: cannot write (${(e as Error).message})\n`);
            worst = 2;
        }
    }
    return worst;
}

/** The layout options given on the command line, each checked (a bad value is a usage error naming the flag). */
function layoutFlags(values: Record<string, string | boolean | undefined>): Partial<AplFormatOptions> {
    const out: Partial<AplFormatOptions> = {};
    const set = <K extends keyof AplFormatOptions>(key: K, flag: string, value: unknown) => {
        if (value === undefined) return;
        const problem = formatOptionProblem(key, value);
        if (problem) throw new CliError(`--${flag}: ${problem}`);
        out[key] = value as AplFormatOptions[K];
    };
    const number = (v: string | boolean | undefined) => (typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v);
    set('pipe', 'pipe', values.pipe);
    set('pipeline', 'pipeline', values.pipeline);
    set('width', 'width', number(values.width));
    set('namedArgumentSpaces', 'named-argument-spaces', values['named-argument-spaces']);
    set('projectCommas', 'project-commas', values['project-commas']);
    set('indent', 'indent', number(values.indent));
    return out;
}

/** The "format" object of the nearest project file; a bad file or option is an error naming the file and field. */
function projectFormatOptions(dir: string): Partial<AplFormatOptions> {
    let file;
    try {
        file = loadAplrc(dir);
    } catch (e) {
        if (e instanceof AplrcError) throw new CliError(e.message);
        throw e;
    }
    if (!file) return {};
    const { options, problems } = readFormatOptions(file.config.format, `${file.path}: format`);
    if (problems.length > 0) throw new CliError(problems.join('\n'));
    return options;
}
