/**
 * A body refused before it is read (its Content-Length past the route's limit) gets its 413 even
 * from a client that is still sending and slow to read, as curl is on a big upload. Closing the
 * socket at once would make the client's kernel receive a reset, which can discard the 413 before
 * the client reads it: the client then sees "connection reset" instead of the reason.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, TOKEN, type TestService } from './helpers.js';

let t: TestService;
beforeAll(async () => {
    t = await startService({ maxBodyBytes: 256 * 1024 });
});
afterAll(async () => {
    await t?.stop();
});

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/**
 * Sends the headers and the body in pieces, reading nothing until the whole body is written (a
 * busy client); then reads what the service answered, or the error the socket reports.
 */
async function sendWithoutReading(path: string, contentType: string, bodyBytes: number, chunked = false): Promise<{ answer: string; error?: string }> {
    const { port } = new URL(t.url);
    const socket: Socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.pause();
    let error: string | undefined;
    socket.on('error', e => (error ??= (e as NodeJS.ErrnoException).code ?? e.message));
    socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: ${contentType}\r\n${chunked ? 'transfer-encoding: chunked' : `content-length: ${bodyBytes}`}\r\n\r\n`);
    const piece = Buffer.alloc(256 * 1024, 0x20);
    for (let sent = 0; sent < bodyBytes && !error; sent += piece.length) {
        const part = piece.subarray(0, Math.min(piece.length, bodyBytes - sent));
        socket.write(chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
        // Gives the service time to answer and, were it to close, the reset time to arrive.
        await sleep(20);
    }
    if (chunked && !error) socket.write('0\r\n\r\n');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.resume();
    // The answer is complete once its JSON body (Content-Length bytes) is in.
    for (let i = 0; i < 200 && !error && !/\r\n\r\n\{.*\}$/s.test(Buffer.concat(chunks).toString('latin1')); i++) await sleep(25);
    socket.destroy();
    return { answer: Buffer.concat(chunks).toString('utf8'), error };
}

describe('a body past the limit, from a client still sending', () => {
    it('POST /v1/datasets/_apl with 12 MiB: the client reads 413 and its reason', async () => {
        const r = await sendWithoutReading('/v1/datasets/_apl?format=tabular', 'application/json', 12 * 1024 * 1024);
        expect(r.answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(r.answer).toMatch(/the APL query request is too large/);
    });

    it('POST /v1/datasets/x/ingest with 2 MiB (the limit 256 KiB): the client reads 413', async () => {
        const r = await sendWithoutReading('/v1/datasets/x/ingest', 'application/x-ndjson', 2 * 1024 * 1024);
        expect(r.answer).toMatch(/^HTTP\/1\.1 413 /);
    });

    it('POST /v1/datasets/_apl with 12 MiB chunked (no Content-Length): the client reads 413 and its reason', async () => {
        const r = await sendWithoutReading('/v1/datasets/_apl?format=tabular', 'application/json', 12 * 1024 * 1024, true);
        expect(r.answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(r.answer).toMatch(/the APL query request is too large/);
    });

    it('afterwards the service answers on a new connection', async () => {
        const r = await t.call('GET', '/v2/datasets');
        expect(r.status).toBe(200);
    });
});
