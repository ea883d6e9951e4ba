import { describe, expect, it } from 'vitest';
import { createEngine, parseCursor } from '../../../language/eval/engine.js';
import { rows } from './helpers.js';

const ROW_ID = /^[0-9a-z]{13}-[0-9a-f]{16}-[0-9a-f]{8}$/;

function tiedEngine() {
    const engine = createEngine({ clock: () => Date.parse('2024-06-01T00:00:00Z') });
    // 30 events, 3 per distinct _time (ties), ingested in two batches.
    const events = Array.from({ length: 30 }, (_, i) => ({ _time: new Date(Date.UTC(2024, 4, 1, 0, Math.floor(i / 3))).toISOString(), seq: i }));
    engine.ingest('ev', events.slice(0, 14));
    engine.ingest('ev', events.slice(14));
    return engine;
}

describe('row ids and cursor paging', () => {
    it("['ev'] (row id format: base36 ns padded to 13, 16-hex batch, 8-hex index)", async () => {
        const engine = tiedEngine();
        const r = await engine.queryLegacyFormat("['ev']");
        expect(r.matches).toHaveLength(30);
        for (const m of r.matches) {
            expect(m._rowId).toMatch(ROW_ID);
            const c = parseCursor(m._rowId)!;
            expect(new Date(Number(c.ns / 1_000_000n)).toISOString()).toBe(new Date(m._time).toISOString());
        }
        // Newest first, ties by row id (descending), so ids are strictly decreasing.
        const ids = r.matches.map(m => m._rowId);
        expect([...ids].sort().reverse()).toEqual(ids);
        expect(r.status.minCursor).toBe(ids[ids.length - 1]);
        expect(r.status.maxCursor).toBe(ids[0]);
    });

    it("['ev'] | project seq (descending pages via minCursor: every row exactly once)", async () => {
        const engine = tiedEngine();
        const seen: number[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
            const r = await engine.query("['ev'] | project seq", { limit: 7, cursor });
            const got = r.tables[0].columns[0] as number[];
            seen.push(...got);
            if (got.length < 7) break;
            expect(r.status.minCursor).toBeDefined();
            cursor = r.status.minCursor;
        }
        expect(seen).toHaveLength(30);
        expect(new Set(seen).size).toBe(30);
        expect(seen).toEqual([...seen].sort((a, b) => b - a));
    });

    it("['ev'] | sort by _time asc | project seq (ascending pages via maxCursor)", async () => {
        const engine = tiedEngine();
        const seen: number[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
            const r = await engine.query("['ev'] | sort by _time asc | project seq", { limit: 4, cursor });
            const got = r.tables[0].columns[0] as number[];
            seen.push(...got);
            if (got.length < 4) break;
            cursor = r.status.maxCursor;
        }
        expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
    });

    it("['ev'] | sort by _time desc | take 1000 (includeCursor keeps the cursor row)", async () => {
        const engine = tiedEngine();
        const all = await engine.queryLegacyFormat("['ev'] | sort by _time desc | take 1000");
        const cursor = all.matches[10]._rowId;
        const incl = await engine.queryLegacyFormat("['ev'] | sort by _time desc | take 1000", { cursor, includeCursor: true });
        const excl = await engine.queryLegacyFormat("['ev'] | sort by _time desc | take 1000", { cursor });
        expect(incl.matches).toHaveLength(20);
        expect(incl.matches[0]._rowId).toBe(cursor);
        expect(excl.matches).toHaveLength(19);
    });

    it("['ev'] | count (time range is [startTime, endTime))", async () => {
        const engine = tiedEngine();
        const q = "['ev'] | count";
        expect(await rows(engine, q, { startTime: '2024-05-01T00:01:00Z', endTime: '2024-05-01T00:03:00Z' })).toEqual([{ count: 6 }]);
        expect(await rows(engine, q, { startTime: new Date('2024-05-01T00:09:00Z') })).toEqual([{ count: 3 }]);
        expect(await rows(engine, q, { endTime: '2024-05-01T00:00:00Z' })).toEqual([{ count: 0 }]);
        expect(await rows(engine, q, { startTime: 'now-1d', now: '2024-05-01T12:00:00Z' })).toEqual([{ count: 30 }]);
    });

    it("['ev'] (default limit 1000, request limit, query take, server maximum)", async () => {
        const engine = createEngine({ maxLimit: 1500 });
        engine.ingest('big', Array.from({ length: 2000 }, (_, i) => ({ _time: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(), i })));
        const len = async (q: string, limit?: number) => (await engine.query(q, { limit })).tables[0].columns[0].length;
        expect(await len("['big']")).toBe(1000);
        expect(await len("['big']", 10)).toBe(10);
        expect(await len("['big'] | take 5")).toBe(5);
        expect(await len("['big'] | take 5", 3)).toBe(3);
        expect(await len("['big'] | take 1800")).toBe(1500);
        const r = await engine.query("['big']");
        expect((r.status.messages ?? []).map(m => m.code)).toContain('default_limit_warning');
    });

    it("['ev'] | where seq < 3 (a snapshot: ingest after the query starts is not seen)", async () => {
        const engine = tiedEngine();
        const snap = engine.snapshot('ev')!;
        engine.ingest('ev', [{ _time: '2024-05-01T00:00:00Z', seq: 99 }]);
        expect(snap.rows).toBe(30);
        expect(await rows(engine, "['ev'] | count")).toEqual([{ count: 31 }]);
    });
});

