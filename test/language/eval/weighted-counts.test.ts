/**
 * Parts over value counts (language/eval/weighted-counts.ts): which parts may run over a block's
 * values and their rows, and what such a part answers. The block store is the edge here: a
 * ColdAccess whose blocks cannot be read, so a part that reads one fails. The engine-level
 * comparison with the same rows in memory is in cold-blocks.test.ts ("a count from the block headers").
 */
import { describe, expect, it } from 'vitest';
import type * as ast from '../../../language/generated/ast.js';
import { parseCached, runQuery, type DataAccess } from '../../../language/eval/query.js';
import { planPartition, type PartitionPlan } from '../../../language/eval/parallel.js';
import { DatasetStore } from '../../../language/eval/tables.js';
import { countedSources, runsOnValueCounts } from '../../../language/eval/weighted-counts.js';
import type { ColdAccess, ColdBlock, ValueCounts } from '../../../language/eval/cold-blocks.js';

function planOf(apl: string): { plan: PartitionPlan; ops: readonly ast.TabularOperator[] } {
    const model = parseCached(apl).model;
    const plan = planPartition(model, () => true, 'blocks');
    if (!plan) throw new Error(`no plan for ${apl}`);
    return { plan, ops: ((model.statements[0] as ast.QueryStatement).body as ast.Pipeline).operators };
}

describe('runsOnValueCounts', () => {
    for (const apl of [
        "['d'] | where status == '500' | count",
        "['d'] | summarize count() by status",
        "['d'] | where status != '200' | where isnotempty(status) | summarize c = count(), ci = countif(status startswith '5'), d = dcount(status), mx = max(status), mn = minif(status, status != '') by status",
        "['d'] | where _time > ago(1h) | summarize count() by status",
        "['d'] | summarize (count()) by s = tolower(status)",
    ]) {
        it(`${apl} runs over value counts`, () => {
            const { plan, ops } = planOf(apl);
            expect(runsOnValueCounts(plan, ops)).toBe(true);
        });
    }
    for (const apl of [
        // sum and avg would have to multiply by the weights; percentile would have to repeat values.
        "['d'] | summarize sum(n) by status",
        "['d'] | summarize avg(n)",
        // A step other than where may read how many rows there are (or make values that differ per row).
        "['d'] | extend s = status | summarize count() by s",
        "['d'] | project status | count",
        // rand() draws a number per row.
        "['d'] | where rand() < 0.5 | count",
        "['d'] | summarize countif(rand() < 0.5) by status",
        "['d'] | summarize count() by status, r = rand(2)",
        // top is not a count or a summarize.
        "['d'] | top 3 by status",
    ]) {
        it(`${apl} does not run over value counts`, () => {
            const model = parseCached(apl).model;
            const plan = planPartition(model, () => true, 'blocks');
            if (!plan) return expect(plan).toBeUndefined();
            const { ops } = planOf(apl);
            expect(runsOnValueCounts(plan, ops)).toBe(false);
        });
    }
});

/** A dataset of one block on disk that cannot be read, whose status field has these counts, and no rows in memory. */
function unreadable(counts: ValueCounts | undefined): DataAccess {
    const rows = counts ? counts.rows.reduce((a, b) => a + b, 0) : 100;
    const block: ColdBlock = { id: 'b0', rows, minTime: 1n, maxTime: 2n, fields: [{ name: 'status', type: 'string', axiomType: 'string' }] };
    const cannot = (): never => {
        throw new Error('the block was read');
    };
    const access: ColdAccess = {
        blocks: [block],
        fields: block.fields,
        load: cannot,
        loadRows: cannot,
        loadCounted: cannot,
        rowsUnread: b => b.rows,
        valueCounts: () => counts,
        capacity: 1 << 20,
    };
    const hot = new DatasetStore('d').snapshot();
    return { snapshot: name => (name === 'd' ? hot : undefined), datasetNames: () => ['d'], cold: () => access };
}

const RUN = { now: 10n, maxLimit: 1000, defaultLimit: 1000 };

function part(apl: string, data: DataAccess) {
    const { plan } = planOf(apl);
    return runQuery(apl, data, { ...RUN, partial: { plan, part: { index: 0, count: 1 }, coldSource: 0 } });
}

