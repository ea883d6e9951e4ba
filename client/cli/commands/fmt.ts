import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkText } from '../../../language/check.js';
import { checkServices } from '../../../language/check.js';
import type { AplFormatter } from '../../../language/lsp/apl-formatter.js';
import { expandAplPaths } from '../apl-files.js';
import { CliError } from '../cli-error.js';
import { formatDiagnosticText, type CliDiagnostic } from '../diagnostic-format.js';
import { readInputOrReport } from '../read-input.js';

export const FMT_USAGE = `apl fmt [--check] [FILE | DIR ... | -]

Formats APL query files with the language server's formatter: one '| operator' per line, one
space around binary operators and after commas, comments kept. Each block of lines up to a blank
line is a query formatted on its own, and one blank line is kept between blocks. A DIR stands for
the .apl files under it (node_modules and dot-folders left out). Files are rewritten in place; '-'
(or no FILE) reads standard input and writes the result to standard output.
Exit code 0: done (or, with --check, every file is formatted); 1: with --check, some file would
change (they are listed), or a block has a syntax error and is left as it is; 2: usage or I/O error.
  --check   change nothing: list the files that are not formatted, and exit 1 if there are any`;

export async function runFmt(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            check: { type: 'boolean', default: false },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(FMT_USAGE + '\n');
        return 0;
    }
    const { files, problem } = expandAplPaths(positionals.length > 0 ? positionals : ['-'], 'fmt', err);
    if (files.filter(f => f === '-').length > 1) throw new CliError("standard input ('-') can be read only once");
    const formatter = checkServices().lsp.Formatter as AplFormatter;
    let worst = problem ? 2 : 0;
    for (const path of files) {
        const input = readInputOrReport(path, 'fmt', err);
        if (input === undefined) {
            worst = 2;
            continue;
        }
        // The formatter leaves a block with syntax errors alone (and formats the others); say why.
        const syntax = (await checkText(input.text, { syntaxOnly: true })) as CliDiagnostic[];
        if (syntax.length > 0) {
            for (const d of syntax) err.write(formatDiagnosticText(input.name, input.text, d) + '\n');
            const lines = [...new Set(syntax.map(d => d.range.start.line + 1))];
            err.write(`apl fmt: ${input.name}: the query block at line ${lines.join(', ')} is not formatted (syntax error)\n`);
            worst = Math.max(worst, 1);
        }
        const formatted = formatter.formatText(input.text);
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
