/**
 * `npm run test:vscode-desktop`: the extension-host suite (test/vscode/suite/index.ts, the same
 * module the code-server tests run) in a desktop VS Code through @vscode/test-electron, against a
 * real `apl serve` holding 5,000 events. @vscode/test-electron downloads VS Code, so this needs a
 * machine that can reach Microsoft's update server (the CI machines here cannot: `npm test` runs
 * the suite in code-server instead).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { EXTENSION_DIR, ingestEvents, ROOT, startAplServe, suiteEnv } from '../test/vscode/harness.js';

const EVENTS = 5000;
const service = await startAplServe();
const workspace = mkdtempSync(join(tmpdir(), 'apl-vscode-desktop-'));
const userData = mkdtempSync(join(tmpdir(), 'apl-vscode-desktop-user-'));
let code = 1;
try {
    await ingestEvents(service, EVENTS);
    await runTests({
        extensionDevelopmentPath: EXTENSION_DIR,
        extensionTestsPath: join(ROOT, 'out', 'vscode-test', 'suite.cjs'),
        launchArgs: [workspace, '--disable-extensions', '--user-data-dir', userData],
        extensionTestsEnv: suiteEnv(service, workspace, EVENTS, { APL_TEST_USER_DATA: userData }),
    });
    code = 0;
} catch (e) {
    console.error(`the extension-host suite failed: ${e instanceof Error ? e.message : String(e)}`);
} finally {
    await service.stop();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(userData, { recursive: true, force: true });
}
process.exit(code);
