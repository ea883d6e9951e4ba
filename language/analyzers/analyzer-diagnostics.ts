/**
 * Analyzer findings as LSP diagnostics, after suppression comments: what the document validator
 * adds to a document's diagnostics when analyzers are on (the language server by default, `apl
 * check`, `checkText(…, { analyzers })`). Each diagnostic carries its quick fix in `data.fix`, with
 * LSP ranges, for the code action provider and `apl check --fix`.
 */
import type { LangiumDocument } from 'langium';
import type { Diagnostic, Range } from 'vscode-languageserver';
import type { Model } from '../generated/ast.js';
import type { AplTypeComputer } from '../types/apl-type-computer.js';
import { runAnalyzers } from './analyzers.js';
import { AnalyzerRules, analyzerRuleByCode } from './analyzer-rules.js';
import { ruleSeverity, type AnalyzerConfig } from './analyzer-config.js';
import { applySuppressions, suppressionComments } from './suppression.js';

/** The configuration of analyzers for a document; undefined = analyzers off. */
export interface AnalyzerSettings {
    configFor(uri: string): AnalyzerConfig | undefined;
}

/** The library's default: analyzers off (checkText and embedders turn them on explicitly). */
export class NoAnalyzerSettings implements AnalyzerSettings {
    configFor(): AnalyzerConfig | undefined {
        return undefined;
    }
}

/** The same configuration for every document. */
export class FixedAnalyzerSettings implements AnalyzerSettings {
    constructor(private config: AnalyzerConfig | undefined) {}
    configFor(): AnalyzerConfig | undefined {
        return this.config;
    }
    set(config: AnalyzerConfig | undefined): void {
        this.config = config;
    }
}

/** A quick fix in `data.fix`: LSP ranges, ready for a WorkspaceEdit. */
export interface DiagnosticFix {
    title: string;
    safe: boolean;
    edits: { range: Range; newText: string }[];
}

export interface AnalyzerDiagnosticData {
    code: string;
    fix?: DiagnosticFix;
}

const LSP_SEVERITY = { error: 1, warning: 2, info: 3 } as const;

export function analyzerDiagnostics(document: LangiumDocument, types: AplTypeComputer, config: AnalyzerConfig, source: string): Diagnostic[] {
    const text = document.textDocument.getText();
    const at = (offset: number) => document.textDocument.positionAt(offset);
    const findings = runAnalyzers(document.parseResult.value as Model, text, types, config).map(f => ({ ...f, line: at(f.start).line }));
    const enabled = (code: string) => {
        const rule = analyzerRuleByCode(code);
        // APL2005 reports only when a time filter is required: a suppression of it is not stale otherwise.
        if (rule === AnalyzerRules.MissingTimeFilter && !config.requireTimeFilter) return false;
        return rule !== undefined && ruleSeverity(rule, config) !== undefined;
    };
    const { kept, unused } = applySuppressions(findings, suppressionComments(text), enabled);
    const out: Diagnostic[] = kept.map(f => {
        const data: AnalyzerDiagnosticData = { code: f.code };
        if (f.fix) data.fix = { title: f.fix.title, safe: f.fix.safe, edits: f.fix.edits.map(e => ({ range: { start: at(e.start), end: at(e.end) }, newText: e.newText })) };
        return { severity: LSP_SEVERITY[f.severity], range: { start: at(f.start), end: at(f.end) }, message: f.message, code: f.code, data, source };
    });
    const unusedSeverity = ruleSeverity(AnalyzerRules.UnusedSuppression, config);
    if (unusedSeverity) {
        for (const c of unused) {
            const code = AnalyzerRules.UnusedSuppression.code;
            const known = analyzerRuleByCode(c.code) !== undefined;
            const message = known ? `Nothing here is reported as ${c.code}: remove the suppression.` : `${c.code} is not an analyzer code (APL2001…); only analyzer findings can be suppressed.`;
            // One code of several: remove that code only; the only code: remove the comment's line.
            const edit = c.siblings === 1 ? { range: { start: at(c.lineStart), end: at(c.lineEnd) }, newText: '' } : { range: { start: at(c.start), end: at(c.end) }, newText: '' };
            const data: AnalyzerDiagnosticData = { code, fix: { title: `Remove the suppression of ${c.code}`, safe: true, edits: [edit] } };
            out.push({ severity: LSP_SEVERITY[unusedSeverity], range: { start: at(c.start), end: at(c.end) }, message, code, data, source });
        }
    }
    return out;
}
