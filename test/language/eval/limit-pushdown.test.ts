/**
 * Limit pushdown (eval/limit-pushdown.ts): a query that keeps its first N rows stops once it has
 * them, and returns exactly the first N rows of the whole evaluation, in its order. The reference
 * is the same pipeline without its `take`, evaluated whole (a page large enough for every row),
 * then cut to N rows. Blocks of 64 rows, so that 3,000 events are many batches.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createEngine, type Engine, type QueryOptions, type TabularResult } from '../../../language/eval/engine.js';

const ROWS = 3000;
const BLOCK = 64;
const NOW = Date.parse('2024-06-02T00:00:00Z');

/** Deterministic events: times with ties and a few out of order, nulls, arrays, `k=v` text. */
function events(): Record<string, unknown>[] {
    let s = 7;
    const rnd = (n: number) => {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        return s % n;
    };
    const methods = ['GET', 'POST', 'PUT', 'DELETE'];
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < ROWS; i++) {
        // Two events a second, every 50th a minute late: equal times and rows out of time order.
        const t = Date.parse('2024-06-01T00:00:00Z') + Math.floor(i / 2) * 1000 - (i % 50 === 0 ? 60_000 : 0);
        out.push({
            _time: new Date(t).toISOString(),
            method: methods[rnd(4)],
            uri: `/api/v${rnd(3)}/items/${rnd(40)}`,
            size: rnd(10) === 0 ? null : rnd(40_000),
            dur: rnd(1000) / 7,
            msg: `user=u${rnd(30)} code=${200 + rnd(4) * 100}`,
            tags: Array.from({ length: rnd(4) }, (_, k) => `t${k}`),
        });
    }
    return out;
}

function engineWith(options: Parameters<typeof createEngine>[0] = {}): Engine {
    const engine = createEngine({ clock: () => NOW, zoneRows: BLOCK, ...options });
    const all = events();
    // Two ingests: row ids from two batches.
    engine.ingest('logs', all.slice(0, 1700));
    engine.ingest('logs', all.slice(1700));
    return engine;
}

type Row = Record<string, unknown>;

function rowsOf(r: TabularResult): Row[] {
    const t = r.tables[0];
    const n = t.columns[0]?.length ?? 0;
    return Array.from({ length: n }, (_, i) => Object.fromEntries(t.fields.map((f, k) => [f.name, t.columns[k][i]])));
}

const WHOLE: QueryOptions = { limit: 50_000, includeCursorField: true };

let engine: Engine;
beforeAll(() => {
    engine = engineWith();
});

/** The pushed-down query and the whole evaluation of `full`, cut to `n` rows: same fields, same rows (with their cursors). */
async function expectFirstRows(pushed: string, full: string, n: number, opts: QueryOptions = {}): Promise<{ pushed: TabularResult; full: TabularResult }> {
    const p = await engine.query(pushed, { ...WHOLE, ...opts });
    const f = await engine.query(full, { ...WHOLE, ...opts });
    expect(p.tables[0].fields.map(x => x.name)).toEqual(f.tables[0].fields.map(x => x.name));
    expect(rowsOf(p)).toEqual(rowsOf(f).slice(0, n));
    return { pushed: p, full: f };
}

