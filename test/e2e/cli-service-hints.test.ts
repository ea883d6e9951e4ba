/**
 * The command line against a real `apl serve` as a new user meets it: the banner's copy-paste
 * examples, one set of environment variables, and one-line hints instead of surprises (https:// to
 * a plain-HTTP service, a semicolon CSV, a busy port). Real processes (the BUILT out/apl.cjs), a
 * real port.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAplServe, type AplServe } from '../support/apl-serve.js';
import { APL_BIN, runApl } from '../support/cli.js';

let dir: string;

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apl-hints-'));
});

afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
});

/** The lines of a banner section (`curl:`, `apl …:`), without their indent. */
function section(banner: string, title: RegExp): string[] {
    const lines = banner.split('\n');
    const start = lines.findIndex(l => title.test(l));
    expect(start, `no section ${title} in:\n${banner}`).toBeGreaterThanOrEqual(0);
    const out: string[] = [];
    for (const l of lines.slice(start + 1)) {
        if (!l.startsWith('  ')) break;
        out.push(l.trim());
    }
    return out;
}

describe("following the apl serve banner's examples", () => {
    it('the export line, then the curl and apl examples, run in a shell, work (a first start: the generated token)', async () => {
        const server = await startAplServe(['--data', join(dir, 'banner-data'), '--no-samples']);
        try {
            const banner = server.stdout();
            const exported = banner.split('\n').find(l => l.trim().startsWith('export AXIOM_URL='))?.trim();
            expect(exported).toMatch(/^export AXIOM_URL=http:\/\/\S+ AXIOM_TOKEN=xaat-\S+$/);
            const curl = section(banner, /^curl:/);
            const apl = section(banner, /^apl\b.*:$/);
            expect(curl.length).toBeGreaterThan(0);
            expect(apl.join('\n')).toContain('apl query');
            // `apl` on the PATH is the built bin; nothing of the test's own environment leaks in.
            const bin = join(dir, 'bin');
            mkdirSync(bin, { recursive: true });
            writeFileSync(join(bin, 'apl'), `#!/bin/sh\nexec "${process.execPath}" "${APL_BIN}" "$@"\n`);
            chmodSync(join(bin, 'apl'), 0o755);
            const script = ['set -e', exported!, ...curl, 'echo', ...apl].join('\n');
            const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: dir };
            const r = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 60_000 });
            expect(r.status, r.stderr).toBe(0);
            expect(r.stderr).not.toMatch(/error|refused|401/i);
            // The curl query answers the two events it ingested; apl adds one and counts three levels.
            expect(r.stdout).toMatch(/"tables"/);
            expect(r.stdout).toMatch(/^error\s+1$/m);
            expect(r.stdout).toMatch(/^info\s+1$/m);
            expect(r.stdout).toMatch(/^warn\s+1$/m);
        } finally {
            await server.stop();
        }
    });
});

describe('one set of environment variables: AXIOM_URL, AXIOM_TOKEN (APL_URL, APL_TOKEN as aliases)', () => {
    let server: AplServe;
    const token = 'xaat-env-names';
    beforeAll(async () => {
        server = await startAplServe(['--data', join(dir, 'env-data'), '--no-samples'], { AXIOM_TOKEN: token });
    });
    afterAll(async () => {
        await server?.stop();
    });

    it('apl serve accepts AXIOM_TOKEN, and its banner names it', () => {
        expect(server.stdout()).toContain('AXIOM_TOKEN=$AXIOM_TOKEN');
        expect(server.stdout()).not.toContain(token);
    });

    it('apl datasets list reads AXIOM_URL and AXIOM_TOKEN', () => {
        const r = runApl(['datasets', 'list', '--format', 'json'], { env: { AXIOM_URL: server.url, AXIOM_TOKEN: token } });
        expect(r).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    });

    it('APL_URL and APL_TOKEN still work alone', () => {
        expect(runApl(['datasets', 'list'], { env: { APL_URL: server.url, APL_TOKEN: token } }).code).toBe(0);
    });

    it('when both are set, the AXIOM_ ones win', () => {
        const both = { AXIOM_URL: server.url, AXIOM_TOKEN: token, APL_URL: 'http://127.0.0.1:9', APL_TOKEN: 'xaat-not-this-one' };
        expect(runApl(['datasets', 'list'], { env: both })).toMatchObject({ code: 0, stderr: '' });
        const wrong = runApl(['datasets', 'list'], { env: { ...both, AXIOM_TOKEN: 'xaat-wrong', APL_TOKEN: token } });
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toMatch(/401 /);
    });
});

