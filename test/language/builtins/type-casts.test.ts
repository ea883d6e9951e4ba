/**
 * The typed-literal casts (`long(null)`, `int(5)`, ...) are catalogue entries: every name the
 * catalogue lists checks clean with `checkText` and runs in the evaluator, with one argument in both;
 * names it does not list (KQL's `guid`, `iif`) are refused by both.
 */
import { describe, expect, it } from 'vitest';
import { TYPE_CAST_FUNCTIONS } from '../../../language/builtins/type-casts.js';
import { lookupScalarFunction } from '../../../language/builtins/index.js';
import { IssueCodes } from '../../../language/apl-issue-codes.js';
import { checkText } from '../../../language/check.js';
import { AplQueryError, createEngine } from '../../../language/index.js';

const engine = createEngine();

/** A sample argument per cast type and what it casts to, as the tabular result prints it. */
const SAMPLES: Record<string, [string, unknown]> = {
    long: ["'42'", 42],
    real: ["'1.5'", 1.5],
    bool: ["'TRUE'", true],
    timespan: ['2d', '48h0m0s'],
    string: ['12', '12'],
};

async function runError(apl: string): Promise<AplQueryError | undefined> {
    try {
        await engine.query(apl);
        return undefined;
    } catch (e) {
        if (e instanceof AplQueryError) return e;
        throw e;
    }
}

describe('typed-literal casts, one catalogue entry each', () => {
    const names = TYPE_CAST_FUNCTIONS.flatMap(f => [f.name, ...(f.aliases ?? [])]);

    it('are the names the evaluator kept in its own list, less guid', () => {
        expect(names.sort()).toEqual(['bool', 'boolean', 'decimal', 'double', 'float', 'int', 'int32', 'int64', 'long', 'real', 'string', 'time', 'timespan']);
        for (const n of names) expect(lookupScalarFunction(n)?.category).toBe('literal');
    });

    for (const entry of TYPE_CAST_FUNCTIONS) {
        for (const name of [entry.name, ...(entry.aliases ?? [])]) {
            const [arg, expected] = SAMPLES[entry.name];
            const apl = `print v = ${name}(${arg}), n = ${name}(null)`;
            it(apl, async () => {
                expect(await checkText(apl)).toEqual([]);
                const table = (await engine.query(apl)).tables[0];
                expect(table.columns.map(c => c[0])).toEqual([expected, null]);
            });

            it(`print v = ${name}(1, 2)`, async () => {
                const diagnostics = await checkText(`print v = ${name}(1, 2)`);
                expect(diagnostics.map(d => d.code)).toEqual([IssueCodes.WrongArgumentCount]);
                expect((await runError(`print v = ${name}(1, 2)`))?.column).toBe(11);
            });
        }
    }

    for (const apl of ["print g = guid('x')", 'print v = iif(true, 1, 2)']) {
        it(apl, async () => {
            expect((await checkText(apl)).map(d => d.code)).toEqual([IssueCodes.UnknownFunction]);
            expect((await runError(apl))?.detail).toMatch(/unknown function/);
        });
    }
});
