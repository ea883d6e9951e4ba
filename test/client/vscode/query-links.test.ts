/** Sharing a query: the Console link, curl and @axiomhq/js, never with a token. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { axiomJsSnippet, consoleLink, curlCommand } from '../../../client/vscode/src/results/query-links.js';

const APL = "['events'] | where msg == \"it's\" | summarize count() by bin(_time, 1h)";
const q = { apl: APL, startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z', url: 'https://api.axiom.co', orgId: 'my-org' };

describe('sharing a query', () => {
    it(`${APL}: the Console link opens the query and its range in the organization`, () => {
        const link = consoleLink(q);
        expect('url' in link).toBe(true);
        const url = new URL((link as { url: string }).url);
        expect(url.origin + url.pathname).toBe('https://app.axiom.co/my-org/query');
        expect(JSON.parse(url.searchParams.get('initForm')!)).toEqual({ apl: APL, queryOptions: { startTime: q.startTime, endTime: q.endTime } });
    });

    it('the Console of a deployment is on its own host: api.staging.axiom.co links to app.staging.axiom.co', () => {
        const origin = (url: string) => new URL((consoleLink({ ...q, url }) as { url: string }).url).origin;
        expect(origin('https://api.staging.axiom.co')).toBe('https://app.staging.axiom.co');
        expect(origin('https://cloud.axiom.co')).toBe('https://app.axiom.co');
        expect(origin('https://us-east-1.aws.edge.axiom.co')).toBe('https://app.axiom.co');
    });

    it('no Console link for a connection that is not Axiom, or without an organization', () => {
        expect(consoleLink({ ...q, url: 'http://127.0.0.1:8686' })).toEqual({ reason: expect.stringMatching(/not Axiom's/) });
        expect(consoleLink({ ...q, orgId: undefined })).toEqual({ reason: expect.stringMatching(/orgId/) });
    });

    it(`${APL}: the curl command sends the query as the shell reads it, with the token from $AXIOM_TOKEN and no secret of the URL`, () => {
        const cmd = curlCommand({ ...q, url: 'https://user:secret@api.axiom.co/?token=xaat-123' });
        expect(cmd).toContain('$AXIOM_TOKEN');
        expect(cmd).not.toMatch(/secret|xaat-123/);
        // What bash makes of the quoted body: the query, exactly.
        const body = /--data-binary ('(?:[^']|'\\'')*')/s.exec(cmd)![1];
        const printed = execFileSync('bash', ['-c', `printf %s ${body}`], { encoding: 'utf8' });
        expect(JSON.parse(printed)).toEqual({ apl: APL, startTime: q.startTime, endTime: q.endTime });
    });

    it(`${APL}: the @axiomhq/js snippet reads the token from the environment, names the URL of a service that is not Axiom's`, () => {
        const js = axiomJsSnippet(q);
        expect(js).toContain('process.env.AXIOM_TOKEN');
        expect(js).toContain(JSON.stringify(APL));
        expect(js).not.toContain('url:');
        expect(axiomJsSnippet({ ...q, url: 'http://127.0.0.1:8686', orgId: undefined })).toContain('url: "http://127.0.0.1:8686"');
    });
});
