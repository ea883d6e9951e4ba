/**
 * Load end to end: 8 concurrent clients on loopback against a server child process for a bounded
 * time, half ingesting and half querying. No request fails, queries see a consistent, growing
 * snapshot, and at the end every acknowledged event is there exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-e2e-load';
const DS = 'load';
const DURATION_MS = 5000;
const BATCH = 500;
const CLIENTS = 8;

const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-load-'));
let server: ChildServer;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
    server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
    const res = await fetch(`${server.url}/v2/datasets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: DS }) });
    expect(res.status).toBe(200);
}, 60_000);

afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
});

async function apl(apl: string, extra: Record<string, unknown> = {}): Promise<{ status: Record<string, unknown>; tables: { fields: { name: string }[]; columns: unknown[][] }[] }> {
    const res = await fetch(`${server.url}/v1/datasets/_apl?format=tabular`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ apl, ...extra }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`query ${apl} answered ${res.status}: ${text}`);
    return JSON.parse(text);
}

describe('service under load', () => {
    it(`serves ${CLIENTS / 2} ingesting and ${CLIENTS / 2} querying clients for ${DURATION_MS / 1000} s without errors or loss`, async () => {
        const deadline = Date.now() + DURATION_MS;
        const errors: string[] = [];
        let acked = 0;
        let queries = 0;
        const levels = ['debug', 'info', 'warn', 'error'];

        const ingester = async (c: number): Promise<void> => {
            for (let n = 0; Date.now() < deadline; n++) {
                const base = Date.now();
                const body = Array.from({ length: BATCH }, (_, k) =>
                    JSON.stringify({ _time: new Date(base - k).toISOString(), id: `${c}-${n}-${k}`, level: levels[k % 4], ms: (k * 37) % 1000, req: { path: `/api/${k % 10}` } }),
                ).join('\n');
                const gz = n % 2 === 1;
                try {
                    const res = await fetch(`${server.url}/v1/datasets/${DS}/ingest`, {
                        method: 'POST',
                        headers: { ...auth, 'content-type': 'application/x-ndjson', ...(gz ? { 'content-encoding': 'gzip' } : {}) },
                        body: gz ? gzipSync(body) : body,
                    });
                    const status = (await res.json()) as { ingested: number; failed: number };
                    if (res.status !== 200 || status.ingested !== BATCH || status.failed !== 0) errors.push(`ingest ${res.status} ${JSON.stringify(status)}`);
                    else acked += BATCH;
                } catch (err) {
                    errors.push(`ingest: ${String(err)}`);
                }
            }
        };

        const querier = async (c: number): Promise<void> => {
            let lastCount = 0;
            for (let n = 0; Date.now() < deadline; n++) {
                try {
                    const kind = (n + c) % 3;
                    if (kind === 0) {
                        const r = await apl(`['${DS}'] | count`);
                        const count = r.tables[0].columns[0][0] as number;
                        if (count < lastCount) errors.push(`count went backwards: ${lastCount} → ${count}`);
                        lastCount = count;
                    } else if (kind === 1) {
                        const r = await apl(`['${DS}'] | summarize n = count(), p = percentile(ms, 95) by level, bin_auto(_time)`, { startTime: 'now-1h', endTime: 'now+1m' });
                        if (!Array.isArray(r.tables[0].columns)) errors.push('summarize: no columns');
                    } else {
                        // a consistent snapshot: a count inside one query equals the sum of its groups
                        const r = await apl(`['${DS}'] | summarize n = count() by level | summarize total = sum(n), groups = count()`);
                        const total = r.tables[0].columns[0][0] as number;
                        if (total < lastCount) errors.push(`snapshot total went backwards: ${lastCount} → ${total}`);
                    }
                    queries++;
                } catch (err) {
                    if (String(err).includes("unknown field") && lastCount === 0) continue; // nothing ingested yet
                    errors.push(`query: ${String(err)}`);
                }
            }
        };

        const started = Date.now();
        await Promise.all([
            ...Array.from({ length: CLIENTS / 2 }, (_, c) => ingester(c)),
            ...Array.from({ length: CLIENTS / 2 }, (_, c) => querier(c)),
        ]);
        const secs = (Date.now() - started) / 1000;
        expect(errors).toEqual([]);
        expect(acked).toBeGreaterThan(0);
        expect(queries).toBeGreaterThan(0);

        const final = await apl(`['${DS}'] | summarize n = count(), ids = dcount(id)`);
        expect(final.tables[0].columns[0][0]).toBe(acked);
        // dcount is an estimate in APL; the exact check: no id twice
        const dups = await apl(`['${DS}'] | summarize c = count() by id | where c > 1 | count`);
        expect(dups.tables[0].columns[0][0]).toBe(0);
        console.log(`load: ${acked} events acknowledged in ${secs.toFixed(1)} s (${Math.round(acked / secs)} events/s over HTTP while ${queries} queries ran)`);
    }, 60_000);
});
