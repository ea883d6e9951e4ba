// The VS Code extension's bundles (scripts/bundles.mjs lists them with the others): the extension host code,
// the language server, the bundled `apl serve` (with its three workers) and the results webview go to
// client/vscode/dist/, so the .vsix carries no node_modules. The extension-host test suite goes to
// out/vscode-test/ (not in the .vsix).
import { copyFile, cp, mkdir, readdir } from 'node:fs/promises';

const DIST = 'client/vscode/dist';

/** `common` and `cjs` are scripts/bundles.mjs's: the same options as the package's own bins. */
export function vscodeBuilds(common, cjs) {
    return [
        cjs({ entryPoints: ['client/vscode/src/extension.ts'], outfile: `${DIST}/extension.cjs` }),
        cjs({ entryPoints: ['server/lsp/main.ts'], outfile: `${DIST}/language-server.cjs`, keepNames: false }),
        // The bundled `apl serve` finds its three workers beside it.
        cjs({ entryPoints: ['client/cli/main.ts'], outfile: `${DIST}/apl-cli.cjs` }),
        cjs({ entryPoints: ['server/store/compact-worker.ts'], outfile: `${DIST}/compact-worker.cjs` }),
        cjs({ entryPoints: ['server/ingest/prepare-worker.ts'], outfile: `${DIST}/ingest-worker.cjs` }),
        cjs({ entryPoints: ['server/query/query-worker.ts'], outfile: `${DIST}/query-worker.cjs` }),
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
        { ...common, entryPoints: { webview: 'client/vscode/webview/styles.css' }, outdir: DIST, entryNames: '[name]', external: [], loader: { '.css': 'css' } },
        cjs({ entryPoints: ['test/vscode/suite/index.ts'], outfile: 'out/vscode-test/suite.cjs', external: ['vscode', 'mocha'], minify: false }),
    ];
}

/** The grammar and language configuration the manifest points at (one copy each in the repository). */
export async function copyVscodeAssets() {
    await mkdir(DIST, { recursive: true });
    await copyFile('syntaxes/apl.tmLanguage.json', `${DIST}/apl.tmLanguage.json`);
    await copyFile('language-configuration.json', `${DIST}/language-configuration.json`);
    // The project's documentation, for "APL: Open Documentation" (the .vsix has no link to a public repository).
    await mkdir(`${DIST}/docs/docs`, { recursive: true });
    await copyFile('README.md', `${DIST}/docs/README.md`);
    for (const name of await readdir('docs')) if (name.endsWith('.md')) await copyFile(`docs/${name}`, `${DIST}/docs/docs/${name}`);
    await cp('docs/images', `${DIST}/docs/docs/images`, { recursive: true });
}