describe('a part over value counts', () => {
    const counts: ValueCounts = { field: 'status', values: ['200', '500', '404', null], rows: [60, 25, 5, 10] };

    it("['d'] | summarize c = count(), e = countif(status startswith '5'), d = dcount(status) by status adds each value's rows", () => {
        const run = part("['d'] | summarize c = count(), e = countif(status startswith '5'), d = dcount(status) by status", unreadable(counts));
        const p = run.partial!;
        if (p.kind !== 'summarize') throw new Error(p.kind);
        expect(p.groups.map(g => g.slice(0, 3))).toEqual([['200', 60, 0], ['500', 25, 25], ['404', 5, 0], [null, 10, 0]]);
        expect(run.stats.rowsExamined).toBe(100);
    });

    it("['d'] | where status != '200' | count adds the rows of the values it keeps", () => {
        const p = part("['d'] | where status != '200' | count", unreadable(counts)).partial!;
        // A null string is the empty string to a comparison: it is not '200'.
        expect(p).toMatchObject({ kind: 'count', count: 25 + 5 + 10 });
    });

    it("['d'] | where isnull(status) | summarize count() counts the rows without the field", () => {
        const p = part("['d'] | where isnull(status) | summarize count()", unreadable(counts)).partial!;
        if (p.kind !== 'summarize') throw new Error(p.kind);
        expect(p.groups).toEqual([[10]]);
    });

    it("['d'] | where status == 'nope' | summarize count() by status has no groups", () => {
        const p = part("['d'] | where status == 'nope' | summarize count() by status", unreadable(counts)).partial!;
        if (p.kind !== 'summarize') throw new Error(p.kind);
        expect(p.groups).toEqual([]);
    });

    it("['d'] | summarize sum(strlen(status)) by status reads the block", () => {
        expect(() => part("['d'] | summarize sum(strlen(status)) by status", unreadable(counts))).toThrow(/the block was read/);
    });

    it("['d'] | summarize count() by status reads the block when its header has no counts of the field", () => {
        expect(() => part("['d'] | summarize count() by status", unreadable(undefined))).toThrow(/the block was read/);
    });
});

describe('blocks over their value counts together', () => {
    const block = (id: string, minTime: bigint): ColdBlock => ({ id, rows: 100, minTime, maxTime: minTime + 10n, fields: [{ name: 'status', type: 'string', axiomType: 'string' }] });
    const blocks = [block('b0', 10n), block('b1', 30n), block('b2', 50n), block('b3', 70n)];
    const counts: Record<string, ValueCounts | undefined> = {
        b0: { field: 'status', values: ['200', '500'], rows: [90, 10] },
        b1: { field: 'status', values: ['500', null], rows: [60, 40] },
        b2: undefined, // no counts of the field: read alone
        b3: { field: 'other', values: ['x'], rows: [100] }, // another field: alone
    };
    const access = (gone: ReadonlySet<string> = new Set()): ColdAccess => ({
        blocks,
        fields: blocks[0].fields,
        load: () => undefined,
        loadRows: () => undefined,
        loadCounted: () => undefined,
        rowsUnread: b => (gone.has(b.id) ? 0 : b.rows),
        valueCounts: b => counts[b.id],
        capacity: 1 << 20,
    });

    it("['d'] | summarize count() by status sums the counts of the blocks it can take, per value", () => {
        const { plan, ops } = planOf("['d'] | summarize count() by status");
        const got = countedSources(plan, ops, access(), blocks, [0, 1, 2, 3], {})!;
        expect(got.taken.map(t => t.source)).toEqual([0, 1]);
        expect(new Map(got.counts.values.map((v, i) => [v, got.counts.rows[i]]))).toEqual(new Map<string | null, number>([['200', 90], ['500', 70], [null, 40]]));
        // A range that cuts block 0 leaves it to be read: one block left is no reason to run together.
        expect(countedSources(plan, ops, access(), blocks, [0, 1, 2, 3], { startTime: 15n })).toBeUndefined();
        // A page after a cursor reads rows, not counts.
        expect(countedSources(plan, ops, access(), blocks, [0, 1, 2, 3], { cursor: '0d3wiw5pcxq-foo' })).toBeUndefined();
        // A block gone from disk is taken, with no rows.
        expect(countedSources(plan, ops, access(new Set(['b2'])), blocks, [1, 2], {})!.taken).toEqual([{ source: 1, block: blocks[1], rows: 100 }, { source: 2, block: blocks[2], rows: 0 }]);
    });

    it("['d'] | summarize sum(n) by status takes no block", () => {
        const { plan, ops } = planOf("['d'] | summarize sum(n) by status");
        expect(countedSources(plan, ops, access(), blocks, [0, 1], {})).toBeUndefined();
    });

    it("['d'] | where status != '200' | summarize count() by status over the blocks taken together counts each block's rows and zones", () => {
        const apl = "['d'] | where status != '200' | summarize count() by status";
        const { plan, ops } = planOf(apl);
        const counted = countedSources(plan, ops, access(), blocks, [0, 1], {})!;
        const data: DataAccess = { ...unreadable(undefined), cold: () => access() };
        const run = runQuery(apl, data, { ...RUN, partial: { plan, part: { index: 0, count: 1 }, counted } });
        const p = run.partial!;
        if (p.kind !== 'summarize') throw new Error(p.kind);
        expect(p.groups).toEqual([['500', 70], [null, 40]]);
        expect(run.stats.rowsExamined).toBe(200);
        // One zone a block, numbered apart (engine.ts counts blocks examined by these).
        expect(p.stats.blocks).toHaveLength(2);
    });
});
