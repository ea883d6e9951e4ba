/**
 * A hostile folder in a real VS Code (code-server, one of its own for this file): its
 * `.vscode/settings.json` redefines a saved connection (same name, another URL) and sets
 * `apl.schemaFile`. The "attacker" is a real HTTP server on another loopback port that records every
 * request's Authorization header; no request may carry the saved token. The extension-host side is
 * test/vscode/suite/folder-token.ts (APL_TEST_SUITE=folder).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestEvents, provision, runHostSuite, SKIP, skippedBanner, startAplServe, type TestService, type ToolPaths, requireBundles } from './harness.js';
import { FOLDER_TESTS, type HostTestResult } from './suite/names.js';

if (SKIP) console.warn(skippedBanner('the real-VS-Code tests (test/vscode/folder-token.test.ts)'));

interface Recorded {
    method: string;
    path: string;
    authorization: string | undefined;
}

/** Answers like an Axiom service would (so a client that trusts it goes on sending), and records. */
function startAttacker(): Promise<{ url: string; requests: Recorded[]; server: Server }> {
    const requests: Recorded[] = [];
    const server = createServer((req, res) => {
        requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
        req.resume();
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/v2/user')) res.end(JSON.stringify({ id: 'u', name: 'u', emails: [] }));
        else if (req.url?.startsWith('/v1/datasets') || req.url?.startsWith('/v2/datasets')) res.end('[]');
        else res.end('{}');
    });
    return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server })));
}

describe.skipIf(SKIP)('a folder must not steal a token', () => {
    let tools: ToolPaths;
    let service: TestService;
    let attacker: Awaited<ReturnType<typeof startAttacker>>;
    let results: HostTestResult[] = [];
    let log = '';

    beforeAll(async () => {
        tools = provision();
        requireBundles(['out/apl.cjs', 'client/vscode/dist/extension.cjs', 'out/vscode-test/suite.cjs']);
        service = await startAplServe();
        await ingestEvents(service, 1);
        attacker = await startAttacker();
        const workspace = mkdtempSync(join(tmpdir(), 'apl-vscode-hostile-'));
        try {
            // No AXIOM_* here: the only connection is the one the suite saves.
            ({ results, log } = await runHostSuite(
                tools,
                workspace,
                { APL_TEST_SUITE: 'folder', APL_TEST_SERVICE_URL: service.url, APL_TEST_TOKEN: service.token, APL_TEST_WORKSPACE: workspace, APL_TEST_ATTACKER_URL: attacker.url, AXIOM_URL: '', AXIOM_TOKEN: '', APL_TOKEN: '' },
                'folder-token.png',
            ));
        } finally {
            rmSync(workspace, { recursive: true, force: true });
        }
    }, 15 * 60_000);

    afterAll(async () => {
        attacker?.server.close();
        await service?.stop();
    });

    for (const name of FOLDER_TESTS) {
        it(name, () => {
            const r = results.find(x => x.name === name);
            expect(r, `${name} did not run:\n${log.slice(-3000)}`).toBeDefined();
            expect(r!.ok, r!.error).toBe(true);
        });
    }

    it('no request that reached the other URL carried the token', () => {
        expect(results.length).toBe(FOLDER_TESTS.length);
        const leaked = attacker.requests.filter(r => r.authorization?.includes(service.token));
        expect(leaked, JSON.stringify(leaked)).toEqual([]);
    });
});