describe('take after row-wise steps stops once it has its rows', () => {
    const q8 = "['logs'] | extend kb = size / 1024 | where kb > 10 | project _time, uri, kb";

    it(`${q8} | take 100`, async () => {
        const { pushed, full } = await expectFirstRows(`${q8} | take 100`, q8, 100);
        // Read: the blocks up to the 100th match, not the whole dataset.
        expect(pushed.status.rowsExamined).toBeLessThan(ROWS / 2);
        expect(pushed.status.blocksExamined).toBeLessThan(full.status.blocksExamined);
        expect(full.status.rowsExamined).toBe(ROWS);
        // Matched: among the rows read.
        expect(pushed.status.rowsMatched).toBeGreaterThanOrEqual(100);
        expect(pushed.status.rowsMatched).toBeLessThan(full.status.rowsMatched);
    });

    it(`${q8} | take 100000 (fewer matches than the limit: every row read, the count exact)`, async () => {
        const { pushed, full } = await expectFirstRows(`${q8} | take 100000`, q8, 100_000);
        expect(pushed.status.rowsExamined).toBe(ROWS);
        expect(pushed.status.rowsMatched).toBe(full.status.rowsMatched);
    });

    it("['logs'] | where uri == 'nope' | take 5 (no match: the fields, no rows)", async () => {
        const r = await expectFirstRows("['logs'] | where uri == 'nope' | take 5", "['logs'] | where uri == 'nope'", 5);
        expect(r.pushed.tables[0].columns.every(c => c.length === 0)).toBe(true);
        expect(r.pushed.status.rowsMatched).toBe(0);
    });

    it("['logs'] | project _time, uri | take 5 (one-to-one steps: every row matches)", async () => {
        const { pushed } = await expectFirstRows("['logs'] | project _time, uri | take 5", "['logs'] | project _time, uri", 5);
        expect(pushed.status.rowsMatched).toBe(ROWS);
    });

    it("['logs'] | mv-expand tags | take 10 (under a row limit the whole mv-expand would pass)", async () => {
        const limited = engineWith({ limits: { maxRows: 1000 } });
        await expect(limited.query("['logs'] | mv-expand tags", WHOLE)).rejects.toMatchObject({ kind: 'limit' });
        const whole = await engine.query("['logs'] | mv-expand tags", { limit: 50_000 });
        expect(rowsOf(await limited.query("['logs'] | mv-expand tags | take 10", { limit: 50_000 }))).toEqual(rowsOf(whole).slice(0, 10));
    });

    it("['logs'] | where method == 'GET' | parse msg with 'user=' user ' code=' code:long | take 7 (ascending scan with a cursor)", async () => {
        const q = "['logs'] | where method == 'GET' | parse msg with 'user=' user ' code=' code:long | sort by _time asc";
        const first = rowsOf(await engine.query(q, WHOLE));
        const cursor = first[20]._cursor as string;
        await expectFirstRows(`${q} | take 7`, q, 7, { cursor });
    });

    it("let t = ['logs'] | where size > 30000 | take 3; t | join kind=inner (['logs'] | take 4000 | where size > 30000 | project uri, size) on uri", async () => {
        // A take inside a let-bound table and a join's right side: the same rows as without the pushdown.
        const q = "let t = ['logs'] | where size > 30000 | take 3; t | join kind=inner (['logs'] | take 4000 | where size > 30000 | project uri, size) on uri";
        const off = engineWith({ zoneRows: 1 << 20 });
        expect(rowsOf(await engine.query(q, { limit: 50_000 }))).toEqual(rowsOf(await off.query(q, { limit: 50_000 })));
    });
});

describe('sort | take runs the top-N before one-to-one steps that leave its keys alone', () => {
    it.each([
        ["['logs'] | extend kb = size / 1024 | sort by size desc | take 3", "['logs'] | extend kb = size / 1024 | sort by size desc", 3],
        ["['logs'] | extend size = size * -1 | sort by size desc | take 3", "['logs'] | extend size = size * -1 | sort by size desc", 3],
        ["['logs'] | project-rename s = size | sort by s asc | take 4", "['logs'] | project-rename s = size | sort by s asc", 4],
        ["['logs'] | parse msg with 'user=' user ' code=' code:long | project _time, user, code | sort by _time desc | take 6", "['logs'] | parse msg with 'user=' user ' code=' code:long | project _time, user, code | sort by _time desc", 6],
        ["['logs'] | sort by _time asc | project _time, uri | extend n = strlen(uri) | take 4", "['logs'] | sort by _time asc | project _time, uri | extend n = strlen(uri)", 4],
        ["['logs'] | where method == 'PUT' | project-away tags | sort by dur desc, _time asc | take 5", "['logs'] | where method == 'PUT' | project-away tags | sort by dur desc, _time asc", 5],
    ] as const)('%s', async (pushed, full, n) => {
        const r = await expectFirstRows(pushed, full, n);
        // Every row the sort saw matched, as before.
        expect(r.pushed.status.rowsMatched).toBe(r.full.status.rowsMatched);
    });
});

