/**
 * The fields a query reads from its dataset (language/eval/needed-columns.ts): blocks read from
 * disk decode only those. Undefined means every field; `_time` is there when the query names it.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '../../../language/apl-parse.js';
import { fieldsUpTo, neededFields, readsField } from '../../../language/eval/needed-columns.js';

const fields = (apl: string) => {
    const n = neededFields(parse(apl).model);
    return n && [...n].sort();
};

describe('neededFields', () => {
    for (const [apl, want] of [
        ["['d'] | where status == '500' | count", ['status']],
        ["['d'] | summarize avg(x), max(y) by bin(_time, 1h)", ['_time', 'x', 'y']],
        ["['d'] | where uri contains 'api' | summarize count() by uri | top 5 by count_", ['count_', 'uri']],
        ["['d'] | extend k = a * 2 | project k, b", ['a', 'b', 'k']],
        ["['d'] | project geo.country", ['geo', 'geo.country']],
        ["['d'] | distinct method", ['method']],
        ["['d'] | sort by x | take 10 | project x", ['x']],
    ] as const) {
        it(apl, () => expect(fields(apl)).toEqual(want));
    }

    for (const apl of [
        "['d'] | take 10",
        "['d'] | where x > 1",
        "['d'] | top 3 by x",
        "['d'] | project-away x | count",
        "['d'] | project-keep x* | count",
        "['d'] | summarize count() by *",
        "['d'] | extend a = pack_all() | project a",
        "['d'] | extend a = column_ifexists('b', 1) | project a",
        "['d'] | where x in ((['e'] | project x)) | count",
        "['d'] | join (['e']) on k | count",
        "['d'] | search 'x' | count",
        "let t = ['d']; t | count",
        "print 1",
    ]) {
        it(`${apl}: every field`, () => expect(fields(apl)).toBeUndefined());
    }
});

describe('readsField', () => {
    it('a name covers the fields under it', () => {
        const names = new Set(['geo', 'status']);
        expect(['geo', 'geo.country', 'geo.city.name', 'status', 'status_code', 'geography'].filter(f => readsField(names, f))).toEqual(['geo', 'geo.country', 'geo.city.name', 'status']);
    });
});

describe('fieldsUpTo (what a top over blocks on disk reads first)', () => {
    for (const [apl, last, want] of [
        ["['d'] | top 10 by req_duration_ms", 0, ['req_duration_ms']],
        ["['d'] | where status == '500' | top 5 by x asc, _time desc | project y", 1, ['_time', 'status', 'x']],
        ["['d'] | where ok | sort by n asc | take 25 | extend k = m", 2, ['n', 'ok']],
        ["['d'] | where pack_all() != '' | top 3 by x", 1, undefined],
        ["['d'] | summarize count() by x | top 3 by count_", 1, undefined],
    ] as const) {
        it(`${apl} up to step ${last}`, () => {
            const got = fieldsUpTo(parse(apl).model, last);
            expect(got && [...got].sort()).toEqual(want);
        });
    }
});
