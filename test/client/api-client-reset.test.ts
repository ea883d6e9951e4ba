/**
 * A kept-alive connection that the server (or a proxy in between) closes just as the next request
 * goes out on it: a query is sent again once, a write never is. The server here is a real TCP
 * server that closes the first connection as soon as a request arrives on it, without answering.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AplApiError, AplClient } from '../../client/api/index.js';

const ANSWER = JSON.stringify({ format: 'tabular', status: { elapsedTime: 1 }, tables: [] });

let server: Server | undefined;
afterEach(() => new Promise<void>(resolve => (server ? server.close(() => resolve()) : resolve())));

/** Closes the first `resets` requests' connections unanswered; answers the rest. Counts the requests. */
async function resettingServer(resets: number): Promise<{ url: string; requests(): number }> {
    let requests = 0;
    server = createServer((socket: Socket) => {
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
            seen += chunk.toString('latin1');
            if (!seen.includes('\r\n\r\n')) return;
            seen = '';
            requests++;
            if (requests <= resets) socket.destroy();
            else socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${ANSWER.length}\r\nconnection: close\r\n\r\n${ANSWER}`);
        });
        socket.on('error', () => undefined);
    });
    await new Promise<void>(resolve => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests: () => requests };
}

describe('a connection reset before any answer', () => {
    it("['logs'] | count: the query is sent again once, and answers", async () => {
        const s = await resettingServer(1);
        const client = new AplClient({ url: s.url, token: 'xaat-test' });
        const r = await client.query("['logs'] | count");
        expect(r).toMatchObject({ format: 'tabular', tables: [] });
        expect(s.requests()).toBe(2);
    });

    it("['logs'] | count reset twice: the error names the reset, after two requests", async () => {
        const s = await resettingServer(2);
        const client = new AplClient({ url: s.url, token: 'xaat-test' });
        const err = await client.query("['logs'] | count").catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AplApiError);
        expect(s.requests()).toBe(2);
    });

    it('GET /v2/datasets is sent again once', async () => {
        const s = await resettingServer(1);
        await new AplClient({ url: s.url, token: 'xaat-test' }).datasets.list().catch(() => undefined);
        expect(s.requests()).toBe(2);
    });

    it('an ingest is never sent again: the server may have stored it', async () => {
        const s = await resettingServer(1);
        const err = await new AplClient({ url: s.url, token: 'xaat-test' }).ingest('logs', [{ a: 1 }]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AplApiError);
        expect(s.requests()).toBe(1);
    });
});
