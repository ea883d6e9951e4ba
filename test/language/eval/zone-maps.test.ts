/**
 * Block pruning (language/eval/zone-maps.ts): a pruned query answers exactly as a full scan, and
 * reads only the blocks that can match (`status.blocksExamined`). Blocks of 1,000 rows here.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine, type QueryOptions } from '../../../language/eval/engine.js';

const ZONE = 1000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const NOW = new Date(T0 + 30 * 86_400_000).toISOString();
const STEP = 10 * 60_000; // 30 days of an event every 10 minutes: 4,320 events, 5 blocks

function event(i: number): Record<string, unknown> {
    return {
        _time: new Date(T0 + i * STEP).toISOString(),
        id: `id-${String(i).padStart(5, '0')}`,
        status: ['200', '404', '500'][i % 3],
        n: i % 50 === 0 ? null : i,
        r: i % 97 === 0 ? Number.NaN : (i % 13) / 10,
    };
}

function engines(order: number[]): { pruned: Engine; full: Engine } {
    const pruned = createEngine({ zoneRows: ZONE, clock: () => Date.parse(NOW) });
    const full = createEngine({ zoneRows: ZONE, pruneBlocks: false, clock: () => Date.parse(NOW) });
    const events = order.map(event);
    pruned.ingest('logs', events);
    full.ingest('logs', events);
    return { pruned, full };
}

const IN_ORDER = Array.from({ length: 4320 }, (_, i) => i);
/** The same events ingested out of time order. */
const SHUFFLED = IN_ORDER.map(i => (i * 2311) % 4320);

const QUERIES = [
    "['logs'] | where _time > ago(1h)",
    "['logs'] | where _time >= datetime(2026-10-12T00:00:00Z) and _time < datetime(2026-10-12T06:00:00Z) | count",
    "['logs'] | where _time == datetime(2026-10-20T10:10:00Z)",
    "['logs'] | where id == 'id-04000'",
    "['logs'] | where id == 'nope' | count",
    "['logs'] | where n > 4000 | summarize count(), min(n), max(n)",
    "['logs'] | where 1500 >= n | count",
    "['logs'] | where n < 10 and status == '200'",
    "['logs'] | where n <= 999.5 | count",
    "['logs'] | where r > 1.1 | count",
    "['logs'] | where status == '500' | count",
    "['logs'] | where (n > 2000) and (n < 2100) | where status != '404' | take 200",
    "['logs'] | where n > 4000 or n < 5 | count",
    "let lim = 4300; ['logs'] | where n > lim | count",
    "['logs'] | extend n = 1 | where n > 4000 | count",
];

async function tables(e: Engine, apl: string, opts: QueryOptions = {}): Promise<unknown> {
    const r = await e.query(apl, { now: NOW, limit: 10_000, ...opts });
    return { tables: r.tables, matched: r.status.rowsMatched };
}

describe.each([
    ['in time order', IN_ORDER],
    ['out of time order', SHUFFLED],
])('events ingested %s: a pruned query answers as a full scan', (_label, order) => {
    const { pruned, full } = engines(order);
    for (const apl of QUERIES) {
        it(apl, async () => {
            expect(await tables(pruned, apl)).toEqual(await tables(full, apl));
        });
    }
});

describe('only the blocks that can match are read', () => {
    const { pruned, full } = engines(IN_ORDER);
    const blocks = async (e: Engine, apl: string, opts: QueryOptions = {}) => (await e.query(apl, { now: NOW, ...opts })).status.blocksExamined;

    it("['logs'] | where _time > ago(1h): the last hour of 30 days is in the last block", async () => {
        expect(await blocks(pruned, "['logs'] | where _time > ago(1h)")).toBe(1);
        expect(await blocks(full, "['logs'] | where _time > ago(1h)")).toBe(5);
    });

    it("['logs'] with the request's time range of the last hour", async () => {
        expect(await blocks(full, "['logs']", { startTime: 'now-1h', endTime: 'now' })).toBe(1);
    });

    it("['logs'] | where id == 'id-02500': one block of ids", async () => {
        expect(await blocks(pruned, "['logs'] | where id == 'id-02500'")).toBe(1);
    });

    it("['logs'] | where id == 'nope': no block", async () => {
        expect(await blocks(pruned, "['logs'] | where id == 'nope'")).toBe(0);
    });

    it("['logs'] | where status == '500': every block", async () => {
        expect(await blocks(pruned, "['logs'] | where status == '500'")).toBe(5);
    });

    it("['logs'] | extend n = 1 | where n > 4000: a computed column prunes nothing", async () => {
        expect(await blocks(pruned, "['logs'] | extend n = 1 | where n > 4000")).toBe(5);
    });

    it("['logs'] | where id == 'id-02500': the four blocks pruning ruled out are counted as skipped", async () => {
        const status = (await pruned.query("['logs'] | where id == 'id-02500'", { now: NOW })).status;
        expect([status.blocksExamined, status.blocksSkipped]).toEqual([1, 4]);
        // Nothing pruned, nothing said.
        expect((await pruned.query("['logs'] | where status == '500'", { now: NOW })).status.blocksSkipped).toBeUndefined();
    });

    it('blocks measured once stay right as rows are appended', async () => {
        const e = createEngine({ zoneRows: ZONE, clock: () => Date.parse(NOW) });
        e.ingest('logs', IN_ORDER.slice(0, 2500).map(event));
        expect((await e.query("['logs'] | where n >= 2400 | count", { now: NOW })).tables[0].columns[0]).toEqual([98]); // 2400..2499 less the nulls at 2400 and 2450
        // More rows, and a long column widened to real: new blocks are measured, old ones kept.
        e.ingest('logs', IN_ORDER.slice(2500).map(i => ({ ...event(i), n: i + 0.5 })));
        const r = await e.query("['logs'] | where n >= 2400 | count", { now: NOW });
        expect(r.tables[0].columns[0]).toEqual([4320 - 2400 - 2]); // the appended rows have no nulls
    });
});

describe('the growing last block', () => {
    it("['logs'] | where n > 4000 | count, as rows arrive in the last block (its range is measured again past the rows measured before)", async () => {
        const { pruned, full } = engines(IN_ORDER.slice(0, 1500));
        const q = "['logs'] | where n > 4000 | count";
        expect(await tables(pruned, q)).toEqual(await tables(full, q));
        let done = 1500;
        for (const upto of [1700, 1999, 2000, 2500]) {
            // Later events with n above 4000: a stale range of the last block would prune them away.
            const more = IN_ORDER.slice(done, upto).map(i => event(i + 3000));
            done = upto;
            pruned.ingest('logs', more);
            full.ingest('logs', more);
            expect(await tables(pruned, q), `after ${upto} rows`).toEqual(await tables(full, q));
        }
    });
});
