import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const APL_BIN = fileURLToPath(new URL('../../out/apl.cjs', import.meta.url));

export interface CliResult {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** Runs the BUILT `apl` bin (out/apl.cjs, made by `npm run build`) as a real process. */
export function runApl(args: string[], options: { input?: string | Buffer; cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
    const result = spawnSync(process.execPath, [APL_BIN, ...args], {
        input: options.input,
        cwd: options.cwd ?? REPO_ROOT,
        // The connection variables of the shell running the tests must not leak in: a test sets the ones it means.
        env: { ...process.env, AXIOM_URL: '', AXIOM_TOKEN: '', AXIOM_ORG_ID: '', ...options.env },
        encoding: 'utf8',
        timeout: 60_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A test file's scratch folder, made when the file loads and removed after its tests, and a writer of
 * input files in it (returns the path).
 */
export function scratchDir(prefix: string): { dir: string; file(name: string, content: string | Buffer): string } {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    return {
        dir,
        file: (name, content) => {
            const path = join(dir, name);
            writeFileSync(path, content);
            return path;
        },
    };
}
