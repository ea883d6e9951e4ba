// The VS Code extension's bundles (scripts/bundles.mjs lists them with the others): the extension host code,
// the language server, the bundled `apl serve` (with its three workers) and the results webview go to
// client/vscode/dist/, so the .vsix carries no node_modules. The extension-host test suite goes to
// out/vscode-test/ (not in the .vsix).
import { copyFile, cp, mkdir, readdir } from 'node:fs/promises';

export const DIST = 'client/vscode/dist';

/**
 * `common` and `cjs` are scripts/bundles.mjs's: the same options as the package's own bins;
 * `workerBuildCheck` the first lines of each worker bundle (a worker of another build refuses to start).
 */
export function vscodeBuilds(common, cjs, workerBuildCheck) {
    return [
        cjs({ entryPoints: ['client/vscode/src/extension.ts'], outfile: `${DIST}/extension.cjs` }),
        cjs({ entryPoints: ['server/lsp/main.ts'], outfile: `${DIST}/language-server.cjs`, keepNames: false }),
        // The bundled `apl serve` finds its three workers beside it.
        cjs({ entryPoints: ['client/cli/main.ts'], outfile: `${DIST}/apl-cli.cjs` }),
        cjs({ entryPoints: ['server/store/compact-worker.ts'], outfile: `${DIST}/compact-worker.cjs`, banner: { js: workerBuildCheck } }),
        cjs({ entryPoints: ['server/ingest/prepare-worker.ts'], outfile: `${DIST}/ingest-worker.cjs`, banner: { js: workerBuildCheck } }),
        cjs({ entryPoints: ['server/query/query-worker.ts'], outfile: `${DIST}/query-worker.cjs`, banner: { js: workerBuildCheck } }),
        {
            ...common,
            entryPoints: { webview: 'client/vscode/webview/main.ts' },
            outdir: DIST,
            entryNames: '[name]',
            format: 'iife',
            platform: 'browser',
            target: 'chrome120',
            external: [],
        },
        // The notebook output renderer: an ES module VS Code loads into the notebook's output frame.
        { ...common, entryPoints: { 'notebook-renderer': 'client/vscode/webview/notebook/renderer.ts' }, outdir: DIST, entryNames: '[name]', format: 'esm', platform: 'browser', target: 'chrome120', external: [] },
        { ...common, entryPoints: { webview: 'client/vscode/webview/styles.css' }, outdir: DIST, entryNames: '[name]', external: [], loader: { '.css': 'css' } },
        cjs({ entryPoints: ['test/vscode/suite/index.ts'], outfile: 'out/vscode-test/suite.cjs', external: ['vscode', 'mocha'], minify: false }),
    ];
}

/** The grammar and language configuration the manifest points at (one copy each in the repository). */
export async function copyVscodeAssets(dist = DIST) {
    await mkdir(dist, { recursive: true });
    await copyFile('syntaxes/apl.tmLanguage.json', `${dist}/apl.tmLanguage.json`);
    await copyFile('language-configuration.json', `${dist}/language-configuration.json`);
    // The project's documentation, for "APL: Open Documentation" (the .vsix has no link to a public repository).
    await mkdir(`${dist}/docs/docs`, { recursive: true });
    await copyFile('README.md', `${dist}/docs/README.md`);
    for (const name of await readdir('docs')) if (name.endsWith('.md')) await copyFile(`docs/${name}`, `${dist}/docs/docs/${name}`);
    await cp('docs/images', `${dist}/docs/docs/images`, { recursive: true });
}
