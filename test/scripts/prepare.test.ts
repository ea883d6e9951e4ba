/**
 * `npm run prepare` (scripts/prepare.mjs) builds only when an input changed: `npx apl` in a clone
 * that is already built starts at once instead of rebuilding for ~20 s. Run on a scratch folder
 * with a stand-in build, so the test never rebuilds the real out/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without type declarations
import { builds as bundles } from '../../scripts/bundles.mjs';
// @ts-expect-error: a plain .mjs module without type declarations
import { inputFiles, OUTPUTS, prepare, upToDate } from '../../scripts/prepare.mjs';
import { REPO_ROOT } from '../support/cli.js';

let root: string;
let builds: number;
const logs: string[] = [];

const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
};
/**
 * Every file the real build writes: each esbuild bundle of scripts/bundles.mjs (and its source map),
 * the extension's copied assets, the generated grammar and parser tables, the declarations.
 */
function realBuildOutputs(): string[] {
    const files = [...(OUTPUTS as string[]), 'client/vscode/dist/apl.tmLanguage.json', 'client/vscode/dist/language-configuration.json',
        'language/generated/ast.ts', 'language/parser/apl-lookahead.generated.ts', 'out/language-server.v8-cache', 'out/.build-inputs.sha256'];
    for (const b of bundles as esbuild.BuildOptions[]) {
        if (b.outfile) files.push(b.outfile, `${b.outfile}.map`);
        else for (const name of Object.keys(b.entryPoints as Record<string, string>)) files.push(`${b.outdir}/${name}.js`, `${b.outdir}/${name}.css`);
    }
    return files;
}

/** The stand-in build: writes every output, like `npm run build`. */
const build = (): boolean => {
    builds++;
    for (const o of OUTPUTS as string[]) write(o, `built ${builds}`);
    return true;
};
const run = (): boolean => (prepare as (root: string, build: () => boolean, log: (m: string) => void) => boolean)(root, build, m => logs.push(m));

beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'apl-prepare-'));
    builds = 0;
    logs.length = 0;
    write('package.json', '{"name":"x"}');
    write('language/apl.langium', 'grammar Apl');
    write('client/cli/main.ts', 'export {}');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('prepare', () => {
    it('builds a fresh clone, then skips while no input changes', () => {
        expect(run()).toBe(true);
        expect(builds).toBe(1);
        expect(run()).toBe(true);
        expect(builds).toBe(1);
        expect(logs.at(-1)).toContain('up to date');
    });

    it('rebuilds when a source file changes, is added, or a generated file is all that changed (no rebuild)', () => {
        run();
        write('client/cli/main.ts', 'export const x = 1;');
        run();
        expect(builds).toBe(2);
        write('server/http/new.ts', 'export {}');
        run();
        expect(builds).toBe(3);
        write('language/generated/ast.ts', 'generated');
        write('language/parser/apl-lookahead.generated.ts', 'generated');
        run();
        expect(builds).toBe(3);
    });

    it('a stand-in build that writes every file the real build writes: up to date right after it, and a second prepare does not build', () => {
        const realBuild = () => {
            builds++;
            for (const o of realBuildOutputs()) write(o, `built ${builds}`);
            return true;
        };
        const prep = () => (prepare as (r: string, b: () => boolean, l: (m: string) => void) => boolean)(root, realBuild, m => logs.push(m));
        write('client/vscode/src/extension.ts', 'export {}');
        write('client/vscode/webview/main.ts', 'export {}');
        expect(prep()).toBe(true);
        expect(builds).toBe(1);
        expect((upToDate as (r: string) => boolean)(root)).toBe(true);
        expect(prep()).toBe(true);
        expect(builds).toBe(1);
        write('client/vscode/webview/main.ts', 'export const changed = 1;');
        expect((upToDate as (r: string) => boolean)(root)).toBe(false);
        prep();
        expect(builds).toBe(2);
    });

    it('rebuilds when an output is missing', () => {
        run();
        rmSync(join(root, 'out/apl.cjs'));
        run();
        expect(builds).toBe(2);
    });

    it('a failed build writes no stamp, so the next prepare builds again', () => {
        const failing = () => {
            builds++;
            return false;
        };
        expect((prepare as (r: string, b: () => boolean, l: (m: string) => void) => boolean)(root, failing, () => undefined)).toBe(false);
        run();
        expect(builds).toBe(2);
    });
});

describe('the inputs of the real tree', () => {
    // Run on this clone after a build (`npm test` bundles first): a file the build or a test run
    // wrote is ignored by git, and must not be hashed, or the stamp never matches after a build.
    it('no file git ignores is an input (client/vscode/dist/, generated files, test output)', () => {
        expect(existsSync(join(REPO_ROOT, 'client/vscode/dist/extension.cjs'))).toBe(true);
        // --directory: an ignored folder is one entry ending in '/' (node_modules/ is not listed file by file).
        const ignored = spawnSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: REPO_ROOT, encoding: 'utf8' });
        expect(ignored.status).toBe(0);
        const entries = ignored.stdout.split('\n').filter(Boolean);
        expect(entries).toContain('client/vscode/dist/');
        const isIgnored = (f: string) => entries.some(e => (e.endsWith('/') ? f.startsWith(e) : f === e));
        expect((inputFiles as (r: string) => string[])(REPO_ROOT).filter(isIgnored)).toEqual([]);
    });

    // A source file a bundle is made of, outside the inputs, would leave out/ stale after a change
    // to it: every file esbuild reads (its metafile), other than dependencies, is an input.
    it('every file a bundle is made of is an input (esbuild metafile)', async () => {
        const inputs = new Set((inputFiles as (r: string) => string[])(REPO_ROOT));
        const missing = new Set<string>();
        for (const options of bundles as esbuild.BuildOptions[]) {
            const result = await esbuild.build({ ...options, absWorkingDir: REPO_ROOT, write: false, metafile: true, logLevel: 'silent', sourcemap: false, minify: false });
            for (const file of Object.keys(result.metafile.inputs)) {
                // Dependencies, esbuild's virtual modules, and what the build generates from an input (the grammar).
                if (file.includes('node_modules/') || file.includes(':') || /^language\/generated\/|\.generated\.ts$/.test(file)) continue;
                if (!inputs.has(file)) missing.add(file);
            }
        }
        expect([...missing]).toEqual([]);
    }, 180_000);

    it('the files the build copies are inputs (the extension\'s grammar and language configuration)', () => {
        const inputs = (inputFiles as (r: string) => string[])(REPO_ROOT);
        expect(inputs).toContain('syntaxes/apl.tmLanguage.json');
        expect(inputs).toContain('language-configuration.json');
        expect(inputs).toContain('server/lsp/launcher.sh');
    });
});
