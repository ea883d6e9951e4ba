/**
 * Crash safety end to end: batches are sent continuously by two clients while the server child
 * process is SIGKILLed at random points, several times (bounded). After each restart every
 * acknowledged event is present exactly once, and no event (acknowledged or not) is duplicated.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const TOKEN = 'xaat-e2e-crash';
const DS = 'crash';
const KILLS = 3;
const BATCH = 25;

const dir = mkdtempSync(path.join(tmpdir(), 'apl-e2e-crash-'));
let server: ChildServer | undefined;
/** The log lines of every server so far (recovery notes say what each restart found). */
const logs: string[] = [];
let failed = false;

afterAll(async () => {
    await server?.kill();
    // A failure keeps the data directory for a post-mortem (its path is in the failure message).
    if (!failed) rmSync(dir, { recursive: true, force: true });
});

/** The dataset's files and their sizes, for a failure message. */
function listing(): string {
    const root = path.join(dir, 'datasets', DS);
    const out: string[] = [];
    for (const sub of ['', 'wal', 'blocks', 'quarantine']) {
        let names: string[];
        try {
            names = readdirSync(path.join(root, sub));
        } catch {
            continue; // no such directory (yet)
        }
        for (const n of names.sort()) {
            const st = statSync(path.join(root, sub, n));
            if (st.isFile()) out.push(`${path.join(sub, n)} ${st.size}`);
        }
    }
    return out.join('\n');
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function apl(url: string, text: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${url}/v1/datasets/_apl?format=tabular`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ apl: text }),
    });
    return { status: res.status, body: await res.text() };
}

async function storedIds(url: string): Promise<{ ids: string[]; status: unknown; raw: string }> {
    const { status, body } = await apl(url, `['${DS}'] | project id | take 50000`);
    expect(status, body).toBe(200);
    const parsed = JSON.parse(body) as { tables: { columns: string[][] }[]; status: unknown };
    return { ids: parsed.tables[0].columns[0] ?? [], status: parsed.status, raw: body };
}

async function sender(url: string, tag: string, acked: Set<string>, stop: { now: boolean }): Promise<number> {
    let n = 0;
    while (!stop.now) {
        const ids = Array.from({ length: BATCH }, (_, k) => `${tag}-${n}-${k}`);
        const body = ids.map((id) => JSON.stringify({ id, tag, n })).join('\n');
        try {
            const res = await fetch(`${url}/v1/datasets/${DS}/ingest`, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-ndjson' }, body });
            const status = (await res.json()) as { ingested: number; failed: number };
            if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
            expect(status).toMatchObject({ ingested: BATCH, failed: 0 });
            for (const id of ids) acked.add(id);
            n++;
        } catch (err) {
            // the server died under this request: it was not acknowledged
            if (err instanceof Error && /ingest answered|expected/.test(err.message)) throw err;
            return n;
        }
    }
    return n;
}

/**
 * Every acknowledged event stored once. A failure says what the query and the server said, and what
 * the store holds by other roads (a count, the distinct ids and times, the fields), so that an empty
 * answer tells a store that lost the events from an engine or query worker that did not see them.
 */
async function check({ ids, status, raw }: { ids: string[]; status: unknown; raw: string }, acked: Set<string>, cycle: number, url: string): Promise<void> {
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const dups = [...counts].filter(([, c]) => c > 1).map(([id]) => id);
    const missing = [...acked].filter((id) => !counts.has(id));
    let context = '';
    if (dups.length > 0 || missing.length > 0) {
        failed = true;
        const more: string[] = [];
        for (const q of [`['${DS}'] | count`, `['${DS}'] | summarize dcount(id), min(_time), max(_time)`, `['${DS}'] | getschema`]) {
            const r = await apl(url, q).catch((err: unknown) => ({ status: 0, body: String(err) }));
            more.push(`${q} -> ${r.status} ${r.body.slice(0, 2000)}`);
        }
        context =
            `after restart ${cycle}; ${ids.length} rows; query status ${JSON.stringify(status)}; answer ${raw.slice(0, 2000)}\n${more.join('\n')}\n` +
            `data kept in ${dir}:\n${listing()}\nlogs of each start:\n${[...logs, server?.output() ?? ''].map((o, i) => `--- start ${i}\n${logLines(o)}`).join('\n')}`;
    }
    expect(dups, `duplicated events (${context})`).toEqual([]);
    expect(missing, `${missing.length} of ${acked.size} acknowledged events lost (${context})`).toEqual([]);
}

/** A server's output without the start banner's how-to lines. */
function logLines(output: string): string {
    return output.split('\n').filter((l) => l.startsWith('[apl serve]') || /listening on|data directory/.test(l)).join('\n');
}

describe('service crash safety', () => {
    it(`loses no acknowledged event across ${KILLS} SIGKILLs during ingest`, async () => {
        const acked = new Set<string>();
        let batchesAcked = 0;
        for (let cycle = 0; cycle <= KILLS; cycle++) {
            server = await spawnServer({ dataDir: dir, token: TOKEN, bundled: true });
            if (cycle === 0) {
                const res = await fetch(`${server.url}/v2/datasets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: DS }) });
                expect(res.status).toBe(200);
                const seed = await fetch(`${server.url}/v1/datasets/${DS}/ingest`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '[{"id":"seed"}]' });
                expect(seed.status).toBe(200);
                acked.add('seed');
            }
            await check(await storedIds(server.url), acked, cycle, server.url);
            if (cycle === KILLS) break;
            const stop = { now: false };
            const senders = [0, 1].map((s) => sender(server!.url, `c${cycle}s${s}`, acked, stop));
            await new Promise((r) => setTimeout(r, 250 + Math.random() * 750));
            await server.kill();
            logs.push(server.output());
            stop.now = true;
            batchesAcked += (await Promise.all(senders)).reduce((a, b) => a + b, 0);
        }
        expect(batchesAcked).toBeGreaterThan(KILLS); // the test did exercise ingest
        expect(acked.size).toBe(batchesAcked * BATCH + 1);
        // The ingest workers parsed the bodies (the service's own path), not the main-thread fallback.
        expect([...logs, server!.output()].join('\n')).not.toMatch(/ingest worker (unavailable|failed)/);
        await server!.stop();
    }, 120_000);
});
