/** A real embedded service on a free port with a dataset of `count` events (one per second, newest last). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AplClient } from '../../../client/api/client.js';
import { createService, type Service } from '../../../server/http/app.js';

export const TOKEN = 'xaat-vscode-unit';
export const START = '2024-01-01T00:00:00Z';
export const END = '2024-01-02T00:00:00Z';

export interface Fixture {
    service: Service;
    client: AplClient;
    close(): Promise<void>;
}

export async function serviceWithEvents(count: number, dataset = 'events'): Promise<Fixture> {
    const dir = mkdtempSync(join(tmpdir(), 'apl-vscode-unit-'));
    const service = await createService({ dataDir: dir, port: 0, tokens: [TOKEN], samples: false, log: () => undefined, store: { compactInWorker: false } });
    const client = new AplClient({ url: service.url, token: TOKEN });
    await client.datasets.create({ name: dataset });
    const base = Date.parse('2024-01-01T01:00:00Z');
    // Pairs of events share a timestamp: ties straddle page boundaries.
    await client.ingest(dataset, Array.from({ length: count }, (_, i) => ({ _time: new Date(base + Math.floor(i / 2) * 1000).toISOString(), seq: i, word: i % 3 === 0 ? 'a,"b"' : `w${i}` })));
    return {
        service,
        client,
        close: async () => {
            await service.close();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