describe("a page's one-to-one steps at the end run over the page's rows only", () => {
    const q = "['logs'] | where size > 100 | extend kb = size / 1024 | project _time, kb, msg | parse msg with 'user=' user ' code=' code:long";

    it(`${q} (limit 10)`, async () => {
        const page = await engine.query(q, { limit: 10, includeCursorField: true });
        const whole = await engine.query(q, WHOLE);
        expect(rowsOf(page)).toEqual(rowsOf(whole).slice(0, 10));
        expect(page.status.rowsMatched).toBe(whole.status.rowsMatched);
    });

    it(`${q} (the default limit: its warning, the count of every match)`, async () => {
        const small = engineWith({ defaultLimit: 20 });
        const page = await small.query(q);
        expect(page.tables[0].columns[0]).toHaveLength(20);
        expect(page.status.messages?.map(m => m.code)).toContain('default_limit_warning');
        expect(page.status.rowsMatched).toBe((await engine.query(q, WHOLE)).status.rowsMatched);
    });
});

// ---------------------------------------------------------------------------------------------
// Random pipelines of row-wise steps

interface Col {
    name: string;
    type: 'string' | 'long' | 'real' | 'datetime' | 'dynamic';
}

const BASE: Col[] = [
    { name: '_time', type: 'datetime' },
    { name: 'method', type: 'string' },
    { name: 'uri', type: 'string' },
    { name: 'size', type: 'long' },
    { name: 'dur', type: 'real' },
    { name: 'msg', type: 'string' },
    { name: 'tags', type: 'dynamic' },
];

/** One step, as numbers the builder reads against the columns there are at that point. */
const stepArb = fc.record({ kind: fc.integer({ min: 0, max: 11 }), a: fc.nat(), b: fc.nat(), c: fc.integer({ min: -5, max: 40_000 }) });
type Step = { kind: number; a: number; b: number; c: number };

/** The kinds of step `build` makes one-to-one (no where, parse-where or mv-expand; parse keeps every row). */
const ONE_TO_ONE_KINDS = [1, 2, 3, 4, 5, 6, 7, 8, 11];
const oneToOne = (s: Step): Step => ({ ...s, kind: ONE_TO_ONE_KINDS[s.kind % ONE_TO_ONE_KINDS.length] });

