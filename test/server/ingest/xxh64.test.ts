import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { xxh64 } from '../../../server/ingest/xxh64.js';

describe('xxh64', () => {
    it('matches the published XXH64 test vectors (seed 0)', () => {
        expect(xxh64(new Uint8Array()).toString(16)).toBe('ef46db3751d8e999');
        expect(xxh64(Buffer.from('a')).toString(16)).toBe('d24ec4f1a98c6e5b');
        expect(xxh64(Buffer.from('abc')).toString(16)).toBe('44bc2cf5ad770999');
        expect(xxh64(Buffer.from('Nobody inspects the spammish repetition')).toString(16)).toBe('fbcea83c8a378bf1');
    });

    it('agrees with the checksum the zstd CLI writes, for every tail length', () => {
        for (const len of [0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 100, 1000]) {
            const data = Buffer.from(Array.from({ length: len }, (_, i) => (i * 131 + len) & 0xff));
            const frame = execFileSync('zstd', ['-q', '-c', '--check'], { input: data });
            expect(Number(xxh64(data) & 0xffffffffn), `length ${len}`).toBe(frame.readUInt32LE(frame.length - 4));
        }
    });
});
