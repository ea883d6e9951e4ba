/**
 * The sample generators give the same events in `apl run` and in a fresh `apl serve` for the same
 * seed and time window: the real built CLI, a real service on a real port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DATASET_NAMES } from '../../language/samples/index.js';
import { startAplServe } from '../support/apl-serve.js';
import { runApl } from '../support/cli.js';

let dir: string;

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apl-samples-agree-'));
});

afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
});

const minute = (): number => Math.floor(Date.now() / 60_000);

interface Summary {
    n: number;
    first: string;
    last: string;
}

describe('apl run and a fresh apl serve: the same sample events for the same window', () => {
    it("['<sample>'] | summarize n = count(), first = min(_time), last = max(_time) over the same absolute window", async () => {
        const now = Date.now();
        const window = ['--start', new Date(now - 7 * 86_400_000).toISOString(), '--end', new Date(now - 3_600_000).toISOString()];
        const query = (name: string) => `['${name}'] | summarize n = count(), first = min(_time), last = max(_time)`;
        // Both generate the 30 days up to the current minute: the comparison holds when both ran
        // in the same minute, which the loop makes sure of (a minute boundary between them starts over).
        for (let attempt = 0; ; attempt++) {
            const startedIn = minute();
            const token = 'xaat-samples';
            const server = await startAplServe(['--data', join(dir, `data-${attempt}`)], { AXIOM_TOKEN: token });
            const served: Record<string, Summary> = {};
            const ran: Record<string, Summary> = {};
            try {
                for (const name of SAMPLE_DATASET_NAMES) {
                    const q = runApl(['query', '--format', 'json', ...window, query(name)], { env: { AXIOM_URL: server.url, AXIOM_TOKEN: token } });
                    expect(q.code, q.stderr).toBe(0);
                    served[name] = (JSON.parse(q.stdout) as Summary[])[0];
                    const r = runApl(['run', '--format', 'json', ...window, query(name)]);
                    expect(r.code, r.stderr).toBe(0);
                    ran[name] = (JSON.parse(r.stdout) as Summary[])[0];
                }
            } finally {
                await server.stop();
            }
            if (minute() !== startedIn && attempt < 3) continue;
            for (const name of SAMPLE_DATASET_NAMES) {
                expect(served[name].n, name).toBeGreaterThan(1000);
                expect(ran[name], name).toEqual(served[name]);
            }
            return;
        }
    });
});
