/** AplClient against the real service (createService on a free port, a temporary data directory). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AplApiError, AplClient, fetchPage, firstAnchor, queryErrorLocation, tableRows, type Page, type PageAnchor } from '../../client/api/index.js';
import { createService, type Service } from '../../server/http/app.js';

const TOKEN = 'xaat-client-test';
let service: Service;
let dir: string;
let client: AplClient;

beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'apl-client-'));
    service = await createService({ dataDir: dir, port: 0, tokens: [TOKEN], samples: false, log: () => undefined, store: { compactInWorker: false } });
    client = new AplClient({ url: service.url, token: TOKEN });
});

afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
});

async function collect(pages: AsyncIterable<Page>): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
    const rows: Record<string, unknown>[] = [];
    let n = 0;
    for await (const p of pages) {
        rows.push(...p.rows);
        n++;
    }
    return { rows, pages: n };
}

describe('AplClient against the local service', () => {
    it('reads the current user', async () => {
        const user = await client.user();
        expect(typeof user.id).toBe('string');
        expect(user.email).toContain('@');
    });

    it('manages datasets', async () => {
        const created = await client.datasets.create({ name: 'client-ds', description: 'd1' });
        expect(created).toMatchObject({ id: 'client-ds', name: 'client-ds', description: 'd1' });
        expect((await client.datasets.get('client-ds')).description).toBe('d1');
        expect((await client.datasets.list()).map(d => d.name)).toContain('client-ds');
        const updated = await client.datasets.update('client-ds', { description: 'd2' });
        expect(updated.description).toBe('d2');
        const conflict = await client.datasets.create({ name: 'client-ds' }).catch((e: unknown) => e);
        expect(conflict).toBeInstanceOf(AplApiError);
        expect((conflict as AplApiError).status).toBe(409);
        await client.datasets.delete('client-ds');
        const gone = await client.datasets.get('client-ds').catch((e: unknown) => e);
        expect(gone).toBeInstanceOf(AplApiError);
        expect((gone as AplApiError).status).toBe(404);
        expect((gone as AplApiError).message).toMatch(/not found/i);
    });

    it('ingests events, raw NDJSON, gzip and CSV bodies, and lists fields', async () => {
        await client.datasets.create({ name: 'client-ingest' });
        const s1 = await client.ingest('client-ingest', [
            { _time: '2024-01-01T00:00:00Z', level: 'info', n: 1 },
            { _time: '2024-01-01T00:00:01Z', level: 'error', n: 2 },
        ]);
        expect(s1).toMatchObject({ ingested: 2, failed: 0, failures: [] });
        const s2 = await client.ingest('client-ingest', '{"_time":"2024-01-01T00:00:02Z","level":"warn","n":3}\n', { contentType: 'application/x-ndjson' });
        expect(s2.ingested).toBe(1);
        const s3 = await client.ingest('client-ingest', gzipSync('[{"_time":"2024-01-01T00:00:03Z","level":"info","n":4}]'), {
            contentType: 'application/json',
            contentEncoding: 'gzip',
        });
        expect(s3.ingested).toBe(1);
        const s4 = await client.ingest('client-ingest', 'when;level\n2024-01-01T00:00:04Z;debug\n', {
            contentType: 'text/csv',
            csvDelimiter: ';',
            timestampField: 'when',
            labels: { region: 'eu' },
        });
        expect(s4).toMatchObject({ ingested: 1, failed: 0 });
        async function* chunks() {
            yield Buffer.from('{"_time":"2024-01-01T00:00:05Z","level":"info",');
            yield Buffer.from('"n":6}\n');
        }
        const s5 = await client.ingest('client-ingest', chunks(), { contentType: 'application/x-ndjson' });
        expect(s5.ingested).toBe(1);
        const fields = (await client.fields('client-ingest')).map(f => f.name);
        expect(fields).toEqual(expect.arrayContaining(['_time', 'level', 'n', 'region']));
    });

    it('queries with APL in both formats and with a legacy query', async () => {
        const res = await client.query("['client-ingest'] | summarize c = count() by level | sort by level asc", {
            startTime: '2023-12-31T00:00:00Z',
            endTime: new Date('2024-01-02T00:00:00Z'),
        });
        expect(res.format).toBe('tabular');
        expect(tableRows(res.tables[0])).toEqual([
            { level: 'debug', c: 1 },
            { level: 'error', c: 1 },
            { level: 'info', c: 3 },
            { level: 'warn', c: 1 },
        ]);
        const legacy = await client.query("['client-ingest'] | take 2", { format: 'legacy' });
        expect(legacy.matches).toHaveLength(2);
        expect(legacy.buckets).toEqual({ series: [], totals: [] });
        const lq = await client.queryLegacy('client-ingest', {
            startTime: '2023-12-31T00:00:00Z',
            endTime: '2024-01-02T00:00:00Z',
            filter: { op: '==', field: 'level', value: 'info' },
        });
        expect(lq.matches).toHaveLength(3);
        expect(lq.matches.every(m => m.data.level === 'info')).toBe(true);
    });

    it("queryErrorLocation: ['client-ingest'] ⏎ | where nosuch == 1 → line 2, column 9", async () => {
        const e = await client.query("['client-ingest']\n| where nosuch == 1").catch((x: unknown) => x);
        expect(queryErrorLocation(e)).toEqual({ line: 2, column: 9, message: expect.stringMatching(/nosuch/) });
        const fromMessage = new AplApiError(400, 'invalid query: bad (line 3, column 4)');
        expect(queryErrorLocation(fromMessage)).toEqual({ line: 3, column: 4, message: 'invalid query: bad' });
        expect(queryErrorLocation(new AplApiError(401, 'forbidden'))).toBeUndefined();
    });

    it('reports errors as AplApiError', async () => {
        const bad = (await client.query("['client-ingest'] | wher x").catch((e: unknown) => e)) as AplApiError;
        expect(bad).toBeInstanceOf(AplApiError);
        expect(bad.status).toBe(400);
        expect(bad.message).toMatch(/syntax/);
        expect(bad.method).toBe('POST');
        const unauth = (await new AplClient({ url: service.url, token: 'xaat-wrong' }).datasets.list().catch((e: unknown) => e)) as AplApiError;
        expect(unauth.status).toBe(401);
        expect(unauth.isUnauthenticated).toBe(true);
        const missing = (await client.ingest('no-such-dataset', [{ a: 1 }]).catch((e: unknown) => e)) as AplApiError;
        expect(missing.status).toBe(404);
        const down = (await new AplClient({ url: 'http://127.0.0.1:9', token: TOKEN }).user().catch((e: unknown) => e)) as AplApiError;
        expect(down).toBeInstanceOf(AplApiError);
        expect(down.status).toBe(0);
        expect(down.isNetworkError).toBe(true);
    });

    describe('paging', () => {
        const N = 25;
        beforeAll(async () => {
            await client.datasets.create({ name: 'client-pages' });
            // 25 events over 10 distinct timestamps: ties straddle page boundaries
            const events = Array.from({ length: N }, (_, i) => ({ _time: new Date(Date.UTC(2024, 0, 1, 0, 0, Math.floor(i / 3))).toISOString(), i }));
            await client.ingest('client-pages', events);
        });

        it('pages by cursor, newest first, every row exactly once', async () => {
            const { rows, pages } = await collect(client.pagesByCursor("['client-pages']", { pageSize: 4 }));
            expect(rows).toHaveLength(N);
            expect(new Set(rows.map(r => r.i)).size).toBe(N);
            expect(pages).toBe(7);
            const times = rows.map(r => String(r._time));
            expect([...times].sort().reverse()).toEqual(times);
        });

        it('pages by cursor in ascending order', async () => {
            const { rows } = await collect(client.pagesByCursor("['client-pages']", { pageSize: 5, order: 'asc' }));
            expect(rows).toHaveLength(N);
            expect(new Set(rows.map(r => r.i)).size).toBe(N);
            const times = rows.map(r => String(r._time));
            expect([...times].sort()).toEqual(times);
        });

        it('pages by time in both orders without losing or repeating tied rows', async () => {
            for (const order of ['desc', 'asc'] as const) {
                const { rows } = await collect(
                    client.pagesByTime("['client-pages']", { pageSize: 4, order, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' }),
                );
                expect(rows.map(r => r.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: N }, (_, i) => i));
            }
        });

        it('pages by time through a run of equal timestamps longer than a page', async () => {
            await client.datasets.create({ name: 'client-ties' });
            await client.ingest('client-ties', Array.from({ length: 7 }, (_, i) => ({ _time: '2024-01-01T00:00:00Z', i })));
            const { rows } = await collect(client.pagesByTime("['client-ties']", { pageSize: 3, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' }));
            expect(rows.map(r => r.i).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
        });

        // 60,000 rows at one `_time` (and a few around it): a run of ties longer than the service's
        // 50,000-row cap. Paging by time alone lost the last 10,000 (issue 26).
        it("['client-many-ties'] paged by time in both orders: every row exactly once", async () => {
            await client.datasets.create({ name: 'client-many-ties' });
            const TIES = 60_000;
            const events = [
                ...Array.from({ length: 3 }, (_, i) => ({ _time: '2024-01-01T00:00:00Z', i })),
                ...Array.from({ length: TIES }, (_, i) => ({ _time: '2024-01-01T00:00:01Z', i: 3 + i })),
                ...Array.from({ length: 4 }, (_, i) => ({ _time: '2024-01-01T00:00:02Z', i: 3 + TIES + i })),
            ];
            await client.ingest('client-many-ties', events);
            for (const order of ['desc', 'asc'] as const) {
                const { rows, pages } = await collect(
                    client.pagesByTime("['client-many-ties'] | project _time, i", { pageSize: 7000, order, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' }),
                );
                const seen = new Uint8Array(events.length);
                for (const r of rows) seen[Number(r.i)]++;
                expect({ order, rows: rows.length, repeated: seen.filter(c => c > 1).length }).toEqual({ order, rows: events.length, repeated: 0 });
                expect(pages).toBe(Math.ceil(events.length / 7000));
                expect(rows.every(r => Object.keys(r).join() === '_time,i')).toBe(true);
                const times = rows.map(r => String(r._time));
                expect(times).toEqual(order === 'asc' ? [...times].sort() : [...times].sort().reverse());
            }
        });

        // Rows that are not events have no row id (no `_cursor`): ties fall back to skipping the rows already read.
        it("['client-pages'] | summarize count() by _time, i paged by time (no row ids): every row exactly once", async () => {
            for (const order of ['desc', 'asc'] as const) {
                const { rows } = await collect(
                    client.pagesByTime("['client-pages'] | summarize count() by _time, i", { pageSize: 4, order, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' }),
                );
                expect(rows.map(r => r.i).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: N }, (_, i) => i));
            }
        });

        it('asks for the _cursor column with includeCursorField, and pages from one of its values', async () => {
            const q = "['client-pages'] | sort by _time desc | project i";
            const plain = await client.query(q);
            expect(plain.tables[0].fields.map(f => f.name)).toEqual(['i']);
            const res = await client.query(q, { includeCursorField: true });
            expect(res.tables[0].fields).toEqual([expect.objectContaining({ name: 'i' }), { name: '_cursor', type: 'string' }]);
            const all = tableRows(res.tables[0]);
            const page = await client.query(q, { includeCursorField: true, cursor: String(all[10]._cursor), includeCursor: true });
            expect(tableRows(page.tables[0])).toEqual(all.slice(10));
        });

        for (const kind of ['cursor', 'time'] as const) {
            it(`fetchPage by ${kind}: a page fetched again from its stored anchor has the same rows`, async () => {
                const options = { pageSize: 4, startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
                const anchors: PageAnchor[] = [];
                const pages: unknown[][] = [];
                let anchor: PageAnchor | undefined = firstAnchor(kind, options);
                while (anchor) {
                    anchors.push(anchor);
                    const step = await fetchPage(client, "['client-pages']", anchor, options);
                    pages.push(tableRows(step.table).map(r => r.i));
                    anchor = step.next;
                }
                expect(pages.flat().sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: N }, (_, i) => i));
                expect(pages.slice(0, -1).every(p => p.length === 4)).toBe(true);
                const again = await fetchPage(client, "['client-pages']", anchors[3], options);
                expect(tableRows(again.table).map(r => r.i)).toEqual(pages[3]);
            });
        }

        it('stops after maxPages', async () => {
            const { pages } = await collect(client.pagesByCursor("['client-pages']", { pageSize: 2, maxPages: 3 }));
            expect(pages).toBe(3);
        });
    });
});
