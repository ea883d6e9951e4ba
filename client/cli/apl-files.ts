import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders never searched for `.apl` files: installed packages and dot-folders (`.git`, `.vscode`, ...). */
function skipped(folder: string): boolean {
    return folder === 'node_modules' || folder.startsWith('.');
}

/** The `.apl` files under `dir`, recursively, in a stable order (sorted at each level). */
export function aplFilesUnder(dir: string): string[] {
    const out: string[] = [];
    const walk = (folder: string) => {
        let entries;
        try {
            entries = readdirSync(folder, { withFileTypes: true });
        } catch {
            return; // an unreadable sub-folder is skipped, as `find` would go on
        }
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const e of entries) {
            const path = join(folder, e.name);
            if (e.isDirectory()) {
                if (!skipped(e.name)) walk(path);
            } else if (e.isFile() && e.name.endsWith('.apl')) out.push(path);
        }
    };
    walk(dir);
    return out;
}

/**
 * The command's arguments with each directory replaced by the `.apl` files under it. A directory
 * without any is reported on `err` (`apl COMMAND: DIR: no .apl files …`) and counts as a problem.
 */
export function expandAplPaths(paths: readonly string[], command: string, err: NodeJS.WritableStream): { files: string[]; problem: boolean } {
    const files: string[] = [];
    let problem = false;
    for (const path of paths) {
        let directory = false;
        try {
            directory = path !== '-' && statSync(path).isDirectory();
        } catch {
            // not there or unreadable: reading it reports the problem
        }
        if (!directory) {
            files.push(path);
            continue;
        }
        const found = aplFilesUnder(path);
        if (found.length === 0) {
            err.write(`apl ${command}: ${path}: no .apl files in this directory (node_modules and dot-folders are not searched)\n`);
            problem = true;
        }
        files.push(...found);
    }
    return { files, problem };
}
