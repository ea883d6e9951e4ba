/**
 * The order of rows that share a `_time`. Ties are broken by the row id (API.md §10.1: ids sort as
 * strings in (_time, batch, row) order, and a batch's rows get rising ids in the order they were
 * sent). That is the only tie order under which Axiom's cursor recipe (desc: next page from
 * `minCursor`, asc: from `maxCursor`, the cursor row excluded) is exact, so:
 * - ascending results list tied rows in ingestion order;
 * - descending results (the default) list them newest-ingested first, the mirror image.
 * These tests pin that for every way a query can reach its final `sort by _time`, and that paging
 * stays exact when earlier operators (an earlier sort, a union) shuffled the tied rows.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../language/eval/engine.js';
import { rows } from './helpers.js';

const T = '2024-05-01T00:00:00Z';

/** 7 events at one `_time` in two batches (seq 1-4, then 5-7), `b` falls as `seq` rises, plus one older and one newer event. */
function tiesEngine(): Engine {
    const engine = createEngine({ clock: () => Date.parse('2024-06-01T00:00:00Z') });
    engine.ingest('ties', [1, 2, 3, 4].map(seq => ({ _time: T, seq, b: 10 - seq })));
    engine.ingest('ties', [
        ...[5, 6, 7].map(seq => ({ _time: T, seq, b: 10 - seq })),
        { _time: '2024-04-30T00:00:00Z', seq: 0, b: 99 },
        { _time: '2024-05-02T00:00:00Z', seq: 8, b: 99 },
    ]);
    return engine;
}

const seqs = async (engine: Engine, apl: string) => (await rows(engine, apl)).map(r => r.seq);

/** Pages through `apl` by cursor (limit 3), the way the docs describe; returns every `seq` seen. */
async function pageAll(engine: Engine, apl: string, order: 'asc' | 'desc'): Promise<unknown[]> {
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
        const r = await engine.query(apl, { limit: 3, cursor });
        const t = r.tables[0];
        const got = t.columns[t.fields.findIndex(f => f.name === 'seq')];
        seen.push(...got);
        const next = order === 'desc' ? r.status.minCursor : r.status.maxCursor;
        if (got.length < 3 || !next) break;
        cursor = next;
    }
    return seen;
}

const DESC = [8, 7, 6, 5, 4, 3, 2, 1, 0];
const ASC = [0, 1, 2, 3, 4, 5, 6, 7, 8];

describe('rows with equal _time', () => {
    it("['ties'] (default order: newest first; tied rows newest-ingested first)", async () => {
        expect(await seqs(tiesEngine(), "['ties']")).toEqual(DESC);
    });

    it("['ties'] | sort by _time asc (tied rows in ingestion order)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | sort by _time asc")).toEqual(ASC);
    });

    it("['ties'] | where seq >= 0 | project seq, _time | take 100 (row operators keep the order)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | where seq >= 0 | project seq, _time | take 100")).toEqual(DESC);
    });

    it("['ties'] | sort by b asc | sort by _time desc (ties by row id, not by the earlier sort)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | sort by b asc | sort by _time desc")).toEqual(DESC);
    });

    it("['ties'] | sort by b desc | sort by _time asc (ties by row id, not by the earlier sort)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | sort by b desc | sort by _time asc")).toEqual(ASC);
    });

    it("['ties'] | sort by b asc | top 4 by _time asc (top breaks ties by row id too)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | sort by b asc | top 4 by _time asc")).toEqual([0, 1, 2, 3]);
    });

    it("['ties'] | sort by _time desc, b asc (a later key still decides before the row id)", async () => {
        expect(await seqs(tiesEngine(), "['ties'] | sort by _time desc, b asc")).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
        expect(await seqs(tiesEngine(), "['ties'] | sort by _time desc, b desc")).toEqual([8, 1, 2, 3, 4, 5, 6, 7, 0]);
    });

    it("union (['ties'] | where seq < 4), (['ties'] | where seq >= 4) | sort by _time asc", async () => {
        expect(await seqs(tiesEngine(), "union (['ties'] | where seq < 4), (['ties'] | where seq >= 4) | sort by _time asc")).toEqual(ASC);
    });
});

describe('cursor paging over a run of equal _time longer than a page', () => {
    for (const [apl, order, want] of [
        ["['ties'] | project seq", 'desc', DESC],
        ["['ties'] | sort by _time asc | project seq", 'asc', ASC],
        ["['ties'] | sort by b asc | sort by _time desc | project seq", 'desc', DESC],
        ["['ties'] | sort by b desc | sort by _time asc | project seq", 'asc', ASC],
        ["['ties'] | sort by b asc | sort by _time asc | project seq", 'asc', ASC],
        ["['ties'] | sort by b desc | sort by _time desc | project seq", 'desc', DESC],
    ] as const) {
        it(`${apl} (pages of 3 by ${order === 'desc' ? 'minCursor' : 'maxCursor'}: every row once, in order)`, async () => {
            expect(await pageAll(tiesEngine(), apl, order)).toEqual(want);
        });
    }
});
