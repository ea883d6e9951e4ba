/**
 * The name an imported `.ipynb` gets as an APL notebook: `<name>.aplnb` beside the `.ipynb`, opened
 * untitled (nothing is written until the user saves, as VS Code's own conversions do), so the tab
 * and the Save dialog show that name instead of `Untitled-N.aplnb`.
 */
import { basename, dirname, extname, join } from 'node:path';

/** `<dir>/<name>.aplnb`, or `<name>-2.aplnb`, `-3`, … when a path is taken (an open notebook of the same name). */
export function importedNotebookPath(ipynbPath: string, taken: (path: string) => boolean): string {
    const name = basename(ipynbPath, extname(ipynbPath)) || 'notebook';
    const dir = dirname(ipynbPath);
    for (let n = 1; ; n++) {
        const candidate = join(dir, `${name}${n === 1 ? '' : `-${n}`}.aplnb`);
        if (!taken(candidate)) return candidate;
    }
}
