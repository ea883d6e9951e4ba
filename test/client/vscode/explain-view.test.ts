/** The Explain view's page: the stages, the columns and rows after each, everything escaped, no script. */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../language/index.js';
import { explainQuery, measureNote, measureStages } from '../../../language/explain.js';
import { explainHtml, type ExplainSummary } from '../../../client/vscode/src/query/explain-view.js';
import { lspServices } from '../../language/lsp/lsp-services.js';

async function summaryOf(text: string, events: Record<string, unknown>[]): Promise<ExplainSummary> {
    const engine = createEngine();
    engine.createDataset('logs');
    engine.ingest('logs', events);
    const explanation = explainQuery(text, 0, lspServices())!;
    const measures = await measureStages(explanation.stages, apl => engine.query(apl), 2);
    return {
        title: 'q.apl, line 1',
        ran: 'on local service (http://127.0.0.1:1)',
        note: measureNote(2),
        timeRange: 'last 24h',
        state: 'done',
        stages: explanation.stages.map((s, i) => ({ ...s, ...measures[i] })),
    };
}

describe('the Explain view', () => {
    it("['logs'] | where msg != '<b>' | project msg", async () => {
        const now = new Date().toISOString();
        const summary = await summaryOf("['logs'] | where msg != '<b>' | project msg", [
            { _time: now, msg: '<img src=x onerror=alert(1)>' },
            { _time: now, msg: 'plain' },
            { _time: now, msg: '<b>' },
        ]);
        const html = explainHtml(summary, 'vscode-resource:', 'NONCE');
        expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src vscode-resource: 'nonce-NONCE'">`);
        expect(html).not.toMatch(/<script/i);
        expect(html).not.toContain('<img');
        expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
        // One row per stage: its text, its row count and the columns after it.
        expect(html).toMatch(/<td class="num">1<\/td><td class="code">where msg != &#39;&lt;b&gt;&#39;<\/td><td class="num">2<\/td><td class="code">\(same\)<\/td>/);
        expect(html).toMatch(/<td class="num">2<\/td><td class="code">project msg<\/td><td class="num">2<\/td><td class="code">\(1\+?\) msg: /);
        expect(html).toContain('Ran on local service (http://127.0.0.1:1) over last 24h. Each stage runs as its own bounded query');
        expect(html).toMatch(/Stage 2: <code>project msg<\/code><\/h2><p class="note">2 of 2 rows<\/p>/);
    });

    it("['logs'] | where nosuch > 1 | count (the failing stage says why; the next is not run)", async () => {
        const summary = await summaryOf("['logs'] | where nosuch > 1 | count", [{ _time: new Date().toISOString(), x: 1 }]);
        const html = explainHtml(summary, 'vscode-resource:', 'NONCE');
        expect(html).toMatch(/<td class="num">1<\/td><td class="code">where nosuch &gt; 1<\/td><td class="num"><span class="error">failed<\/span><\/td>/);
        expect(html).toMatch(/<td class="num">2<\/td><td class="code">count<\/td><td class="num">not run<\/td>/);
        expect(html).toMatch(/<p class="error">[^<]*nosuch/);
    });
});
