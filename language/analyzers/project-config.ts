/**
 * The project file `.aplrc.json`, found upward from a checked file: the nearest one in the file's
 * folder or a folder above it applies. The reading is injected (the language server and `apl check`
 * pass a file reader), so this stays pure; paths are handled as strings, `/` or `\` separated.
 */
import { AnalyzerConfigError, parseAnalyzerConfig, PROJECT_CONFIG_FILE, type AnalyzerConfig } from './analyzer-config.js';

/** Reads a file's text, or undefined when there is no such file. */
export type ReadTextFile = (path: string) => string | undefined;

export interface ProjectConfig {
    /** The project file's path. */
    path: string;
    config: AnalyzerConfig;
}

/** The `.aplrc.json` paths that may apply to `filePath` (absolute), nearest first: `/a/b/q.apl` → `/a/b/…`, `/a/…`, `/…`. */
export function projectConfigCandidates(filePath: string): string[] {
    const sep = filePath.includes('\\') && !filePath.includes('/') ? '\\' : '/';
    const folders = filePath.split(/[\\/]/);
    folders.pop();
    const out: string[] = [];
    for (let n = folders.length; n >= 1; n--) out.push(`${folders.slice(0, n).join(sep)}${sep}${PROJECT_CONFIG_FILE}`);
    return out;
}

/**
 * The nearest project file's analyzer configuration, or undefined when there is none. A file that is
 * not valid JSON or has a wrong field throws an AnalyzerConfigError naming the file and the field.
 */
export function findProjectConfig(filePath: string, read: ReadTextFile): ProjectConfig | undefined {
    for (const path of projectConfigCandidates(filePath)) {
        const text = read(path);
        if (text === undefined) continue;
        let value: unknown;
        try {
            value = JSON.parse(text);
        } catch (e) {
            throw new AnalyzerConfigError(`${path}: not valid JSON (${(e as Error).message})`);
        }
        return { path, config: parseAnalyzerConfig(value, path) };
    }
    return undefined;
}
