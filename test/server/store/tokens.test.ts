/**
 * TokenStore sees changes other processes make to tokens.json (`apl token create` while a server
 * runs): two stores on one directory stand for the server and the CLI.
 */
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenStore, type TokenStoreOptions } from '../../../server/store/tokens.js';
import { tempDir } from './helpers.js';

vi.mock('node:fs', async (importOriginal) => {
    const actual = await importOriginal<typeof import('node:fs')>();
    return { ...actual, readFileSync: vi.fn(actual.readFileSync) };
});

const cleanups: (() => void)[] = [];
afterEach(() => {
    for (const c of cleanups.splice(0)) c();
});

/** A "server" store with a hand-driven clock and captured logs, and a way to open "CLI" stores. */
async function setup(options: TokenStoreOptions = {}) {
    const { dir, cleanup } = tempDir('apl-tokens-');
    cleanups.push(cleanup);
    let ms = 1_000_000;
    const logs: string[] = [];
    const server = await TokenStore.open(dir, { now: () => ms, log: (m) => logs.push(m), ...options });
    return {
        dir,
        file: path.join(dir, 'tokens.json'),
        server,
        logs,
        advance: (by: number) => (ms += by),
        cli: () => TokenStore.open(dir),
    };
}

describe('TokenStore reload', () => {
    it('accepts a token another process created, on its first use', async () => {
        const { server, cli } = await setup();
        expect(server.verify('xaat-made-up')).toBeUndefined(); // the server has looked just now
        const { token, info } = await (await cli()).createToken('ci');
        expect(server.verify(token)).toEqual(info);
        expect(server.list()).toEqual([info]);
        expect(server.verify('xaat-made-up')).toBeUndefined();
    });

    it('stops accepting a token another process removed, within recheckMs', async () => {
        const { server, cli, advance } = await setup({ recheckMs: 1000 });
        const { token, info } = await server.createToken('ci');
        expect(server.verify(token)).toEqual(info);
        expect(await (await cli()).deleteToken(info.id)).toBe(true);
        advance(999);
        expect(server.verify(token)).toEqual(info); // a known token does not look before recheckMs
        advance(1);
        expect(server.verify(token)).toBeUndefined();
    });

    it('treats a deleted tokens.json as no stored tokens', async () => {
        const { server, file, advance } = await setup();
        const { token } = await server.createToken('ci');
        await fsp.rm(file);
        advance(1000);
        expect(server.verify(token)).toBeUndefined();
        expect(server.size).toBe(0);
    });

    it('a flood of unknown tokens stats the file but reads it only when it changed', async () => {
        const { server, cli } = await setup();
        await server.createToken('first');
        const read = vi.mocked(fs.readFileSync);
        server.verify('xaat-warm-up'); // reads the file the server itself wrote
        read.mockClear();
        for (let i = 0; i < 1000; i++) expect(server.verify(`xaat-bad-${i}`)).toBeUndefined();
        expect(read).not.toHaveBeenCalled();
        const { token } = await (await cli()).createToken('second');
        read.mockClear();
        expect(server.verify(token)?.name).toBe('second');
        for (let i = 0; i < 100; i++) server.verify(`xaat-bad-${i}`);
        expect(read).toHaveBeenCalledTimes(1);
    });

    it('keeps the tokens in force while the file does not parse, logs once, and reloads when fixed', async () => {
        const { server, file, logs, cli } = await setup();
        const { token } = await server.createToken('ci');
        const good = await fsp.readFile(file, 'utf8');
        await fsp.writeFile(file, good.slice(0, 20)); // a hand edit caught half-way
        for (let i = 0; i < 5; i++) expect(server.verify(`xaat-bad-${i}`)).toBeUndefined();
        expect(server.verify(token)?.name).toBe('ci');
        expect(logs).toHaveLength(1);
        expect(logs[0]).toMatch(/cannot re-read .*tokens\.json.*1 token\(s\) read before stay in force/);
        await fsp.writeFile(file, good);
        const other = await (await cli()).createToken('other');
        expect(server.verify(other.token)?.name).toBe('other');
        expect(server.verify(token)?.name).toBe('ci');
    });

    it('creating or deleting starts from the file, so tokens other processes added are kept', async () => {
        const { server, cli } = await setup();
        const a = await server.createToken('a');
        const b = await (await cli()).createToken('b'); // the server has not looked since
        const c = await server.createToken('c');
        expect(await server.deleteToken(a.info.id)).toBe(true);
        const fresh = await cli();
        expect(fresh.list().map((t) => t.name)).toEqual(['b', 'c']);
        expect(fresh.verify(b.token)?.name).toBe('b');
        expect(fresh.verify(c.token)?.name).toBe('c');
        expect(await server.deleteToken('no-such-id')).toBe(false);
    });

    it('refuses to open an unreadable token file', async () => {
        const { dir, cleanup } = tempDir('apl-tokens-');
        cleanups.push(cleanup);
        await fsp.writeFile(path.join(dir, 'tokens.json'), '{"v":1,');
        await expect(TokenStore.open(dir)).rejects.toThrow(/tokens\.json: not valid JSON/);
    });

    it('concurrent creates in one process all land in the file', async () => {
        const { server, cli } = await setup();
        const made = await Promise.all(Array.from({ length: 5 }, (_, i) => server.createToken(`t${i}`)));
        const fresh = await cli();
        for (const m of made) expect(fresh.verify(m.token)).toEqual(m.info);
    });
});
