/**
 * A schema says whether it lists every dataset (`SchemaProvider.complete`). The sample datasets
 * standing in for the user's own (no connection's schema, no schema file) are incomplete: a dataset
 * not among them is no finding (no APL0011), while the fields of a dataset they do list are checked.
 */
import { describe, expect, it } from 'vitest';
import { checkText } from '../../language/check.js';
import { BuiltinSchemaProvider, MutableSchemaProvider, StaticSchemaProvider } from '../../language/schema/index.js';

const complete = new StaticSchemaProvider([{ name: 'events', fields: [{ name: 'level', type: 'string' }] }]);
const incomplete = new StaticSchemaProvider([{ name: 'events', fields: [{ name: 'level', type: 'string' }] }], { complete: false });

async function codes(text: string, schema: StaticSchemaProvider | BuiltinSchemaProvider | MutableSchemaProvider): Promise<string[]> {
    return (await checkText(text, { schema })).map(d => d.code);
}

describe('a complete schema', () => {
    it("['my-logs'] | where status == 200", async () => {
        expect(await codes("['my-logs'] | where status == 200", complete)).toEqual(['APL0011']);
    });
    it("['events'] | where nosuch == 'x'", async () => {
        expect(await codes("['events'] | where nosuch == 'x'", complete)).toEqual(['APL0012']);
    });
    it("['events'] | where level == 'error'", async () => {
        expect(await codes("['events'] | where level == 'error'", complete)).toEqual([]);
    });
});

describe('an incomplete schema', () => {
    it("['my-logs'] | where status == 200", async () => {
        expect(await codes("['my-logs'] | where status == 200", incomplete)).toEqual([]);
    });
    it("['events'] | where nosuch == 'x'", async () => {
        expect(await codes("['events'] | where nosuch == 'x'", incomplete)).toEqual(['APL0012']);
    });
    it("['my-logs'] | where status == 200 (the sample datasets, standing in)", async () => {
        expect(await codes("['my-logs'] | where status == 200", new BuiltinSchemaProvider({ complete: false }))).toEqual([]);
    });
    it("['sample-http-log'] | count (the sample datasets, as the schema in use)", async () => {
        expect(await codes("['sample-http-log'] | count", new BuiltinSchemaProvider())).toEqual(['APL0011']);
    });
});

describe('MutableSchemaProvider takes completeness from what replaces its content', () => {
    it("['my-logs'] | where status == 200", async () => {
        const schema = new MutableSchemaProvider(new BuiltinSchemaProvider({ complete: false }));
        expect(schema.complete).toBe(false);
        expect(await codes("['my-logs'] | where status == 200", schema)).toEqual([]);
        schema.replace([{ name: 'events', fields: [] }]);
        expect(schema.complete).toBe(true);
        expect(await codes("['my-logs'] | where status == 200", schema)).toEqual(['APL0011']);
        schema.replace(new BuiltinSchemaProvider({ complete: false }));
        expect(await codes("['my-logs'] | where status == 200", schema)).toEqual([]);
    });
});
