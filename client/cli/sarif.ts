/**
 * `apl check --format sarif`: the diagnostics as a SARIF 2.1.0 log, the format code-scanning tools
 * (GitHub code scanning, Azure DevOps, SonarQube, ...) read to show problems inline. One rule per
 * APL code, with its help text from the code table (language/apl-issue-codes.ts), and one per
 * analyzer rule with its explanation and examples (language/analyzers/analyzer-rules.ts).
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { allIssues } from '../../language/apl-issue-codes.js';
import { allAnalyzerRules, analyzerRuleMarkdown, analyzerRuleText } from '../../language/analyzers/analyzer-rules.js';
import type { CliDiagnostic } from './diagnostic-format.js';

export interface SarifFileReport {
    /** As given on the command line (`<stdin>` for standard input). */
    file: string;
    diagnostics: CliDiagnostic[];
}

const LEVEL: Record<CliDiagnostic['severity'], Result.level> = { error: 'error', warning: 'warning', info: 'note', hint: 'note' };

/** A relative path stays relative to the checkout (`%SRCROOT%`), as code-scanning uploads expect. */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
    if (file === '<stdin>') return { uri: 'stdin' };
    if (isAbsolute(file)) return { uri: pathToFileURL(file).href };
    return { uri: encodeURI(file.replace(/\\/g, '/').replace(/^\.\//, '')), uriBaseId: '%SRCROOT%' };
}

export function toSarif(reports: readonly SarifFileReport[], version: string): Log {
    const issues = allIssues();
    const rules: ReportingDescriptor[] = issues.map(i => ({
        id: i.code,
        name: i.id.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase()),
        shortDescription: { text: i.id.replace(/-/g, ' ') },
        fullDescription: { text: i.help },
        help: { text: i.help },
        defaultConfiguration: { level: LEVEL[i.severity] },
    }));
    // The analyzers' rules (APL2000…): help with the explanation and a bad and a good example.
    for (const r of allAnalyzerRules()) {
        rules.push({
            id: r.code,
            name: r.id.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase()),
            shortDescription: { text: r.title.replace(/`/g, '') },
            fullDescription: { text: r.help },
            help: { text: analyzerRuleText(r), markdown: analyzerRuleMarkdown(r) },
            defaultConfiguration: { level: LEVEL[r.severity] },
            properties: { tags: ['best-practice'], fix: r.fix },
        });
    }
    const ruleIndex = new Map(rules.map((r, k) => [r.id, k]));
    const results: Result[] = [];
    for (const report of reports) {
        for (const d of report.diagnostics) {
            const index = ruleIndex.get(d.code);
            results.push({
                ruleId: d.code,
                ...(index !== undefined ? { ruleIndex: index } : {}),
                level: LEVEL[d.severity],
                message: { text: d.message },
                locations: [
                    {
                        physicalLocation: {
                            artifactLocation: artifactLocation(report.file),
                            region: {
                                startLine: d.range.start.line + 1,
                                startColumn: d.range.start.character + 1,
                                endLine: d.range.end.line + 1,
                                endColumn: d.range.end.character + 1,
                            },
                        },
                    },
                ],
            });
        }
    }
    return {
        $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
        version: '2.1.0',
        runs: [
            {
                tool: { driver: { name: 'apl check', version, rules } },
                columnKind: 'utf16CodeUnits',
                results,
            },
        ],
    };
}
