/**
 * The analyzers in the editor's services: their quick fixes as code actions, and the rule's
 * explanation (with its bad and good example) in the hover over a finding.
 */
import { EmptyFileSystem } from 'langium';
import { parseHelper, testCodeAction } from 'langium/test';
import { describe, expect, it } from 'vitest';
import { createAplServices } from '../../../language/apl-module.js';
import { FixedAnalyzerSettings } from '../../../language/analyzers/analyzer-diagnostics.js';
import type { Model } from '../../../language/generated/ast.js';
import { BuiltinSchemaProvider } from '../../../language/schema/builtin-schema-provider.js';

const services = createAplServices({
    ...EmptyFileSystem,
    module: {
        schema: { SchemaProvider: () => new BuiltinSchemaProvider() },
        analyzers: { AnalyzerSettings: () => new FixedAnalyzerSettings({}) },
    },
}).Apl;
const fix = testCodeAction(services);
const parse = parseHelper<Model>(services);

describe('analyzer quick fixes as code actions', () => {
    it("['sample-http-logs'] | sort by req_duration_ms desc | take 10", async () => {
        await fix("['sample-http-logs'] | sort by req_duration_ms desc | take 10", 'APL2006', "['sample-http-logs'] | top 10 by req_duration_ms desc");
    });

    it("['sample-http-logs'] | where status =~ \"500\"", async () => {
        await fix("['sample-http-logs'] | where status =~ \"500\"", 'APL2002', "['sample-http-logs'] | where status == \"500\"");
    });

    it("// apl-ignore APL2006\n['sample-http-logs'] | where status == \"500\"", async () => {
        await fix("// apl-ignore APL2006\n['sample-http-logs'] | where status == \"500\"", 'APL2000', "['sample-http-logs'] | where status == \"500\"");
    });
});

describe('hover over an analyzer finding', () => {
    it("['sample-http-logs'] | where user_agent contains \"Firefox\"", async () => {
        const text = "['sample-http-logs'] | where user_agent contains \"Firefox\"";
        const document = await parse(text, { validation: true });
        expect(document.diagnostics?.map(d => d.code)).toEqual(['APL2001']);
        const hover = await services.lsp.HoverProvider!.getHoverContent(document, { textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(text.indexOf('contains') + 2) });
        const value = (hover?.contents as { value: string }).value;
        expect(value).toContain('APL2001 contains-to-has');
        expect(value).toContain('where user_agent has "Firefox"');
    });
});
