import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Issues } from '../../../language/apl-issue-codes.js';
import { checkText } from '../../../language/check.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';
import { parseSchemaJson, StaticSchemaProvider, type SchemaProvider } from '../../../language/schema/index.js';
import { expandAplPaths } from '../apl-files.js';
import { CliError } from '../cli-error.js';
import { formatDiagnosticText, type CliDiagnostic } from '../diagnostic-format.js';
import { readInputOrReport } from '../read-input.js';
import { toSarif } from '../sarif.js';
import packageJson from '../../../package.json' with { type: 'json' };

export const CHECK_USAGE = `apl check [--syntax-only] [--format text|json|sarif] [--schema FILE] [FILE | DIR ... | -]

Checks APL query files (a DIR: the .apl files under it, node_modules and dot-folders left out). Each
block of lines, up to a blank line, is a query of its own. Exit code 0: no errors; 1: some file has
an error; 2: usage or I/O error.
  --syntax-only   report only lexing and parsing problems
  --format        text (default): file:line:col: severity CODE message, with the source line
                  json: [{"file", "diagnostics": [{severity, code, message, range}]}], 0-based positions
                  sarif: a SARIF 2.1.0 log for code-scanning tools (rule ids = the APL codes)
  --schema FILE   a schema JSON file (see docs/schema-file.md); unknown datasets/fields become warnings.
                  Without it, the sample datasets' fields are known (as in the editor): an unknown
                  field of sample-http-logs is a warning, other datasets are not checked`;

/** What the language server knows without a schema file: the sample datasets' fields. */
const sampleSchema: SchemaProvider = new BuiltinSchemaProvider();

interface FileReport {
    file: string;
    diagnostics: CliDiagnostic[];
}

export async function runCheck(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            'syntax-only': { type: 'boolean', default: false },
            format: { type: 'string', default: 'text' },
            schema: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(CHECK_USAGE + '\n');
        return 0;
    }
    if (values.format !== 'text' && values.format !== 'json' && values.format !== 'sarif') throw new CliError(`--format must be text, json or sarif, not '${values.format}'`);
    const { files, problem } = expandAplPaths(positionals.length > 0 ? positionals : ['-'], 'check', err);
    const schema = values.schema !== undefined ? loadSchema(values.schema) : sampleSchema;

    let worst = problem ? 2 : 0;
    const reports: FileReport[] = [];
    for (const path of files) {
        const input = readInputOrReport(path, 'check', err);
        if (input === undefined) {
            worst = 2;
            continue;
        }
        let diagnostics = (await checkText(input.text, { schema, syntaxOnly: values['syntax-only'] })) as CliDiagnostic[];
        // The sample schemas know a few datasets, not the user's: an unknown dataset is not a finding without --schema.
        if (schema === sampleSchema) diagnostics = diagnostics.filter(d => d.code !== Issues.UnknownDataset.code);
        reports.push({ file: input.name, diagnostics });
        if (diagnostics.some(d => d.severity === 'error')) worst = Math.max(worst, 1);
        if (values.format === 'text') {
            for (const d of diagnostics) out.write(formatDiagnosticText(input.name, input.text, d) + '\n');
        }
    }
    if (values.format === 'json') out.write(JSON.stringify(reports, null, 2) + '\n');
    if (values.format === 'sarif') out.write(JSON.stringify(toSarif(reports, packageJson.version), null, 2) + '\n');
    return worst;
}

export function loadSchema(path: string): SchemaProvider {
    let text: string;
    try {
        text = readFileSync(path, 'utf8');
    } catch (e) {
        throw new CliError(`--schema ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    try {
        return new StaticSchemaProvider(parseSchemaJson(text, path));
    } catch (e) {
        throw new CliError(`--schema ${path}: ${(e as Error).message}`);
    }
}
