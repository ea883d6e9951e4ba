/**
 * Which analyzers run and how loud they are: `{"rules": {"APL2001": "off"|"info"|"warning"|"error"},
 * "requireTimeFilter": true}`, from the editor's `apl.analyzers` setting and a project file
 * `.aplrc.json` (read by the language server and the CLI, which do the I/O; here only the JSON value
 * is checked and merged).
 */
import { analyzerRuleByCode, type AnalyzerRule } from './analyzer-rules.js';

export type RuleSetting = 'off' | 'info' | 'warning' | 'error';

export interface AnalyzerConfig {
    /** Per-code settings; a code not listed keeps its default severity. */
    rules?: Readonly<Record<string, RuleSetting>>;
    /** Report APL2005 (no filter on `_time`). */
    requireTimeFilter?: boolean;
}

/** The default: every rule at its own severity, no time filter required. */
export const DEFAULT_ANALYZER_CONFIG: AnalyzerConfig = Object.freeze({});

/** The name of the project file, found upward from the checked file. */
export const PROJECT_CONFIG_FILE = '.aplrc.json';

const SETTINGS = new Set<string>(['off', 'info', 'warning', 'error']);

export class AnalyzerConfigError extends Error {}

/**
 * Checks a parsed `.aplrc.json` (or the `apl.analyzers` setting) and keeps what analyzers use; other
 * top-level keys are left for other tools (formatter options). Throws an AnalyzerConfigError naming
 * the field and the value.
 */
export function parseAnalyzerConfig(value: unknown, where: string): AnalyzerConfig {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AnalyzerConfigError(`${where}: must be a JSON object`);
    const obj = value as Record<string, unknown>;
    const config: { rules?: Record<string, RuleSetting>; requireTimeFilter?: boolean } = {};
    if (obj.rules !== undefined) {
        if (obj.rules === null || typeof obj.rules !== 'object' || Array.isArray(obj.rules)) throw new AnalyzerConfigError(`${where}: "rules" must be an object of code → "off" | "info" | "warning" | "error"`);
        const rules: Record<string, RuleSetting> = {};
        for (const [code, setting] of Object.entries(obj.rules as Record<string, unknown>)) {
            if (!analyzerRuleByCode(code)) throw new AnalyzerConfigError(`${where}: "rules"."${code}": not an analyzer code (APL2000–APL2016)`);
            if (typeof setting !== 'string' || !SETTINGS.has(setting)) throw new AnalyzerConfigError(`${where}: "rules"."${code}": ${JSON.stringify(setting)} is not "off", "info", "warning" or "error"`);
            rules[code] = setting as RuleSetting;
        }
        config.rules = rules;
    }
    if (obj.requireTimeFilter !== undefined) {
        if (typeof obj.requireTimeFilter !== 'boolean') throw new AnalyzerConfigError(`${where}: "requireTimeFilter" must be true or false, not ${JSON.stringify(obj.requireTimeFilter)}`);
        config.requireTimeFilter = obj.requireTimeFilter;
    }
    return config;
}

/** `base` with `over` on top (rule by rule): settings first, then the project file. */
export function mergeAnalyzerConfigs(base: AnalyzerConfig, over: AnalyzerConfig): AnalyzerConfig {
    const merged: { rules?: Record<string, RuleSetting>; requireTimeFilter?: boolean } = {};
    if (base.rules || over.rules) merged.rules = { ...base.rules, ...over.rules };
    const require = over.requireTimeFilter ?? base.requireTimeFilter;
    if (require !== undefined) merged.requireTimeFilter = require;
    return merged;
}

/** The severity a rule reports at under `config`, or undefined when it is off. */
export function ruleSeverity(rule: AnalyzerRule, config: AnalyzerConfig): 'info' | 'warning' | 'error' | undefined {
    const setting = config.rules?.[rule.code];
    if (setting === 'off') return undefined;
    return setting ?? rule.severity;
}
