/**
 * `apl datasets …`, `apl query --all … | head` and the `apl serve` banner and token warnings, as
 * real processes (the BUILT out/apl.cjs) against a real `apl serve` on a random port.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAplServe, type AplServe } from '../support/apl-serve.js';
import { runApl } from '../support/cli.js';
import { runAplIntoClosedPipe } from '../support/closed-pipe.js';

const TOKEN = 'xaat-datasets-e2e';
let dir: string;
let server: AplServe;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apl-datasets-'));
    server = await startAplServe(['--data', join(dir, 'data'), '--no-samples'], { APL_TOKEN: TOKEN });
    env = { APL_URL: server.url, APL_TOKEN: TOKEN };
});

afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
});

describe('apl datasets against apl serve', () => {
    it('list, create, info, trim and delete', () => {
        expect(runApl(['datasets', 'list', '--format', 'json'], { env })).toMatchObject({ code: 0, stdout: '[]\n' });

        const created = runApl(['datasets', 'create', 'web-logs', '--description', 'from the cli'], { env });
        expect(created.stderr).toBe('');
        expect(created.code).toBe(0);
        expect(created.stdout).toMatch(/^name\s+kind\s+description\s+created\n/);
        expect(created.stdout).toContain('web-logs');

        const again = runApl(['datasets', 'create', 'web-logs'], { env });
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/^apl datasets create: 409 /);

        const list = runApl(['datasets', 'list'], { env });
        expect(list.code).toBe(0);
        expect(list.stdout).toMatch(/web-logs\s+\S+\s+from the cli/);
        expect(list.stdout).toMatch(/1 row\n$/);

        const now = Date.now();
        const events = [
            { _time: new Date(now - 3 * 86_400_000).toISOString(), level: 'old' },
            { _time: new Date(now - 60_000).toISOString(), level: 'new', geo: { city: 'Paris' } },
        ];
        const file = join(dir, 'web.ndjson');
        writeFileSync(file, events.map(e => JSON.stringify(e)).join('\n') + '\n');
        expect(runApl(['ingest', 'web-logs', file], { env }).code).toBe(0);

        const info = runApl(['datasets', 'info', 'web-logs', '--format', 'json'], { env });
        expect(info.code).toBe(0);
        const parsed = JSON.parse(info.stdout) as { name: string; numEvents: number; fields: { name: string }[] };
        expect(parsed).toMatchObject({ name: 'web-logs', description: 'from the cli', numEvents: 2 });
        expect(parsed.fields.map(f => f.name)).toEqual(expect.arrayContaining(['level', 'geo.city']));
        const table = runApl(['datasets', 'info', 'web-logs'], { env });
        expect(table.stdout).toMatch(/^events\s+2$/m);
        expect(table.stdout).toMatch(/^geo\.city\s+string$/m);

        const trimmed = runApl(['datasets', 'trim', 'web-logs', '--max-duration', '1d'], { env });
        expect(trimmed.stderr).toBe('trimmed dataset web-logs to the last 24h0m0s\n');
        expect(trimmed.code).toBe(0);
        const count = runApl(['query', '--format', 'json', "['web-logs'] | summarize n = count() by level"], { env });
        expect(JSON.parse(count.stdout)).toEqual([{ level: 'new', n: 1 }]);

        const deleted = runApl(['datasets', 'delete', 'web-logs'], { env });
        expect(deleted).toMatchObject({ code: 0, stderr: 'deleted dataset web-logs\n' });
        const gone = runApl(['datasets', 'info', 'web-logs'], { env });
        expect(gone.code).toBe(1);
        expect(gone.stderr).toContain("no dataset 'web-logs'");
    });

    it('usage errors name the problem and exit 2', () => {
        expect(runApl(['datasets'], { env })).toMatchObject({ code: 2 });
        const r = runApl(['datasets', 'remove', 'x'], { env });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain("'remove' is not a subcommand of apl datasets; use list, create, info, schema, trim, delete");
        expect(runApl(['datasets', 'trim', 'x'], { env }).stderr).toContain('--max-duration');
        expect(runApl(['datasets', 'trim', 'x', '--max-duration', 'soon'], { env }).stderr).toContain("not 'soon'");
        expect(runApl(['datasets', 'info'], { env }).stderr).toContain('missing the dataset name');
    });

    it('a wrong token is a 401 with a hint, and the token is not echoed', () => {
        const r = runApl(['datasets', 'list'], { env: { ...env, APL_TOKEN: 'xaat-wrong-secret' } });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/401 .*check --token, or AXIOM_TOKEN \/ APL_TOKEN/);
        expect(r.stderr).not.toContain('xaat-wrong-secret');
    });

    it('--token on the command line warns that other users can read it (never echoing it)', () => {
        const r = runApl(['datasets', 'list', '--token', TOKEN], { env: { APL_URL: server.url } });
        expect(r.code).toBe(0);
        expect(r.stderr).toContain('warning: --token puts the token in the process arguments');
        expect(r.stderr).not.toContain(TOKEN);
    });

    it('apl ingest and apl query with --token warn that other users can read it; the token appears nowhere in the output', () => {
        const only = { APL_URL: server.url, APL_TOKEN: '' };
        const shown = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;
        expect(runApl(['datasets', 'create', 'token-args'], { env })).toMatchObject({ code: 0 });
        const file = join(dir, 'token-args.ndjson');
        writeFileSync(file, '{"level":"info"}\n{"level":"warn"}\n');

        const ingested = runApl(['ingest', 'token-args', file, '--token', TOKEN], { env: only });
        expect(ingested.code, ingested.stderr).toBe(0);
        expect(ingested.stderr).toMatch(/^apl ingest: warning: --token puts the token in the process arguments, which other users of this machine can read/m);
        expect(shown(ingested)).not.toContain(TOKEN);

        const queried = runApl(['query', '--format', 'json', '--token', TOKEN, "['token-args'] | count"], { env: only });
        expect(queried.code, queried.stderr).toBe(0);
        expect(JSON.parse(queried.stdout)).toEqual([{ count: 2 }]);
        expect(queried.stderr).toMatch(/^apl query: warning: --token puts the token in the process arguments, which other users of this machine can read/m);
        expect(shown(queried)).not.toContain(TOKEN);

        const wrong = 'xaat-wrong-token-in-args';
        const refused = runApl(['query', '--token', wrong, "['token-args'] | count"], { env: only });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/^apl query: warning: --token puts the token/m);
        expect(refused.stderr).toMatch(/401 /);
        expect(shown(refused)).not.toContain(wrong);
        expect(runApl(['datasets', 'delete', 'token-args'], { env })).toMatchObject({ code: 0 });
    });

    it('apl query --all --format csv … | head ends quietly with exit 0', async () => {
        const file = join(dir, 'many.ndjson');
        const base = Date.parse('2024-01-01T00:00:00Z');
        writeFileSync(file, Array.from({ length: 6000 }, (_, i) => JSON.stringify({ _time: new Date(base + i * 1000).toISOString(), i, text: 'x'.repeat(40) })).join('\n'));
        expect(runApl(['ingest', 'many', file, '--create'], { env }).code).toBe(0);
        const r = await runAplIntoClosedPipe(['query', '--all', '--format', 'csv', "['many']"], env);
        expect(r.head).toMatch(/^_time,/);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
    });
});

describe('a schema file from the service, for apl check --schema', () => {
    const diagnosticsOf = (schema: string, query: string) => {
        const q = join(dir, 'schema-q.apl');
        writeFileSync(q, query + '\n');
        const r = runApl(['check', '--schema', schema, '--format', 'json', q]);
        expect(r.code, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { diagnostics: { severity: string; code: string }[] }[])[0].diagnostics;
    };

    beforeAll(() => {
        const file = join(dir, 'schema-events.ndjson');
        writeFileSync(file, JSON.stringify({ status: '500', geo: { city: 'Paris' }, took_ms: 1.5 }) + '\n');
        expect(runApl(['ingest', 'schema-logs', file, '--create'], { env }).code).toBe(0);
        expect(runApl(['ingest', 'other-logs', file, '--create'], { env }).code).toBe(0);
    });

    it("apl datasets info schema-logs --format json > F, then ['schema-logs'] | where stauts == '500' with --schema F", () => {
        const schema = join(dir, 'schema-logs.info.json');
        const info = runApl(['datasets', 'info', 'schema-logs', '--format', 'json'], { env });
        expect(info.code).toBe(0);
        writeFileSync(schema, info.stdout);
        const typo = diagnosticsOf(schema, "['schema-logs'] | where stauts == '500'");
        expect(typo.map(d => d.severity)).toEqual(['warning']);
        expect(diagnosticsOf(schema, "['schema-logs'] | where status == '500' and ['geo.city'] == 'Paris' and took_ms > 1")).toEqual([]);
    });

    it('apl datasets schema > F (every dataset), then apl check --schema F', () => {
        const r = runApl(['datasets', 'schema'], { env });
        expect(r.code, r.stderr).toBe(0);
        const parsed = JSON.parse(r.stdout) as { datasets: Record<string, { name: string; type: string }[]> };
        expect(Object.keys(parsed.datasets)).toEqual(expect.arrayContaining(['schema-logs', 'other-logs']));
        const schema = join(dir, 'all.schema.json');
        writeFileSync(schema, r.stdout);
        expect(diagnosticsOf(schema, "['other-logs'] | where status == '500'")).toEqual([]);
        expect(diagnosticsOf(schema, "['nope-logs'] | count").map(d => d.severity)).toEqual(['warning']);
        const one = runApl(['datasets', 'schema', 'schema-logs'], { env });
        expect(Object.keys((JSON.parse(one.stdout) as typeof parsed).datasets)).toEqual(['schema-logs']);
        expect(runApl(['datasets', 'schema', 'nope-logs'], { env }).code).toBe(1);
    });
});

describe('apl datasets info after apl datasets trim', () => {
    it('reports what is left (events, bytes, first and last event), at once and after a restart', async () => {
        const data = join(dir, 'trim-data');
        const token = 'xaat-trim-info';
        const first = await startAplServe(['--data', data, '--no-samples'], { APL_TOKEN: token });
        const local = { APL_URL: first.url, APL_TOKEN: token };
        const now = Date.now();
        const times = [now - 5 * 86_400_000, now - 4 * 86_400_000, now - 3_600_000, now - 60_000].map(t => new Date(t).toISOString());
        const file = join(dir, 'trim.ndjson');
        writeFileSync(file, times.map((t, i) => JSON.stringify({ _time: t, i, text: 'y'.repeat(2000) })).join('\n') + '\n');
        expect(runApl(['ingest', 'trimmed', file, '--create'], { env: local }).code).toBe(0);
        const info = (env: NodeJS.ProcessEnv) => {
            const r = runApl(['datasets', 'info', 'trimmed', '--format', 'json'], { env });
            expect(r.code, r.stderr).toBe(0);
            return JSON.parse(r.stdout) as { numEvents: number; compressedBytes: number; minTime: string; maxTime: string };
        };
        const before = info(local);
        expect(before.numEvents).toBe(4);

        expect(runApl(['datasets', 'trim', 'trimmed', '--max-duration', '1d'], { env: local }).code).toBe(0);
        const after = info(local);
        expect(after.numEvents).toBe(2);
        expect(Date.parse(after.minTime)).toBe(Date.parse(times[2]));
        expect(Date.parse(after.maxTime)).toBe(Date.parse(times[3]));
        expect(after.compressedBytes).toBeLessThan(before.compressedBytes);
        const table = runApl(['datasets', 'info', 'trimmed'], { env: local }).stdout;
        expect(table).toMatch(/^events\s+2$/m);
        await first.stop();

        const second = await startAplServe(['--data', data, '--no-samples'], { APL_TOKEN: token });
        try {
            expect(info({ APL_URL: second.url, APL_TOKEN: token })).toEqual(after);
        } finally {
            await second.stop();
        }
    });
});

describe('apl serve: tokens and interfaces in the banner', () => {
    it('--token secret warns (no xaat-/xapt- prefix; visible in process arguments) and never echoes it; a restart says how to make a token', async () => {
        const data = join(dir, 'warn-data');
        const first = await startAplServe(['--data', data, '--no-samples', '--token', 'secret-value-123']);
        await first.stop();
        expect(first.stderr()).toMatch(/warning: the --token token does not start with xaat- or xapt-.*axiom-go and the axiom CLI refuse/);
        expect(first.stderr()).toMatch(/warning: --token puts the token in the process arguments/);
        expect(first.stdout() + first.stderr()).not.toContain('secret-value-123');

        // First start without any token: one is generated and shown once.
        const data2 = join(dir, 'fresh-data');
        const fresh = await startAplServe(['--data', data2, '--no-samples']);
        await fresh.stop();
        const generated = /API token \(shown once[^:]*\): (xaat-\S+)/.exec(fresh.stdout())?.[1];
        expect(generated).toBeDefined();

        // The restart cannot show it (only its hash is stored): the banner says how to make one.
        const restart = await startAplServe(['--data', data2, '--no-samples']);
        await restart.stop();
        expect(restart.stdout()).not.toContain(generated!);
        expect(restart.stdout()).toContain(`apl token create --data ${data2}`);
        expect(restart.stderr()).toBe('');
    });

    it('APL_TOKEN without a prefix warns too; with one, nothing is printed on stderr', async () => {
        const data = join(dir, 'env-data');
        const bare = await startAplServe(['--data', data, '--no-samples'], { APL_TOKEN: 'plain' });
        await bare.stop();
        expect(bare.stderr()).toMatch(/warning: the APL_TOKEN token does not start with xaat- or xapt-/);
        expect(bare.stdout()).toContain('AXIOM_TOKEN=$APL_TOKEN');
        const good = await startAplServe(['--data', data, '--no-samples'], { APL_TOKEN: 'xaat-good' });
        await good.stop();
        expect(good.stderr()).toBe('');
        expect(good.stdout()).not.toContain('xaat-good');
    });

    it('--host 0.0.0.0 says it listens on every interface, with the addresses', async () => {
        const s = await startAplServe(['--data', join(dir, 'any-data'), '--no-samples', '--host', '0.0.0.0'], { APL_TOKEN: 'xaat-any' });
        await s.stop();
        expect(s.stdout()).toMatch(/listening on every network interface \(0\.0\.0\.0\), reachable from other machines at:\n {4}http:\/\/127\.0\.0\.1:\d+/);
    });
});
