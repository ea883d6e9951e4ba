import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Issues, issueByCode } from '../../../language/apl-issue-codes.js';
import { mergeAnalyzerConfigs, parseAnalyzerConfig, type AnalyzerConfig } from '../../../language/analyzers/analyzer-config.js';
import { analyzerRuleByCode, analyzerRuleText } from '../../../language/analyzers/analyzer-rules.js';
import { applyFixes } from '../../../language/analyzers/apply-fixes.js';
import { loadAplrc } from '../../../server/config/aplrc.js';
import { checkText } from '../../../language/check.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';
import { parseSchemaJson, StaticSchemaProvider, type SchemaProvider } from '../../../language/schema/index.js';
import { expandAplPaths } from '../apl-files.js';
import { CliError } from '../cli-error.js';
import { formatDiagnosticText, type CliDiagnostic } from '../diagnostic-format.js';
import { readInputOrReport } from '../read-input.js';
import { toSarif } from '../sarif.js';
import { terminalLines, terminalText } from '../terminal-text.js';
import packageJson from '../../../package.json' with { type: 'json' };

export const CHECK_USAGE = `apl check [--syntax-only] [--format text|json|sarif] [--schema FILE] [--fix] [--require-time-filter]
          [--no-analyzers] [FILE | DIR ... | -]
apl check --explain CODE

Checks APL query files (a DIR: the .apl files under it, node_modules and dot-folders left out). Each
block of lines, up to a blank line, is a query of its own. Best-practice analyzers (APL2001…) add
advice; the nearest .aplrc.json above a file selects them ({"rules": {"APL2001": "off"|"info"|
"warning"|"error"}, "requireTimeFilter": true}). Exit code 0: no errors; 1: some file has an error;
2: usage or I/O error.
  --syntax-only   report only lexing and parsing problems
  --fix           apply the analyzers' safe fixes to the files in place, then report what is left
  --require-time-filter  report queries with no filter on _time (APL2005)
  --no-analyzers  report only the checker's diagnostics (APL0001…, APL1001…)
  --explain CODE  explain a diagnostic or analyzer code, with a bad and a good example
  --format        text (default): file:line:col: severity CODE message, with the source line
                  json: [{"file", "diagnostics": [{severity, code, message, range}]}], 0-based positions
                  sarif: a SARIF 2.1.0 log for code-scanning tools (rule ids = the APL codes)
  --schema FILE   a schema JSON file (see docs/schema-file.md); unknown datasets/fields become warnings.
                  Without it, the sample datasets' fields are known (as in the editor): an unknown
                  field of sample-http-logs is a warning, other datasets are not checked`;

/** What the language server knows without a schema file: the sample datasets' fields (incomplete: other datasets are not checked). */
const sampleSchema: SchemaProvider = new BuiltinSchemaProvider({ complete: false });

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
            fix: { type: 'boolean', default: false },
            'require-time-filter': { type: 'boolean', default: false },
            'no-analyzers': { type: 'boolean', default: false },
            explain: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(CHECK_USAGE + '\n');
        return 0;
    }
    if (values.explain !== undefined) return explain(values.explain, out, err);
    if (values.format !== 'text' && values.format !== 'json' && values.format !== 'sarif') throw new CliError(`--format must be text, json or sarif, not '${values.format}'`);
    const { files, problem } = expandAplPaths(positionals.length > 0 ? positionals : ['-'], 'check', err);
    const schema = values.schema !== undefined ? loadSchema(values.schema) : sampleSchema;

    if (values.fix && files.includes('-')) throw new CliError('--fix rewrites files in place: it cannot fix standard input');
    const flags: AnalyzerConfig = values['require-time-filter'] ? { requireTimeFilter: true } : {};

    let worst = problem ? 2 : 0;
    const reports: FileReport[] = [];
    for (const path of files) {
        const input = readInputOrReport(path, 'check', err);
        if (input === undefined) {
            worst = 2;
            continue;
        }
        let analyzers: AnalyzerConfig | undefined;
        if (!values['no-analyzers']) {
            try {
                analyzers = analyzerConfigFor(path, flags);
            } catch (e) {
                err.write(`apl check: ${terminalLines((e as Error).message)}\n`);
                worst = 2;
                continue;
            }
        }
        const options = { schema, syntaxOnly: values['syntax-only'], ...(analyzers ? { analyzers } : {}) };
        if (values.fix && analyzers) {
            const fixed = await fixFile(input.text, options);
            if (fixed.applied > 0) {
                writeFileSync(path, fixed.text);
                input.text = fixed.text;
                err.write(`apl check: ${input.name}: applied ${fixed.applied} fix${fixed.applied === 1 ? '' : 'es'}\n`);
            }
        }
        const diagnostics = (await checkText(input.text, options)) as CliDiagnostic[];
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

/** The analyzers' configuration for a file: the nearest .aplrc.json above it (or above the working folder for stdin), then the flags. */
function analyzerConfigFor(path: string, flags: AnalyzerConfig): AnalyzerConfig {
    const at = resolve(path === '-' ? '<stdin>' : path);
    const project = loadAplrc(dirname(at));
    return project ? mergeAnalyzerConfigs(parseAnalyzerConfig(project.config, project.path), flags) : flags;
}

/** Applies the safe fixes, checking again after each round (fixes that overlapped wait for the next), up to 10 rounds. */
async function fixFile(text: string, options: Parameters<typeof checkText>[1]): Promise<{ text: string; applied: number }> {
    let applied = 0;
    for (let round = 0; round < 10; round++) {
        const diagnostics = await checkText(text, options);
        if (diagnostics.some(d => d.code === Issues.SyntaxError.code)) break;
        const result = applyFixes(text, diagnostics);
        if (result.applied === 0) break;
        text = result.text;
        applied += result.applied;
    }
    return { text, applied };
}

/** `apl check --explain APL2006`: the rule's explanation and examples (or a checker code's help). */
function explain(code: string, out: NodeJS.WritableStream, err: NodeJS.WritableStream): number {
    const wanted = code.trim().toUpperCase();
    const rule = analyzerRuleByCode(wanted);
    if (rule) {
        out.write(analyzerRuleText(rule) + '\n');
        return 0;
    }
    const issue = issueByCode(wanted);
    if (issue) {
        out.write(`${issue.code} ${issue.id} (${issue.severity})\n\n${issue.help}\n`);
        return 0;
    }
    err.write(`apl check: --explain: '${terminalText(code)}' is not a diagnostic or analyzer code (APL0001…, APL1001…, APL2000…)\n`);
    return 2;
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
