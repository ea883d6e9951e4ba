/**
 * `/v2/monitors` over HTTP against a real service: the reference's `Monitor` shape, the APL checked
 * like `apl check` does against the service's datasets (400 with the diagnostic code and
 * line/column), every other validation error a 400 naming the field and the value, the bodies the
 * Go client sends (every key, zero values), MPL, 404s and persistence across a restart.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFaults } from '../../../server/store/fsutil.js';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataset, ndjson, startService, type TestService } from './helpers.js';

let t: TestService;

beforeAll(async () => {
    t = await startService();
    await createDataset(t, 'http-logs');
    const r = await t.raw('POST', '/v1/datasets/http-logs/ingest', ndjson([{ status: 200, uri: '/a' }]), { 'content-type': 'application/x-ndjson' });
    expect(r.status).toBe(200);
});
afterAll(async () => {
    await t?.stop();
});

const VALID = {
    name: 'Errors',
    type: 'Threshold',
    description: 'too many 5xx',
    aplQuery: "['http-logs'] | where status >= 500 | summarize count() by bin_auto(_time)",
    operator: 'Above',
    threshold: 100,
    intervalMinutes: 5,
    rangeMinutes: 10,
};

const create = async (body: Record<string, unknown>) => {
    const r = await t.call('POST', '/v2/monitors', body);
    expect(r.status, r.text).toBe(200);
    return r.json as Record<string, unknown> & { id: string };
};

describe('monitors: create, get, list, update, delete', () => {
    it('creates with the reference shape (MonitorWithId)', async () => {
        const m = await create({ ...VALID, notifierIds: ['n1'], secondDelay: 30, alertOnNoData: true });
        expect(m.id).toMatch(/^mon_[0-9a-f]{16}$/);
        expect(m).toMatchObject({ ...VALID, notifierIds: ['n1'], secondDelay: 30, alertOnNoData: true, notifyByGroup: false, resolvable: false, disabled: false });
        expect(m.createdAt).toBe(m.updatedAt);
        expect(typeof m.createdBy).toBe('string');
        expect('mplQuery' in m).toBe(false);
        expect('disabledUntil' in m).toBe(false);
        expect((await t.call('GET', `/v2/monitors/${m.id}`)).json).toEqual(m);
        expect(((await t.call('GET', '/v2/monitors')).json as { id: string }[]).find((x) => x.id === m.id)).toEqual(m);
    });

    it('update replaces the definition; id, createdAt and createdBy stay whatever the body says', async () => {
        const m = await create(VALID);
        const u = await t.call('PUT', `/v2/monitors/${m.id}`, { ...m, id: 'mon_other', createdAt: '2000-01-01T00:00:00Z', createdBy: 'someone', name: 'Renamed', threshold: 150, description: undefined });
        expect(u.status, u.text).toBe(200);
        expect(u.json).toMatchObject({ id: m.id, createdAt: m.createdAt, createdBy: m.createdBy, name: 'Renamed', threshold: 150, description: '' });
        expect(u.json.updatedAt > (m.updatedAt as string)).toBe(true);
        expect((await t.call('GET', `/v2/monitors/${m.id}`)).json).toEqual(u.json);
        expect((await t.call('GET', '/v2/monitors/mon_other')).status).toBe(404);
    });

    it('deletes with 204; then get, update and delete answer 404 with "not found"', async () => {
        const m = await create(VALID);
        expect((await t.call('DELETE', `/v2/monitors/${m.id}`)).status).toBe(204);
        for (const [method, body] of [['GET'], ['PUT', VALID], ['DELETE']] as const) {
            const r = await t.call(method, `/v2/monitors/${m.id}`, body);
            expect(r.status, method).toBe(404);
            expect(r.json.message).toMatch(/monitor "mon_[0-9a-f]+" not found/);
        }
    });

    it("accepts what axiom-go sends: every key, zero values (operator \"\", disabledUntil 0001-01-01, notifierIDs null)", async () => {
        const goBody = {
            createdAt: '0001-01-01T00:00:00Z',
            createdBy: '',
            updatedAt: '0001-01-01T00:00:00Z',
            name: 'Test Monitor',
            type: 'MatchEvent',
            description: 'A very good test monitor',
            aplQuery: "['http-logs']",
            operator: '',
            threshold: 0,
            alertOnNoData: false,
            notifyByGroup: false,
            resolvable: false,
            notifierIDs: null,
            intervalMinutes: 1,
            rangeMinutes: 0,
            disabled: false,
            disabledUntil: '0001-01-01T00:00:00Z',
        };
        const m = await create(goBody);
        expect(m).toMatchObject({ type: 'MatchEvent', operator: '', notifierIds: [], rangeMinutes: 0 });
        expect('disabledUntil' in m).toBe(false);
        const later = await t.call('PUT', `/v2/monitors/${m.id}`, { ...goBody, notifierIDs: ['a', 'b'], disabledUntil: '2030-01-01T00:10:00+01:00', disabled: true });
        expect(later.json).toMatchObject({ notifierIds: ['a', 'b'], disabledUntil: '2029-12-31T23:10:00Z', disabled: true });
    });

    it('an anomaly detection monitor: operator, tolerance and compareDays, threshold optional', async () => {
        const m = await create({ name: 'a', type: 'AnomalyDetection', aplQuery: "['http-logs'] | summarize count() by bin_auto(_time)", operator: 'AboveOrBelow', tolerance: 5, compareDays: 7, intervalMinutes: 1, rangeMinutes: 10 });
        expect(m).toMatchObject({ type: 'AnomalyDetection', operator: 'AboveOrBelow', tolerance: 5, compareDays: 7, threshold: 0 });
    });

    it('an MPL monitor is stored as sent and answered in aplQuery (as the live service does); sent back unchanged it stays MPL', async () => {
        const mpl = '`http-logs`:`my-metric` | align to 5s using avg';
        const m = await create({ ...VALID, aplQuery: undefined, mplQuery: mpl });
        expect(m.aplQuery).toBe(mpl);
        expect('mplQuery' in m).toBe(false);
        // a GET-modify-PUT round trip: the text is not APL, but it is not checked as APL either
        const u = await t.call('PUT', `/v2/monitors/${m.id}`, { ...m, threshold: 7 });
        expect(u.status, u.text).toBe(200);
        expect(u.json).toMatchObject({ aplQuery: mpl, threshold: 7 });
        // changed text in aplQuery is APL again, and checked
        const bad = await t.call('PUT', `/v2/monitors/${m.id}`, { ...m, aplQuery: `${mpl} ` + '| x' });
        expect(bad.status).toBe(400);
    });
});

describe('monitors: the APL is checked like apl check (400 with code and line/column)', () => {
    const cases: [string, string, string, number, number][] = [
        ["['http-logs'] | where (", 'APL1001', 'syntax', 1, 24],
        ["['http-logs']\n| summarize cnt()", 'APL0001', 'semantic', 2, 13],
        ["['no-such-dataset'] | count", 'APL0011', 'semantic', 1, 1],
    ];
    for (const [apl, code, errorType, line, column] of cases) {
        it(apl, async () => {
            const r = await t.call('POST', '/v2/monitors', { ...VALID, aplQuery: apl });
            expect(r.status, r.text).toBe(400);
            expect(r.json.detail).toMatchObject({ field: 'aplQuery', code, errorType, line, column });
            expect(r.json.message).toMatch(new RegExp(`^invalid aplQuery: ${code} .*\\(line ${line}, column ${column}\\)`));
            expect(r.json.diagnostics[0]).toMatchObject({ code, line, column });
        });
    }

    it("['http-logs'] | summarize count() by bin_auto(_time) | where count_ > 10 (valid: accepted)", async () => {
        await create({ ...VALID, aplQuery: "['http-logs'] | summarize count() by bin_auto(_time) | where count_ > 10" });
    });

    it('an update is checked too, and a rejected update changes nothing', async () => {
        const m = await create(VALID);
        const r = await t.call('PUT', `/v2/monitors/${m.id}`, { ...VALID, aplQuery: "['http-logs'] | summarize nope()" });
        expect(r.status).toBe(400);
        expect(r.json.detail.code).toBe('APL0001');
        expect((await t.call('GET', `/v2/monitors/${m.id}`)).json).toEqual(m);
    });

    it('a query longer than 16 KiB: 400 before any parsing', async () => {
        const r = await t.call('POST', '/v2/monitors', { ...VALID, aplQuery: `['http-logs'] | where uri == '${'a'.repeat(17_000)}'` });
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/^invalid aplQuery: \d+ characters, at most 16384/);
    });

    it("['http-logs'] | where ((((…x…)))) 3,000 deep: 400 (not a 500), and the service answers on", async () => {
        const r = await t.call('POST', '/v2/monitors', { ...VALID, aplQuery: `['http-logs'] | where ${'('.repeat(3000)}status${')'.repeat(3000)} > 1` });
        expect(r.status, r.text).toBe(400);
        expect(r.json.message).toMatch(/^invalid aplQuery: /);
        expect((await t.call('GET', '/v2/monitors')).status).toBe(200);
    });
});

describe('monitors: validation (each a 400 naming the field and the value)', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
        ['name missing', { name: undefined }, /^invalid name: a non-empty name is required, got null/],
        ['name blank', { name: '  ' }, /^invalid name: .*got " {2}"/],
        ['type missing', { type: undefined }, /^invalid type: one of Threshold, MatchEvent, AnomalyDetection is required, got null/],
        ['type unknown', { type: 'Threshhold' }, /^invalid type: expected one of Threshold, MatchEvent, AnomalyDetection, got "Threshhold"/],
        ['no query', { aplQuery: undefined }, /one of "aplQuery" or "mplQuery" is required/],
        ['both queries', { mplQuery: 'x:y' }, /aplQuery and mplQuery are mutually exclusive/],
        ['aplQuery not a string', { aplQuery: 5 }, /^invalid aplQuery: expected a string, got 5/],
        ['operator unknown', { operator: 'Greater' }, /^invalid operator: expected one of Below, BelowOrEqual, Above, AboveOrEqual, AboveOrBelow, got "Greater"/],
        ['Threshold without operator', { operator: undefined }, /^invalid operator: a Threshold monitor needs one of/],
        ['Threshold without threshold', { threshold: undefined }, /^invalid threshold: a Threshold monitor needs a number/],
        ['threshold a string', { threshold: 'high' }, /^invalid threshold: expected a number, got "high"/],
        ['AnomalyDetection without operator', { type: 'AnomalyDetection', operator: '' }, /^invalid operator: an AnomalyDetection monitor needs/],
        ['intervalMinutes missing', { intervalMinutes: undefined }, /^invalid intervalMinutes: .*at least 1.*required/],
        ['intervalMinutes 0', { intervalMinutes: 0 }, /^invalid intervalMinutes: expected a value at least 1, got 0/],
        ['intervalMinutes 1.5', { intervalMinutes: 1.5 }, /^invalid intervalMinutes: expected an integer, got 1.5/],
        ['rangeMinutes missing for Threshold', { rangeMinutes: undefined }, /^invalid rangeMinutes: a Threshold monitor needs/],
        ['rangeMinutes 0 for Threshold', { rangeMinutes: 0 }, /^invalid rangeMinutes: expected a value at least 1, got 0/],
        ['secondDelay over a day', { secondDelay: 86401 }, /^invalid secondDelay: expected a value between 0 and 86400, got 86401/],
        ['compareDays 8', { compareDays: 8 }, /^invalid compareDays: expected a value between 1 and 7, got 8/],
        ['tolerance 101', { tolerance: 101 }, /^invalid tolerance: expected a value between 0 and 100, got 101/],
        ['alertOnNoData "yes"', { alertOnNoData: 'yes' }, /^invalid alertOnNoData: expected true or false, got "yes"/],
        ['notifierIds a string', { notifierIds: 'n1' }, /^invalid notifierIds: expected an array of strings, got "n1"/],
        ['notifierIDs with a number', { notifierIDs: ['n1', 2] }, /^invalid notifierIDs\[1\]: expected a string, got 2/],
        ['disabledUntil not a time', { disabledUntil: 'tomorrow' }, /^invalid disabledUntil "tomorrow"/],
        ['name of 100,000 characters', { name: 'N'.repeat(100_000) }, /^invalid name: 100000 characters, at most 256 allowed/],
        ['description of 50,000 characters', { description: 'D'.repeat(50_000) }, /^invalid description: 50000 characters, at most 4096 allowed/],
        ['columnName of 10,000 characters', { columnName: 'c'.repeat(10_000) }, /^invalid columnName: 10000 characters, at most 1024 allowed/],
        ['1,000 notifier ids', { notifierIds: Array.from({ length: 1000 }, (_, i) => `n${i}`) }, /^invalid notifierIds: 1000 ids, at most 100 allowed/],
        ['a notifier id of 10,000 characters', { notifierIds: ['n'.repeat(10_000)] }, /^invalid notifierIds\[0\]: 10000 characters, at most 256 allowed/],
        ['more positive results than runs', { triggerFromNRuns: 2, triggerAfterNPositiveResults: 3 }, /^invalid triggerAfterNPositiveResults: 3 is more than triggerFromNRuns \(2\)/],
    ];
    for (const [what, change, message] of cases) {
        it(what, async () => {
            const r = await t.call('POST', '/v2/monitors', { ...VALID, ...change });
            expect(r.status, r.text).toBe(400);
            expect(r.json.message).toMatch(message);
        });
    }
});

describe('monitors: durability', () => {
    it('survive a restart unchanged, in a 0600 monitors.json', async () => {
        const m = await create({ ...VALID, name: 'durable', disabledUntil: '2031-01-01T00:00:00Z' });
        const all = (await t.call('GET', '/v2/monitors')).json;
        await t.restart();
        expect((await t.call('GET', `/v2/monitors/${m.id}`)).json).toEqual(m);
        expect((await t.call('GET', '/v2/monitors')).json).toEqual(all);
        expect(statSync(path.join(t.dir, 'monitors.json')).mode & 0o777).toBe(0o600);
    });

    it('a change whose write fails (a full disk) answers 507 and leaves monitors.json as it was, with no temp file', async () => {
        await create({ ...VALID, name: 'before the fault' });
        const file = path.join(t.dir, 'monitors.json');
        const before = readFileSync(file, 'utf8');
        writeFaults.inject = (f) => (f === file ? Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }) : undefined);
        try {
            const r = await t.call('POST', '/v2/monitors', { ...VALID, name: 'during the fault' });
            expect(r.status, r.text).toBe(507);
        } finally {
            writeFaults.inject = undefined;
        }
        expect(readFileSync(file, 'utf8')).toBe(before);
        expect(readdirSync(t.dir).filter((f) => f.includes('monitors.json') && f !== 'monitors.json')).toEqual([]);
        expect(((await t.call('GET', '/v2/monitors')).json as { name: string }[]).map((m) => m.name)).not.toContain('during the fault');
    });

    it('deleting the dataset a monitor queries leaves the monitor as it is', async () => {
        await createDataset(t, 'short-lived');
        const m = await create({ ...VALID, aplQuery: "['short-lived'] | count" });
        expect((await t.call('DELETE', '/v2/datasets/short-lived')).status).toBe(204);
        expect((await t.call('GET', `/v2/monitors/${m.id}`)).json).toEqual(m);
    });
});