describe('ingest', () => {
    it('nested objects are flattened; _time from _time; types widen', async () => {
        const engine = createEngine({ clock: () => Date.parse('2024-06-01T00:00:00Z') });
        const res = engine.ingest('t', [
            { _time: 1714521600, a: { b: { c: 1 } }, v: 1 },
            { timestamp: '2024-05-01T00:00:00Z', v: 2.5 },
            { _time: '2024-05-01T00:00:01.5+02:00', v: 'x', arr: [1, 2] },
        ]);
        expect(res).toEqual({ ingested: 3, failed: 0, failures: [] });
        expect(engine.fields('t')).toEqual([
            { name: '_time', type: 'datetime' },
            { name: '_sysTime', type: 'datetime' },
            { name: 'a.b.c', type: 'integer' },
            { name: 'arr', type: 'array' },
            { name: 'timestamp', type: 'string' },
            { name: 'v', type: 'float|integer|string' },
        ]);
        const r = await rows(engine, "['t'] | sort by _time asc | project _time, v");
        expect(r).toEqual([
            { _time: '2024-04-30T22:00:01.5Z', v: 'x' },
            { _time: '2024-05-01T00:00:00Z', v: 1 },
            { _time: '2024-06-01T00:00:00Z', v: 2.5 },
        ]);
    });

    it('timestampFallbacks picks `timestamp`/`time` when asked', async () => {
        const engine = createEngine({ timestampFallbacks: ['timestamp', 'time'] });
        engine.ingest('t', [{ timestamp: '2024-05-01T00:00:00Z' }]);
        expect(await rows(engine, "['t'] | project _time")).toEqual([{ _time: '2024-05-01T00:00:00Z' }]);
    });

    it('ingestFlat keeps the given _rowId', async () => {
        const engine = createEngine();
        const id = '0d3fzkox77jls-075072aeef001913-00008ab9';
        engine.ingestFlat('t', [{ _time: '2024-08-14T22:26:25Z', _sysTime: '2024-08-14T22:26:26Z', _rowId: id, 'geo.city': 'X' }]);
        const r = await engine.queryLegacyFormat("['t']");
        expect(r.matches[0]._rowId).toBe(id);
        expect(r.matches[0].data).toEqual({ 'geo.city': 'X' });
        expect(r.matches[0]._sysTime).toBe('2024-08-14T22:26:26Z');
    });
});
