/**
 * Informal ingest throughput: full durable ingest (decode + parse + normalise + WAL append with
 * fdatasync + background compaction) vs raw JSON.parse of the same NDJSON bytes.
 * Run: node --import tsx test/server/ingest/bench-ingest.ts [events] [batch] [concurrency] [nocompact]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../../server/store/store.js';

const N = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 5_000);
const CONC = Number(process.argv[4] ?? 2);
/** `nocompact`: measure the acknowledged-ingest path alone (compaction thresholds out of reach). */
const NOCOMPACT = process.argv[5] === 'nocompact';

function makeBodies(): Buffer[] {
    const bodies: Buffer[] = [];
    const t0 = Date.UTC(2024, 0, 1);
    for (let b = 0; b < N / BATCH; b++) {
        const lines: string[] = [];
        for (let i = 0; i < BATCH; i++) {
            const k = b * BATCH + i;
            lines.push(
                JSON.stringify({
                    _time: new Date(t0 + k * 1000).toISOString(),
                    agent: 'Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.21)',
                    bytes: k % 5000,
                    referrer: '-',
                    remote_ip: `93.180.71.${k % 255}`,
                    remote_user: '-',
                    request: `GET /downloads/product_${k % 3} HTTP/1.1`,
                    response: k % 7 ? 200 : 404,
                    duration_ms: (k % 1000) / 7,
                }),
            );
        }
        bodies.push(Buffer.from(lines.join('\n')));
    }
    return bodies;
}

function baseline(bodies: Buffer[]): number {
    const t = process.hrtime.bigint();
    let n = 0;
    for (const b of bodies) {
        for (const line of b.toString('utf8').split('\n')) if (JSON.parse(line)) n++;
    }
    if (n !== N) throw new Error('count');
    return Number(process.hrtime.bigint() - t) / 1e9;
}

async function full(bodies: Buffer[]): Promise<number> {
    const dir = mkdtempSync(path.join(tmpdir(), 'apl-bench-'));
    const store = await openStore(dir, NOCOMPACT ? { compactEvents: 1e12, compactBytes: 1e12 } : {});
    await store.createDataset({ name: 'bench' });
    const t = process.hrtime.bigint();
    let next = 0;
    let n = 0;
    const worker = async (): Promise<void> => {
        while (next < bodies.length) {
            const body = bodies[next++];
            const r = await store.ingest('bench', { body, contentType: 'application/x-ndjson' });
            n += r.ingested;
        }
    };
    await Promise.all(Array.from({ length: CONC }, worker));
    const secs = Number(process.hrtime.bigint() - t) / 1e9;
    if (n !== N) throw new Error(`count ${n}`);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    return secs;
}

const bodies = makeBodies();
const mb = bodies.reduce((s, b) => s + b.length, 0) / 1e6;
for (let round = 0; round < 3; round++) {
    const b = baseline(bodies);
    const f = await full(bodies);
    console.log(
        `round ${round}: ${N} events, ${mb.toFixed(1)} MB, batch ${BATCH}, concurrency ${CONC}: ` +
            `JSON.parse ${(N / b / 1e3).toFixed(0)}k ev/s, durable ingest ${(N / f / 1e3).toFixed(0)}k ev/s, ratio ${(b / f).toFixed(2)}x`,
    );
}
