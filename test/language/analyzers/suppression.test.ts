/**
 * Suppression comments: `// apl-ignore CODE` on the line before a finding, `// apl-ignore-file CODE`
 * for the whole file, and APL2000 for a comment that suppresses nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkText } from '../../../language/check.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';

const schema = new BuiltinSchemaProvider();
const codes = async (text: string) => (await checkText(text, { schema, analyzers: {} })).map(d => `${d.code}@${d.range.start.line}`);

describe('suppression comments', () => {
    it("// apl-ignore APL2002\n['sample-http-logs'] | where status =~ \"500\"", async () => {
        expect(await codes("// apl-ignore APL2002\n['sample-http-logs'] | where status =~ \"500\"")).toEqual([]);
    });

    it("['sample-http-logs'] | where status =~ \"500\" (without the comment)", async () => {
        expect(await codes("['sample-http-logs'] | where status =~ \"500\"")).toEqual(['APL2002@0']);
    });

    it("// apl-ignore APL2002 only silences the next line", async () => {
        const text = "['sample-http-logs']\n// apl-ignore APL2002\n| where status =~ \"500\"\n| where method =~ \"1\"";
        expect(await codes(text)).toEqual(['APL2002@3']);
    });

    it("// apl-ignore APL2002, APL2006 over a second comment line", async () => {
        const text = "// apl-ignore APL2002, APL2006\n// a note\n['sample-http-logs'] | where status =~ \"500\" | sort by uri | take 3";
        expect(await codes(text)).toEqual([]);
    });

    it("// apl-ignore-file APL2002 silences every block of the file", async () => {
        const text = "// apl-ignore-file APL2002\n['sample-http-logs'] | where status =~ \"500\"\n\n['sample-http-logs'] | where status !~ \"404\"";
        expect(await codes(text)).toEqual([]);
    });

    it("// apl-ignore APL2003\n['sample-http-logs'] | where status == \"500\" (unused: APL2000)", async () => {
        expect(await codes("// apl-ignore APL2003\n['sample-http-logs'] | where status == \"500\"")).toEqual(['APL2000@0']);
    });

    it("// apl-ignore-file APL2006 with nothing to silence (unused: APL2000)", async () => {
        expect(await codes("// apl-ignore-file APL2006\n['sample-http-logs'] | where status =~ \"500\"")).toEqual(['APL2000@0', 'APL2002@1']);
    });

    it("// apl-ignore APL0012 (not an analyzer code: APL2000)", async () => {
        expect(await codes("// apl-ignore APL0012\n['sample-http-logs'] | where stauts == \"500\"")).toEqual(['APL2000@0', 'APL0012@1']);
    });

    it("// apl-ignore APL2002 for a rule that is off is not reported", async () => {
        const d = await checkText("// apl-ignore APL2002\n['sample-http-logs'] | where status == \"500\"", { schema, analyzers: { rules: { APL2002: 'off' } } });
        expect(d.map(x => x.code)).toEqual([]);
    });

    it("// apl-ignore-file APL2005 is unused only when a time filter is required", async () => {
        const text = "// apl-ignore-file APL2005\n['sample-http-logs'] | where _time > ago(1h)";
        expect(await codes(text)).toEqual([]);
        expect((await checkText(text, { schema, analyzers: { requireTimeFilter: true } })).map(d => d.code)).toEqual(['APL2000']);
        expect((await checkText("// apl-ignore-file APL2005\n['sample-http-logs'] | count", { schema, analyzers: { requireTimeFilter: true } })).map(d => d.code)).toEqual([]);
    });

    it("['sample-http-logs'] | where uri == \"// apl-ignore APL2002\" (in a string, not a comment)", async () => {
        expect(await codes("['sample-http-logs'] | where uri == \"// apl-ignore APL2002\" and status =~ \"1\"")).toEqual(['APL2002@0']);
    });
});
