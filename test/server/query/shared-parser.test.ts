/**
 * A query thread of the service builds one APL parser, not two (issue 31: each costs about 40 ms of
 * CPU on the way to the first answer): the evaluator parses with the services of the query check
 * (server/query/run-job.ts, shareParser). The check still types fields from the engine's schema.
 * Vitest gives each test file its own modules, so nothing here has parsed before shareParser.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/index.js';
import { parsingServices } from '../../../language/apl-parse.js';
import { checkerFor, runJob, shareParser } from '../../../server/query/run-job.js';

const REQUEST = { format: 'tabular' as const, now: 0n, includeCursor: false, includeCursorField: false };

describe('one parser per query thread', () => {
    const engine = createEngine({ sampleSchemas: false });
    shareParser(engine);
    engine.ingest('logs', [
        { _time: '2024-01-01T00:00:00Z', n: 1, s: 'a' },
        { _time: '2024-01-01T00:00:01Z', n: 2, s: 'b' },
    ]);
    const run = async (apl: string): Promise<{ tables: { columns: unknown[][] }[] }> => JSON.parse((await runJob(engine, { kind: 'apl', apl, timeoutMs: 0, request: REQUEST })).json) as { tables: { columns: unknown[][] }[] };

    it("['logs'] | summarize total = sum(n)", async () => {
        expect((await run("['logs'] | summarize total = sum(n)")).tables[0].columns[0]).toEqual([3]);
        // The evaluator's parser is the check's: the same services object.
        expect(parsingServices()).toBe(checkerFor(engine).services());
    });

    it("['logs'] | summarize sum(s)", async () => {
        // After the evaluator has parsed with them, the check's services still see the engine's
        // fields (s is a string): its 400, not the evaluator's answer.
        await run("['logs'] | where n > 0 | count");
        await expect(run("['logs'] | summarize sum(s)")).rejects.toMatchObject({ status: 400, extra: { detail: { code: 'APL0003' } } });
    });
});
