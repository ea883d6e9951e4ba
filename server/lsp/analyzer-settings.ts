/**
 * The analyzers' configuration in the language server: the `apl.analyzers` setting (on by default),
 * with the nearest project file above the document (server/config/aplrc.ts) on top, rule by rule. The file is looked up and
 * read at each validation of a `file:` document (a few stats; its parse is kept while its text is
 * the same), so an edited project file applies at the next change of the document.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeAnalyzerConfigs, parseAnalyzerConfig, type AnalyzerConfig } from '../../language/analyzers/analyzer-config.js';
import type { AnalyzerSettings } from '../../language/analyzers/analyzer-diagnostics.js';
import { loadAplrc } from '../config/aplrc.js';

export class ServerAnalyzerSettings implements AnalyzerSettings {
    /** From the setting; undefined = analyzers off. */
    private settings: AnalyzerConfig | undefined = {};
    /** Problems already shown (each once, until it changes). */
    private readonly shown = new Set<string>();

    /** @param showProblem tells the user about a bad setting or project file (a message, never a crash). */
    constructor(private readonly showProblem: (message: string) => void) {}

    /** `apl.analyzers`: `{ enabled?, rules?, requireTimeFilter? }`; a missing or empty value means on, with the defaults. */
    applySetting(value: unknown): void {
        if (value === undefined || value === null) {
            this.settings = {};
            return;
        }
        if (typeof value === 'object' && !Array.isArray(value) && (value as { enabled?: unknown }).enabled === false) {
            this.settings = undefined;
            return;
        }
        try {
            this.settings = parseAnalyzerConfig(value, 'the apl.analyzers setting');
        } catch (e) {
            this.settings = {};
            this.showOnce(`APL: ${(e as Error).message}; using the analyzers' defaults.`);
        }
    }

    configFor(uri: string): AnalyzerConfig | undefined {
        const settings = this.settings;
        if (!settings || !uri.startsWith('file:')) return settings;
        let path: string;
        try {
            path = fileURLToPath(uri);
        } catch {
            return settings;
        }
        try {
            const project = loadAplrc(dirname(path));
            return project ? mergeAnalyzerConfigs(settings, parseAnalyzerConfig(project.config, project.path)) : settings;
        } catch (e) {
            this.showOnce(`APL: ${(e as Error).message}; the project file is ignored.`);
            return settings;
        }
    }

    private showOnce(message: string): void {
        if (this.shown.has(message)) return;
        this.shown.add(message);
        this.showProblem(message);
    }
}
