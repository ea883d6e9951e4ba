/**
 * `apl query --all` ends with the number of rows written (stderr) and fails loudly when it differs
 * from the rows the query matches: against the real service, and against an endpoint whose pages
 * lose rows (a real HTTP server on a real port, the edge we do not own). A result cut by the
 * service's row cap says so on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AplClient } from '../../client/api/index.js';
import { runQueryCommand } from '../../client/cli/commands/query.js';
import { createService, type Service } from '../../server/http/app.js';

const TOKEN = 'xaat-cli-query-all';

async function runQuery(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (b: Buffer) => (stdout += b.toString()));
    err.on('data', (b: Buffer) => (stderr += b.toString()));
    vi.stubEnv('APL_TOKEN', TOKEN);
    try {
        const code = await runQueryCommand(['--url', url, ...args], out, err);
        return { code, stdout, stderr };
    } finally {
        vi.unstubAllEnvs();
    }
}

describe('apl query --all: the rows written, checked', () => {
    let service: Service;
    let dir: string;
    beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'apl-cli-all-'));
        service = await createService({ dataDir: dir, port: 0, tokens: [TOKEN], samples: false, log: () => undefined, store: { compactInWorker: false }, maxResultRows: 20 });
        const client = new AplClient({ url: service.url, token: TOKEN });
        await client.datasets.create({ name: 'export-all' });
        await client.ingest('export-all', Array.from({ length: 23 }, (_, i) => ({ _time: new Date(Date.UTC(2024, 0, 1, 0, 0, i % 4)).toISOString(), i })));
    });
    afterAll(async () => {
        await service?.close();
        rmSync(dir, { recursive: true, force: true });
    });

    it("['export-all'] | project _time, i (--all --page-size 5): 23 rows written", async () => {
        const r = await runQuery(service.url, ['--all', '--page-size', '5', '--format', 'json', "['export-all'] | project _time, i"]);
        expect(r.code).toBe(0);
        expect((JSON.parse(r.stdout) as unknown[]).length).toBe(23);
        expect(r.stderr).toBe('23 rows written\n');
    });

    it("['export-all'] | limit 23 (maxResultRows 20): 20 rows, and stderr says the cap cut them", async () => {
        const r = await runQuery(service.url, ['--format', 'json', "['export-all'] | limit 23"]);
        expect(r.code).toBe(0);
        expect((JSON.parse(r.stdout) as unknown[]).length).toBe(20);
        expect(r.stderr).toMatch(/^warn: query result was limited to 20 of 23 rows: .*maxResultRows/);
    });

    it("['export-all'] --all --page-size 21 (more than maxResultRows 20): exit 1, not a silent 20", async () => {
        const r = await runQuery(service.url, ['--all', '--page-size', '21', '--format', 'json', "['export-all']"]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/20 rows written, but the query matches 23/);
    });

    it("['one-time'] | summarize count() by _time, i paged by time: 25 ties without row ids past maxResultRows 20, an error, not a silent loss", async () => {
        const client = new AplClient({ url: service.url, token: TOKEN });
        await client.datasets.create({ name: 'one-time' });
        await client.ingest('one-time', Array.from({ length: 25 }, (_, i) => ({ _time: '2024-01-01T00:00:00Z', i })));
        const read = async () => {
            const got: unknown[] = [];
            for await (const p of client.pagesByTime("['one-time'] | summarize count() by _time, i", { pageSize: 10, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' })) got.push(...p.rows);
            return got;
        };
        await expect(read()).rejects.toThrow(/time paging cannot go on: the service returned 20 of the 30 rows asked for \(25 matched\)/);
    });

    it("['lossy'] against an endpoint whose pages lose rows: exit 1, written and matched named", async () => {
        // Pages of 2 rows without cursors (the pager stops), while `| count` says 5.
        const lossy: Server = createServer((req, res) => {
            let body = '';
            req.on('data', (b: Buffer) => (body += b.toString()));
            req.on('end', () => {
                const apl = String((JSON.parse(body) as { apl: string }).apl);
                const status = { elapsedTime: 1, rowsExamined: 5, rowsMatched: 5, blocksExamined: 1, numGroups: 0, isPartial: false, cacheStatus: 1, minBlockTime: '2024-01-01T00:00:00Z', maxBlockTime: '2024-01-01T00:00:00Z' };
                const table = apl.endsWith('| count')
                    ? { name: '0', fields: [{ name: 'Count', type: 'long' }], columns: [[5]] }
                    : { name: '0', fields: [{ name: '_time', type: 'datetime' }, { name: 'i', type: 'long' }], columns: [['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'], [0, 1]] };
                res.setHeader('content-type', 'application/json');
                res.end(JSON.stringify({ format: 'tabular', status, tables: [table], datasetNames: ['lossy'], fieldsMetaMap: {} }));
            });
        });
        await new Promise<void>(resolve => lossy.listen(0, '127.0.0.1', resolve));
        try {
            const url = `http://127.0.0.1:${(lossy.address() as AddressInfo).port}`;
            const r = await runQuery(url, ['--all', '--format', 'csv', "['lossy']"]);
            expect(r.code).toBe(1);
            expect(r.stderr).toMatch(/^2 rows written\napl query: error: 2 rows written, but the query matches 5: the output is incomplete \(or events arrived while it ran: bound the time with --end\)\n$/);
        } finally {
            await new Promise(resolve => lossy.close(resolve));
        }
    });
});