/** APL for `steps` (each valid against the columns before it), and the columns after them; a prefix of steps gives a prefix of the APL. */
function build(steps: readonly Step[]): { apl: string[]; cols: Col[] } {
    let cols = BASE.slice();
    const apl: string[] = [];
    let fresh = 0;
    const pick = (i: number, types?: Col['type'][]) => {
        const c = cols.filter(x => !types || types.includes(x.type));
        return c.length === 0 ? undefined : c[i % c.length];
    };
    const q = (n: string) => `['${n}']`;
    for (const s of steps) {
        const kind = s.kind;
        switch (kind) {
            case 0: {
                const num = pick(s.a, ['long', 'real']);
                const str = pick(s.a, ['string']);
                if (s.b % 3 === 0 && num) apl.push(`where ${q(num.name)} > ${s.c}`);
                else if (s.b % 3 === 1 && str) apl.push(`where ${q(str.name)} contains "${['a', 'e', 'i', '/', '1', 'GET', 'api'][Math.abs(s.c) % 7]}"`);
                else if (cols.length > 0) apl.push(`where isnotnull(${q(pick(s.a)!.name)})`);
                break;
            }
            case 1: {
                const num = pick(s.a, ['long', 'real']);
                const name = `e${fresh++}`;
                if (num) {
                    apl.push(`extend ${name} = ${q(num.name)} * 2 + ${s.c % 7}`);
                    cols = [...cols.filter(c => c.name !== name), { name, type: num.type }];
                }
                break;
            }
            case 2: {
                const str = pick(s.a, ['string']);
                const name = s.b % 4 === 0 && str ? str.name : `s${fresh++}`;
                if (str) {
                    apl.push(`extend ${q(name)} = strcat(${q(str.name)}, "-", ${s.c % 10})`);
                    cols = [...cols.filter(c => c.name !== name), { name, type: 'string' }];
                }
                break;
            }
            case 3: {
                if (cols.length < 2) break;
                const keep = cols.filter((_, i) => ((s.a >> i) & 1) === 1 || i === s.b % cols.length);
                apl.push(`project ${keep.map(c => q(c.name)).join(', ')}`);
                cols = keep;
                break;
            }
            case 4: {
                if (cols.length < 2) break;
                const c = pick(s.a)!;
                apl.push(`project-away ${q(c.name)}`);
                cols = cols.filter(x => x.name !== c.name);
                break;
            }
            case 5: {
                const c = pick(s.a)!;
                const name = `r${fresh++}`;
                apl.push(`project-rename ${name} = ${q(c.name)}`);
                cols = cols.map(x => (x.name === c.name ? { ...x, name } : x));
                break;
            }
            case 6: {
                const c = pick(s.a)!;
                apl.push(`project-reorder ${q(c.name)}`);
                cols = [c, ...cols.filter(x => x !== c)];
                break;
            }
            case 7: {
                const c = pick(s.a)!;
                apl.push(`project-keep ${q(c.name)}`);
                cols = [c];
                break;
            }
            case 8:
            case 9: {
                const str = pick(s.a, ['string']);
                if (!str) break;
                const u = `u${fresh++}`;
                const k = `k${fresh++}`;
                apl.push(`${kind === 8 ? 'parse' : 'parse-where'} ${q(str.name)} with * "=" ${u} " code=" ${k}:long`);
                cols = [...cols, { name: u, type: 'string' }, { name: k, type: 'long' }];
                break;
            }
            case 10: {
                const d = pick(s.a, ['dynamic']);
                if (d) apl.push(`mv-expand ${q(d.name)}`);
                break;
            }
            default: {
                const c = pick(s.a, ['long', 'real']);
                if (c) apl.push(`extend-valid ${q(c.name)} = ${q(c.name)} - ${s.c % 5}`);
            }
        }
    }
    return { apl, cols };
}

describe('random pipelines of row-wise steps: the pushed-down limit gives the first rows of the whole evaluation', () => {
    it('<row-wise steps> | take N', async () => {
        await fc.assert(
            fc.asyncProperty(fc.array(stepArb, { maxLength: 6 }), fc.integer({ min: 0, max: 400 }), async (steps, n) => {
                const { apl } = build(steps);
                const full = ["['logs']", ...apl].join(' | ');
                const { pushed, full: whole } = await expectFirstRows(`${full} | take ${n}`, full, n);
                expect(pushed.status.rowsMatched).toBeGreaterThanOrEqual(pushed.tables[0].columns[0]?.length ?? 0);
                expect(pushed.status.rowsMatched).toBeLessThanOrEqual(whole.status.rowsMatched);
            }),
            { numRuns: 60 },
        );
    });

    it('<row-wise steps> | <one-to-one steps> | sort by <column> | <one-to-one steps> | take N', async () => {
        await fc.assert(
            fc.asyncProperty(
                fc.array(stepArb, { maxLength: 3 }),
                fc.array(stepArb, { maxLength: 3 }),
                fc.array(stepArb, { maxLength: 2 }),
                fc.nat(),
                fc.boolean(),
                fc.integer({ min: 0, max: 60 }),
                async (before, between, after, key, asc, n) => {
                    const mid = [...before, ...between.map(oneToOne)];
                    const a = build(before);
                    const b = build(mid);
                    const sortable = b.cols.filter(c => c.type !== 'dynamic');
                    if (sortable.length === 0) return;
                    const k = sortable[key % sortable.length];
                    const c = build([...mid, ...after.map(oneToOne)]);
                    const tail = c.apl.slice(b.apl.length);
                    const head = ["['logs']", ...a.apl, ...b.apl.slice(a.apl.length), `sort by ['${k.name}'] ${asc ? 'asc' : 'desc'}`].join(' | ');
                    const full = [head, ...tail].join(' | ');
                    await expectFirstRows(`${full} | take ${n}`, full, n);
                },
            ),
            { numRuns: 60 },
        );
    });
});
