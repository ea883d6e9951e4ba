/**
 * The extension's language-model tools in a real VS Code (code-server, one of its own for this file):
 * the host side (test/vscode/suite/lm-tools.ts, APL_TEST_SUITE=agents) invokes each tool through
 * `vscode.lm.invokeTool` against a real `apl serve` holding 5,000 events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestEvents, provision, runHostSuite, SKIP, skippedBanner, startAplServe, suiteEnv, type TestService, requireBundles } from './harness.js';
import { AGENT_TESTS } from './suite/lm-tools-names.js';
import type { HostTestResult } from './suite/names.js';

if (SKIP) console.warn(skippedBanner('the real-VS-Code tests (test/vscode/lm-tools.test.ts)'));

describe.skipIf(SKIP)('the language-model tools in a real VS Code', () => {
    let service: TestService;
    let results: HostTestResult[] = [];
    let log = '';

    beforeAll(async () => {
        const tools = provision();
        requireBundles(['out/apl.cjs', 'client/vscode/dist/extension.cjs', 'out/vscode-test/suite.cjs']);
        service = await startAplServe();
        await ingestEvents(service, 5000);
        const workspace = mkdtempSync(join(tmpdir(), 'apl-vscode-agents-'));
        try {
            ({ results, log } = await runHostSuite(tools, workspace, suiteEnv(service, workspace, 5000, { APL_TEST_SUITE: 'agents' }), 'lm-tools.png'));
        } finally {
            rmSync(workspace, { recursive: true, force: true });
        }
    }, 15 * 60_000);

    afterAll(async () => {
        await service?.stop();
    });

    for (const name of AGENT_TESTS) {
        it(name, () => {
            const r = results.find(x => x.name === name);
            expect(r, `${name} did not run:\n${log.slice(-3000)}`).toBeDefined();
            expect(r!.ok, r!.error).toBe(true);
        });
    }
});
