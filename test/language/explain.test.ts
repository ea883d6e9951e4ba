import { describe, expect, it } from 'vitest';
import { countQuery, explainQuery, measureStages, sampleQuery } from '../../language/explain.js';
import { createEngine } from '../../language/index.js';
import { generateSample } from '../../language/samples/index.js';
import { lspServices } from './lsp/lsp-services.js';

const services = lspServices();

/** Each stage as `text → (columns)`, the way the Explain view lists them. */
function stagesOf(text: string, offset = 0): string[] {
    const explanation = explainQuery(text, offset, services);
    expect(explanation).toBeDefined();
    return explanation!.stages.map(s => `${s.text} → (${s.columns.map(c => `${c.name}: ${c.type}`).join(', ')})${s.open ? ' open' : ''}`);
}

describe('explain: the schema after each stage', () => {
    it("['sample-http-logs'] | where status == '500' | project status, ms = req_duration_ms | summarize n = count(), avg(ms) by status", () => {
        const text = "['sample-http-logs'] | where status == '500' | project status, ms = req_duration_ms | summarize n = count(), avg(ms) by status";
        const stages = stagesOf(text);
        expect(stages).toHaveLength(4);
        expect(stages[0]).toMatch(/^\['sample-http-logs'\] → \(_time: datetime, _sysTime: datetime, content_type: string, geo\.city: string,/);
        expect(stages[1]).toMatch(/^where status == '500' → \(_time: datetime,/);
        expect(stages.slice(2)).toEqual([
            'project status, ms = req_duration_ms → (status: string, ms: real)',
            'summarize n = count(), avg(ms) by status → (status: string, n: long, avg_ms: real)',
        ]);
    });

    it("let t = 5;\n['sample-http-logs']\n| take t\n| count (the prefixes keep the let)", () => {
        const text = "let t = 5;\n['sample-http-logs']\n| take t\n| count";
        const explanation = explainQuery(text, 0, services)!;
        expect(explanation.stages.map(s => [s.index, s.keyword, s.prefix])).toEqual([
            [0, undefined, "let t = 5;\n['sample-http-logs']"],
            [1, 'take', "let t = 5;\n['sample-http-logs']\n| take t"],
            [2, 'count', "let t = 5;\n['sample-http-logs']\n| take t\n| count"],
        ]);
        expect(explanation.stages[1].range).toEqual({ start: { line: 2, character: 2 }, end: { line: 2, character: 8 } });
        expect(explanation.stages[2].columns).toEqual([{ name: 'count', type: 'long' }]);
    });

    it("['a'] | take 1 ⏎⏎ ['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024 (the block at the position)", () => {
        const text = "['a'] | take 1\n\n['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024";
        const explanation = explainQuery(text, text.indexOf('extend'), services)!;
        expect(explanation.range.start).toEqual({ line: 2, character: 0 });
        expect(explanation.stages.map(s => s.prefix)).toEqual(["['sample-http-logs']", "['sample-http-logs'] | extend kb = resp_body_size_bytes / 1024"]);
        expect(explanation.stages[1].columns.at(-1)).toEqual({ name: 'kb', type: 'long' });
        expect(explainQuery(text, 0, services)!.stages.map(s => s.text)).toEqual(["['a']", 'take 1']);
    });

    it("['unknown-dataset'] | extend x = 1 (an unknown schema is open)", () => {
        expect(stagesOf("['unknown-dataset'] | extend x = 1")).toEqual([
            "['unknown-dataset'] → (_time: datetime, _sysTime: datetime) open",
            'extend x = 1 → (_time: datetime, _sysTime: datetime, x: long) open',
        ]);
    });

    it('print x = 1 (a query without pipes is one stage)', () => {
        expect(stagesOf('print x = 1')).toEqual(['print x = 1 → (x: long)']);
    });

    it("let t = 1; (no query: nothing to explain)", () => {
        const explanation = explainQuery('let t = 1;', 0, services)!;
        expect(explanation.stages).toEqual([]);
        expect(explanation.problem).toBe('the block has no query');
    });

    it("['sample-http-logs'] | where (a syntax error: the stages are still listed, syntaxOk is false)", () => {
        const explanation = explainQuery("['sample-http-logs'] | where", 0, services)!;
        expect(explanation.syntaxOk).toBe(false);
    });

    it('an empty document has nothing to explain', () => {
        expect(explainQuery('\n\n', 0, services)).toBeUndefined();
    });
});

describe('explain: the bounded queries that run a stage', () => {
    it("['sample-http-logs'] | where status == '500' // errors", () => {
        const stage = { prefix: "['sample-http-logs'] | where status == '500' // errors" };
        expect(countQuery(stage)).toBe("['sample-http-logs'] | where status == '500' // errors\n| count");
        expect(sampleQuery(stage, 3)).toBe("['sample-http-logs'] | where status == '500' // errors\n| take 3");
    });
});

describe('explain: measuring the stages on data (the reference evaluator)', () => {
    const engine = createEngine();
    engine.createDataset('sample-http-logs');
    engine.ingest('sample-http-logs', generateSample('sample-http-logs', { rows: 500, seed: 3 }));

    it("['sample-http-logs'] | where status == '500' | summarize n = count() by status", async () => {
        const text = "['sample-http-logs'] | where status == '500' | summarize n = count() by status";
        const stages = explainQuery(text, 0, services)!.stages;
        const sent: string[] = [];
        const measures = await measureStages(stages, apl => (sent.push(apl), engine.query(apl)), 2);
        const errors = (await engine.query("['sample-http-logs'] | where status == '500' | count")).tables[0].columns[0][0];
        expect(measures.map(m => m.rows)).toEqual([500, errors, 1]);
        expect(measures.map(m => m.sample?.columns?.[0]?.length)).toEqual([2, 2, 1]);
        // Every query is bounded: a stage's prefix with | count or | take; the whole query never runs as it is.
        expect(sent).toEqual(stages.flatMap(s => [countQuery(s), sampleQuery(s, 2)]));
        expect(sent).not.toContain(text);
    });

    it("['sample-http-logs'] | where nosuch > 1 | count (a failing stage; the later ones are skipped)", async () => {
        const stages = explainQuery("['sample-http-logs'] | where nosuch > 1 | count", 0, services)!.stages;
        const measures = await measureStages(stages, apl => engine.query(apl), 0);
        expect(measures[0]).toEqual({ index: 0, rows: 500 });
        expect(measures[1].error).toMatch(/nosuch/);
        expect(measures[2]).toEqual({ index: 2, skipped: true });
    });
});
