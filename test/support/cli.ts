import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