describe('hints instead of surprises', () => {
    let server: AplServe;
    const token = 'xaat-hints';
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
        server = await startAplServe(['--data', join(dir, 'hints-data'), '--no-samples'], { AXIOM_TOKEN: token });
        env = { AXIOM_URL: server.url, AXIOM_TOKEN: token };
    });
    afterAll(async () => {
        await server?.stop();
    });

    it('https:// against the plain-HTTP service: one line saying to use http://', () => {
        const https = server.url.replace(/^http:/, 'https:');
        const r = runApl(['datasets', 'list'], { env: { ...env, AXIOM_URL: https } });
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`^apl datasets: GET ${https}/v2/datasets: the service speaks plain HTTP, not HTTPS: use ${server.url}\\n$`));
        expect(r.stderr).not.toMatch(/SSL|ssl3|openssl/);
    });

    it('a semicolon-separated CSV: a hint about --csv-delimiter, nothing sent; with it, the fields are split', () => {
        const file = join(dir, 'semi.csv');
        writeFileSync(file, 'level;msg\nwarn;disk full\ninfo;ok\n');
        const r = runApl(['ingest', 'semi', file, '--create'], { env });
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(
            `apl ingest: ${file}: the CSV header has no ',' but ';': every line would land in one column. Add --csv-delimiter ';' to split the fields (or --csv-delimiter , to send it as it is)\n`,
        );
        expect(runApl(['datasets', 'info', 'semi'], { env }).code).toBe(1);

        expect(runApl(['ingest', 'semi', file, '--create', '--csv-delimiter', ';'], { env }).code).toBe(0);
        const q = runApl(['query', '--format', 'json', "['semi'] | project level, msg | sort by level asc"], { env });
        expect(JSON.parse(q.stdout)).toEqual([
            { level: 'info', msg: 'ok' },
            { level: 'warn', msg: 'disk full' },
        ]);
    });

    it('control characters from data or from the service reach the terminal escaped (\\033), never raw', () => {
        const file = join(dir, 'hostile.ndjson');
        writeFileSync(file, JSON.stringify({ msg: 'red \u001b[31malert\u0007 \u009b2J', ['bad\u001b]0;title\u0007']: 1 }) + '\n');
        expect(runApl(['ingest', 'hostile', file, '--create'], { env }).code).toBe(0);
        // eslint-disable-next-line no-control-regex
        const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
        const table = runApl(['query', "['hostile'] | project msg"], { env });
        expect(table.code, table.stderr).toBe(0);
        expect(table.stdout).toContain('red \\033[31malert\\a \\2332J');
        expect(table.stdout).not.toMatch(raw);
        const all = runApl(['query', "['hostile']"], { env: { ...env, COLUMNS: '300' } });
        expect(all.stdout).toContain('bad\\033]0;title\\a');
        expect(all.stdout).not.toMatch(raw);
        // An error from the service that quotes what it was sent.
        const missing = runApl(['query', "['no\u001b[2Jsuch'] | count"], { env });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain('\\033[2J');
        expect(missing.stderr).not.toMatch(raw);
        const info = runApl(['datasets', 'info', 'no\u001b[2Jsuch'], { env });
        expect(info.code).toBe(1);
        expect(info.stderr).not.toMatch(raw);
    });

    it('apl serve on a busy port: exit 2, one line naming the port, and the first-start token is still printed by the next start', async () => {
        const port = new URL(server.url).port;
        const data = join(dir, 'busy-data');
        const busy = runApl(['serve', '--port', port, '--data', data, '--no-samples']);
        expect(busy.code).toBe(2);
        expect(busy.stderr).toBe(`apl serve: cannot listen on 127.0.0.1:${port}: the address is already in use (try --port)\n`);
        expect(busy.stdout).toBe('');
        expect(existsSync(data), 'a start that cannot listen writes nothing').toBe(false);

        const next = await startAplServe(['--data', data, '--no-samples']);
        await next.stop();
        expect(next.stdout()).toMatch(/API token \(shown once[^:]*\): xaat-\S+/);
    });
});
