/** `apl serve`, `apl ingest`, `apl query` and `apl token` as real processes (the BUILT out/apl.cjs). */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APL_BIN, runApl, scratchDir } from '../support/cli.js';

const TOKEN = 'xaat-cli-e2e';
let server: ChildProcess;
let url: string;
let env: NodeJS.ProcessEnv;
let freePort: number;

const { dir, file } = scratchDir('apl-svc-');

beforeAll(async () => {
    freePort = await new Promise<number>(resolve => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
            const port = (probe.address() as AddressInfo).port;
            probe.close(() => resolve(port));
        });
    });
    server = spawn(process.execPath, [APL_BIN, 'serve', '--port', '0', '--data', join(dir, 'data'), '--token', TOKEN, '--no-samples'], {
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
        let out = '';
        let errText = '';
        const timer = setTimeout(() => reject(new Error(`apl serve did not start: ${out}${errText}`)), 45_000);
        server.stdout!.on('data', (b: Buffer) => {
            out += b.toString();
            const m = /listening on (http:\/\/\S+)/.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve(m[1]);
            }
        });
        server.stderr!.on('data', (b: Buffer) => (errText += b.toString()));
        server.on('exit', code => reject(new Error(`apl serve exited with ${code}: ${out}${errText}`)));
    });
    env = { APL_URL: url, APL_TOKEN: TOKEN };
});

afterAll(async () => {
    if (server && server.exitCode === null) {
        const exited = new Promise(resolve => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
    }
});

const EVENTS = Array.from({ length: 12 }, (_, i) => ({ _time: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`, i, level: i % 3 === 0 ? 'error' : 'info' }));

describe('apl serve + apl ingest + apl query', () => {
    it('ingest into a missing dataset fails with a hint; --create creates it', () => {
        const nd = file('a.ndjson', EVENTS.slice(0, 6).map(e => JSON.stringify(e)).join('\n') + '\n');
        const missing = runApl(['ingest', 'cli-logs', nd], { env });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/not found.*--create/);

        const r = runApl(['ingest', 'cli-logs', nd, '--create', '--batch-lines', '4'], { env });
        expect(r.stderr).toContain('created dataset cli-logs');
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ ingested: 6, failed: 0, failures: [] });
    });

    it('ingests a JSON array, gzipped NDJSON and CSV with options', () => {
        const json = file('b.json', JSON.stringify(EVENTS.slice(6, 9)));
        const gz = file('c.ndjson.gz', gzipSync(EVENTS.slice(9).map(e => JSON.stringify(e)).join('\n')));
        const r = runApl(['ingest', 'cli-logs', json, gz, '--url', url, '--token', TOKEN]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ ingested: 6, failed: 0 });

        const csv = file('d.csv', 'when;who\n2024-02-01T00:00:00Z;ann\n2024-02-01T00:00:01Z;bo\n');
        const c = runApl(['ingest', 'cli-people', csv, '--create', '--csv-delimiter', ';', '--timestamp-field', 'when', '--label', 'team=core'], { env });
        expect(c.code).toBe(0);
        expect(JSON.parse(c.stdout)).toMatchObject({ ingested: 2, failed: 0 });
        const q = runApl(['query', '--format', 'json', "['cli-people'] | project _time, who, team | sort by _time asc"], { env });
        expect(JSON.parse(q.stdout)).toEqual([
            { _time: '2024-02-01T00:00:00Z', who: 'ann', team: 'core' },
            { _time: '2024-02-01T00:00:01Z', who: 'bo', team: 'core' },
        ]);
    });

    it('bad events are counted and make the exit code 1', () => {
        const bad = file('bad.ndjson', '{"_time":"2024-03-01T00:00:00Z","ok":1}\nnot json\n');
        const r = runApl(['ingest', 'cli-people', bad], { env });
        expect(r.code).toBe(1);
        expect(JSON.parse(r.stdout)).toMatchObject({ ingested: 1, failed: 1 });
        expect(r.stderr).toMatch(/1 event\(s\) failed/);
    });

    it('queries in every format', () => {
        const q = "['cli-logs'] | summarize n = count() by level | sort by level asc";
        const table = runApl(['query', q], { env: { ...env, COLUMNS: '60' } });
        expect(table.code).toBe(0);
        expect(table.stdout.trimEnd().split('\n')).toEqual(['level  n', '─────  ─', 'error  4', 'info   8', '2 rows']);
        expect(JSON.parse(runApl(['query', '--format', 'json', q], { env }).stdout)).toEqual([
            { level: 'error', n: 4 },
            { level: 'info', n: 8 },
        ]);
        expect(runApl(['query', '--format', 'csv', q], { env }).stdout).toBe('level,n\nerror,4\ninfo,8\n');
        const tabular = JSON.parse(runApl(['query', '--format', 'tabular', q], { env }).stdout);
        expect(tabular.format).toBe('tabular');
        expect(tabular.tables[0].columns).toEqual([['error', 'info'], [4, 8]]);
        const legacy = JSON.parse(runApl(['query', '--format', 'legacy', "['cli-logs'] | where level == 'error'"], { env }).stdout);
        expect(legacy.matches).toHaveLength(4);
    });

    it('--all pages through every row by cursor; --start/--end bound the time', () => {
        const all = runApl(['query', '--all', '--page-size', '5', '--format', 'json', "['cli-logs'] | project _time, i"], { env });
        expect(all.code).toBe(0);
        const rows = JSON.parse(all.stdout) as { i: number }[];
        expect(rows.map(r => r.i)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        const asc = JSON.parse(runApl(['query', '--all', '--order', 'asc', '--page-size', '5', '--format', 'json', "['cli-logs'] | project _time, i"], { env }).stdout);
        expect(asc.map((r: { i: number }) => r.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        const noTime = runApl(['query', '--all', "['cli-logs'] | project i"], { env });
        expect(noTime.code).toBe(1);
        expect(noTime.stderr).toMatch(/--all appends '\| sort by _time desc \| limit 1000' to the query, so it must keep _time/);
        const ranged = runApl(
            ['query', '--start', '2024-01-01T00:00:03Z', '--end', '2024-01-01T00:00:06Z', '--format', 'csv', "['cli-logs'] | project i | sort by i asc"],
            { env },
        );
        expect(ranged.stdout).toBe('i\n3\n4\n5\n');
    });

    it('a bad query exits 1 with line:col and a caret', () => {
        const r = runApl(['query', "['cli-logs']\n| where nosuch > 1"], { env });
        expect(r.code).toBe(1);
        const [first, source] = r.stderr.split('\n');
        expect(first).toMatch(/^<query>:2:9: error: .*nosuch/);
        expect(source).toBe('2 | | where nosuch > 1');
    });

    it('a wrong token exits 1; an unreachable service or a usage error exits 2', () => {
        const unauth = runApl(['query', '--token', 'xaat-wrong', "['cli-logs']"], { env });
        expect(unauth.code).toBe(1);
        expect(unauth.stderr).toMatch(/401.*--token/);
        const down = runApl(['query', '--url', `http://127.0.0.1:${freePort}`, "['cli-logs']"], { env });
        expect(down.code).toBe(2);
        expect(down.stderr).toMatch(/connection refused/);
        expect(runApl(['ingest', 'cli-logs'], { env }).code).toBe(2);
        expect(runApl(['ingest', 'cli-logs', join(dir, 'nope.ndjson')], { env }).stderr).toMatch(/nope\.ndjson: no such file/);
        expect(runApl(['query', '--page-size', '3', 'x'], { env }).code).toBe(2);
    });
});

