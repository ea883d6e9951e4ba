/**
 * Crash test: a child process ingests continuously (with background compaction) and is SIGKILLed at
 * random moments; after each kill the store is reopened and every acknowledged event must be
 * present exactly once.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../../server/store/store.js';
import { tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = tempDir('apl-crash-');
afterAll(() => tmp.cleanup());

/** Runs the child until `killAfterMs` after it is READY, then SIGKILLs it; returns acknowledged batches. */
function runChild(run: number, useWorker: boolean, killAfterMs: number): Promise<{ acked: Map<string, number>; stderr: string }> {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, tmp.dir, String(run), useWorker ? '1' : '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        const acked = new Map<string, number>();
        let buf = '';
        let stderr = '';
        let timer: NodeJS.Timeout | undefined;
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                if (line === 'READY') timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
                const m = /^ACK (\d+) (\d+) (\d+)$/.exec(line);
                if (m) acked.set(`${m[1]}-${m[2]}`, Number(m[3]));
            }
        });
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.on('error', reject);
        child.on('exit', (code, signal) => {
            clearTimeout(guard);
            if (timer) clearTimeout(timer);
            if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}/${signal}: ${stderr}`));
            else resolve({ acked, stderr });
        });
    });
}

it('every acknowledged event survives SIGKILL exactly once', async () => {
    const allAcked = new Map<string, number>();
    const runs = 5;
    let compacted = false;
    for (let run = 0; run < runs; run++) {
        // random kill points; the last run is long enough that compaction surely ran at least once
        const killAfter = run === runs - 1 ? 1500 + Math.floor(Math.random() * 500) : 100 + Math.floor(Math.random() * 900);
        const { acked } = await runChild(run, run % 2 === 1, killAfter);
        for (const [k, n] of acked) allAcked.set(k, n);
        const store = await openStore(tmp.dir, { log: () => undefined, compactInWorker: false });
        try {
            const rows = await store.scan('crash');
            const seen = new Map<string, number>();
            for (const r of rows) {
                const k = r.fields.k as string;
                seen.set(k, (seen.get(k) ?? 0) + 1);
            }
            const dups = [...seen].filter(([, c]) => c > 1);
            expect(dups).toEqual([]);
            const ids = new Set(rows.map((r) => r._rowId));
            expect(ids.size).toBe(rows.length);
            let missing = 0;
            for (const [batch, n] of allAcked) for (let i = 0; i < n; i++) if (!seen.has(`${batch}-${i}`)) missing++;
            expect(missing).toBe(0);
            const st = await store.stats('crash');
            console.log(`run ${run}: killed ${killAfter} ms after READY; ${acked.size} batches acked; ${rows.length} rows, ${st.blocks} blocks, ${st.walLength} in WAL`);
            compacted ||= st.blocks > 0;
        } finally {
            await store.close();
        }
    }
    expect(allAcked.size).toBeGreaterThan(0);
    expect(compacted).toBe(true);
}, 60_000);
