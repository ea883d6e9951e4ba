/**
 * The server `apl serve` binds before it opens its data directory (server/http/early-server.ts):
 * on a real loopback port, it answers 503 "starting" until the app is ready, then the app answers,
 * on the same kept-alive connection; a busy port fails at once; once closed, a connect is refused.
 */
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listenEarly, STARTING_MESSAGE } from '../../../server/http/early-server.js';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
afterAll(() => agent.destroy());

function get(port: number, body?: string, fresh = false): Promise<{ status: number; text: string; retryAfter?: string; socket: unknown }> {
    return new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/v2/datasets', method: body === undefined ? 'GET' : 'POST', agent: fresh ? false : agent }, res => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, retryAfter: res.headers['retry-after'], socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
    });
}

describe('listenEarly', () => {
    it('GET /v2/datasets while starting → 503 starting with Retry-After: 1; after open() the app answers on the same connection', async () => {
        const early = await listenEarly('127.0.0.1', 0, 16);
        const port = (early.server.address() as AddressInfo).port;
        try {
            const starting = await get(port);
            expect(starting.status).toBe(503);
            expect(JSON.parse(starting.text)).toEqual({ message: STARTING_MESSAGE });
            expect(starting.retryAfter).toBe('1');
            // A body sent meanwhile is read and dropped; the connection stays usable.
            const withBody = await get(port, 'x'.repeat(200_000));
            expect(withBody.status).toBe(503);
            expect(withBody.socket).toBe(starting.socket);

            const server = early.factory((_req, res) => res.end('ready'));
            expect(server).toBe(early.server);
            expect((await get(port)).status).toBe(503); // not before open()
            early.open();
            const ready = await get(port);
            expect(ready).toMatchObject({ status: 200, text: 'ready' });
            expect(ready.socket).toBe(starting.socket);
        } finally {
            await early.close();
        }
        await expect(get(port, undefined, true)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });

    it('a busy port → EADDRINUSE, before anything else', async () => {
        const holder = createServer();
        await new Promise<void>(r => holder.listen(0, '127.0.0.1', () => r()));
        const port = (holder.address() as AddressInfo).port;
        try {
            await expect(listenEarly('127.0.0.1', port, 16)).rejects.toMatchObject({ code: 'EADDRINUSE' });
        } finally {
            await new Promise(r => holder.close(r));
        }
    });
});
