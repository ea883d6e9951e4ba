/**
 * The V8 code cache that the language-server bin starts with (bin/code-cache.ts): the bundle runs
 * exactly as `require` would run it, a cache is used only for the very bundle it was made from, and
 * a cache V8 refuses or a missing one only costs time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startAplServe } from '../support/apl-serve.js';

interface Seen { value: number; dirname: string; filename: string; sameExports: boolean; join: string }

const DRIVER = fileURLToPath(new URL('../support/run-with-code-cache.ts', import.meta.url));

/** A fresh process per run: V8 reuses scripts it compiled earlier in the same process. */
function run(file: string, cache: string, save = false): { cache: string; seen: Seen } {
    const r = spawnSync(process.execPath, ['--import', 'tsx', DRIVER, file, cache, ...(save ? ['--save'] : [])], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { cache: string; seen: Seen };
}

function bundle(value: number): string {
    // A shebang like the real bins have; the body reports what the CommonJS wrapper gave it.
    return `#!/usr/bin/env node
const path = require('node:path');
function answer() { return ${value}; }
globalThis.__codeCacheTest = { value: answer(), dirname: __dirname, filename: __filename, sameExports: module.exports === exports, join: path.join('a', 'b') };
`;
}

describe('runWithCodeCache, each run in a new process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apl-code-cache-'));
    const file = join(dir, 'bundle.cjs');
    const cache = join(dir, 'bundle.v8-cache');

    it('runs a bundle like require does, with no cache yet', () => {
        writeFileSync(file, bundle(1));
        const r = run(file, cache, true);
        expect(r.cache).toBe('none');
        expect(r.seen).toEqual({ value: 1, dirname: dir, filename: file, sameExports: true, join: join('a', 'b') });
    });

    it('uses the cache it saved for the same bundle', () => {
        expect(readFileSync(cache, 'latin1').startsWith('apl-v8-code-cache 3 ')).toBe(true);
        const r = run(file, cache);
        expect(r.cache).toBe('used');
        expect(r.seen.value).toBe(1);
    });

    it('ignores the cache of a changed bundle of the same length', () => {
        // V8 alone would accept it: its check compares source lengths, not contents.
        writeFileSync(file, bundle(2));
        const r = run(file, cache);
        expect(r.cache).toBe('none');
        expect(r.seen.value).toBe(2);
    });

    it('compiles as usual when V8 refuses the cache', () => {
        const bytes = readFileSync(file);
        const junk = Buffer.alloc(4096, 7);
        const header = `apl-v8-code-cache 3 ${bytes.length}-${crc32(bytes).toString(16)} ${junk.length}-${crc32(junk).toString(16)} ${process.version}\n`;
        writeFileSync(cache, Buffer.concat([Buffer.from(header, 'latin1'), junk]));
        const r = run(file, cache);
        expect(r.cache).toBe('rejected');
        expect(r.seen.value).toBe(2);
    });
});

describe('the built bins', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));

    it.each([
        ['apl-language-server.cjs', ['--help'], 'Usage: apl-language-server'],
        ['apl.cjs', ['help', 'check'], 'apl check'],
        ['apl.cjs', ['serve', '--help'], 'apl serve'],
    ])('%s %s starts with the code cache made at build time', (bin, args, usage) => {
        const r = spawnSync(process.execPath, [join(root, 'out', bin), ...args], {
            env: { ...process.env, APL_CODE_CACHE_DEBUG: '1' },
            encoding: 'utf8',
        });
        expect(r.status).toBe(0);
        expect(r.stdout).toContain(usage);
        expect(r.stderr).toMatch(/^code cache: used /);
        expect(r.stderr).toContain(args[0] === 'serve' ? 'apl-cli.serve.v8-cache' : '.v8-cache');
    });
});

/**
 * Issue 31: the service's query and ingest workers start through out/worker-launcher.cjs with the
 * caches the build's warm-up session made (a query worker compiled its 1.4 MB bundle on every
 * start before), and answer as before.
 */
