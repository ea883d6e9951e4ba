import { describe, expect, it } from 'vitest';
import { logsEngine, rows } from './helpers.js';

describe('bag_pack(*) and pack(*): every column of the row as a bag', () => {
    it("['logs'] | where status == '500' | project method, status | extend b = bag_pack(*)", async () => {
        expect(await rows(logsEngine(), "['logs'] | where status == '500' | project method, status | extend b = bag_pack(*)")).toEqual([
            { method: 'POST', status: '500', b: { method: 'POST', status: '500' } },
        ]);
    });

    it("['logs'] | where status == '500' | project method, dur | project b = pack(*)", async () => {
        expect(await rows(logsEngine(), "['logs'] | where status == '500' | project method, dur | project b = pack(*)")).toEqual([{ b: { method: 'POST', dur: 250 } }]);
    });
});