describe('apl token create while apl serve runs', () => {
    const datasets = (token: string) => fetch(`${url}/v2/datasets`, { headers: { authorization: `Bearer ${token}` } });

    it('the running server accepts the new token at once; made-up tokens still get 401', async () => {
        expect((await datasets('xaat-made-up')).status).toBe(401);
        const r = runApl(['token', 'create', '--data', join(dir, 'data'), '--name', 'live']);
        expect(r.code, r.stderr).toBe(0);
        const token = r.stdout.trim();
        const res = await datasets(token);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { name: string }[]).map(d => d.name)).toEqual(expect.arrayContaining(['cli-logs']));
        const q = runApl(['query', '--format', 'csv', "['cli-logs'] | summarize n = count()"], { env: { APL_URL: url, APL_TOKEN: token } });
        expect(q.stdout).toBe('n\n12\n');

        const bad = await datasets('xaat-made-up-too');
        expect(bad.status).toBe(401);
        expect(await bad.json()).toEqual({ code: 401, message: 'invalid API token' });
        expect((await datasets(`${token}x`)).status).toBe(401);
        expect((await datasets(TOKEN)).status).toBe(200);
    });

    it('a token revoked with apl token revoke stops working in the running server', async () => {
        const data = join(dir, 'data');
        const created = runApl(['token', 'create', '--data', data, '--name', 'to-revoke']);
        const token = created.stdout.trim();
        const id = /created token (\S+)/.exec(created.stderr)?.[1];
        expect(id, created.stderr).toBeDefined();
        expect((await datasets(token)).status).toBe(200);
        const revoked = runApl(['token', 'revoke', id!, '--data', data]);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(runApl(['token', 'list', '--data', data]).stdout).not.toContain(id!);
        // The server looks at the token file again at most every second for a known token.
        let status = 200;
        for (let i = 0; i < 50 && status === 200; i++) {
            await new Promise(resolve => setTimeout(resolve, 100));
            status = (await datasets(token)).status;
        }
        expect(status).toBe(401);
        expect((await datasets(TOKEN)).status).toBe(200);
    });
});

describe('apl token and apl serve usage', () => {
    it('token create prints a new token once; token list shows it without the secret', () => {
        const data = join(dir, 'tokens');
        const r = runApl(['token', 'create', '--data', data, '--name', 'ci']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^xaat-[0-9a-f-]{36}\n$/);
        const list = runApl(['token', 'list', '--data', data]);
        expect(list.stdout).toMatch(/ ci\n$/);
        expect(list.stdout).not.toContain(r.stdout.trim());
        expect(runApl(['token']).code).toBe(2);
        expect(runApl(['token', 'frobnicate']).code).toBe(2);
        expect(runApl(['token', 'revoke', '--data', data]).stderr).toMatch(/missing the id/);
        const unknown = runApl(['token', 'revoke', 'no-such-id', '--data', data]);
        expect(unknown.code).toBe(2);
        expect(unknown.stderr).toMatch(/no token with id 'no-such-id'/);
    });

    it('serve rejects bad options with exit 2', () => {
        const r = runApl(['serve', '--port', 'abc']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/--port must be an integer/);
        expect(runApl(['serve', '--nope']).code).toBe(2);
    });

    it('unknown commands exit 2', () => {
        const r = runApl(['frobnicate']);
        expect(r.code).toBe(2);
    });
});