describe("apl serve's worker threads", () => {
    it("['w'] | summarize count() by k after an ingest: the query and ingest workers start with their code caches", async () => {
        const dir = mkdtempSync(join(tmpdir(), 'apl-worker-cache-'));
        const token = 'xaat-worker-code-cache';
        const s = await startAplServe(['--data', dir, '--no-samples', '--query-workers', '1'], { AXIOM_TOKEN: token, APL_CODE_CACHE_DEBUG: '1' });
        try {
            const call = (route: string, body: string, type = 'application/json') =>
                fetch(s.url + route, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
            expect((await call('/v2/datasets', JSON.stringify({ name: 'w' }))).status).toBe(200);
            expect((await call('/v1/datasets/w/ingest', '{"k":"a"}\n{"k":"b"}\n{"k":"a"}', 'application/x-ndjson')).status).toBe(200);
            const r = await call('/v1/datasets/_apl?format=tabular', JSON.stringify({ apl: "['w'] | summarize n = count() by k | order by k asc" }));
            expect(r.status).toBe(200);
            const json = (await r.json()) as { tables: { columns: unknown[][] }[] };
            expect(json.tables[0]!.columns).toEqual([['a', 'b'], [2, 1]]);
        } finally {
            await s.stop();
        }
        const root = fileURLToPath(new URL('../..', import.meta.url));
        for (const worker of ['query-worker', 'ingest-worker']) expect(s.stderr()).toContain(`code cache: used (${join(root, 'out', `${worker}.v8-cache`)})`);
        expect(s.stderr()).not.toMatch(/code cache: (none|rejected)/);
    });
});

/**
 * A damaged code cache must never reach V8, which checks a cache's checksum only in debug builds
 * and may crash on one (SIGSEGV, SIGTRAP): the bin compiles the bundle as usual instead, and works.
 */
describe('a damaged code cache beside a built bin', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    /** A copy of `apl` (the bin, its bundle and cache) with the cache changed by `damage`. */
    function aplWithCache(damage: (cache: Buffer) => Buffer): string {
        const dir = mkdtempSync(join(tmpdir(), 'apl-damaged-cache-'));
        for (const f of ['apl.cjs', 'apl-cli.cjs']) writeFileSync(join(dir, f), readFileSync(join(root, 'out', f)));
        writeFileSync(join(dir, 'apl-cli.v8-cache'), damage(readFileSync(join(root, 'out', 'apl-cli.v8-cache'))));
        return join(dir, 'apl.cjs');
    }
    const flip = (at: (length: number) => number) => (cache: Buffer): Buffer => {
        const copy = Buffer.from(cache);
        copy[at(copy.length)] ^= 0xff;
        return copy;
    };
    const other = readFileSync(join(root, 'out', 'language-server.v8-cache'));

    it.each([
        ['a flipped byte in the middle', flip(n => Math.floor(n / 2))],
        ['a flipped byte near the end', flip(n => n - 100)],
        ['a flipped byte just after the header', flip(n => n - (n - 200))],
        ['truncated to half', (c: Buffer) => c.subarray(0, Math.floor(c.length / 2))],
        ["another bundle's cache under this bundle's header", (c: Buffer) => Buffer.concat([c.subarray(0, c.indexOf(10) + 1), other.subarray(other.indexOf(10) + 1)])],
    ])('%s → not used; apl check still works', (_name, damage) => {
        const r = spawnSync(process.execPath, [aplWithCache(damage), 'check', '-'], {
            input: "['logs'] | where status == ",
            env: { ...process.env, APL_CODE_CACHE_DEBUG: '1' },
            encoding: 'utf8',
        });
        expect(r.signal).toBeNull();
        expect(r.stderr).toMatch(/^code cache: none /);
        expect(r.status).toBe(1);
        expect(r.stdout).toContain('APL1001');
    });
});
