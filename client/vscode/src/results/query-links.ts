/**
 * The current query, shared without its token: a link that opens it in the Axiom Console, a
 * `curl` command and an `@axiomhq/js` snippet. The token is read from the `AXIOM_TOKEN`
 * environment variable by both; it is never in the text.
 *
 * The Console link is `https://app.axiom.co/<org>/query?initForm=<JSON>`, the form Axiom's own
 * tools build (`{"apl": …, "queryOptions": {"startTime", "endTime"}}`, as in the `axiom-link`
 * script of axiomhq/skills); the range is the run's, frozen as RFC 3339 times, so the link shows
 * the same events later. The Console's host follows the API's (`api.X` → `app.X`).
 */
import { publicUrl } from './saved-result.js';

export interface QueryToShare {
    apl: string;
    startTime: string;
    endTime: string;
    /** The connection's URL (its user information and query string are dropped). */
    url: string;
    orgId?: string;
}

/**
 * The Console of an Axiom API URL: `api.axiom.co`, `cloud.axiom.co` and the edge ingest hosts are
 * the main Console; `api.<deployment>.axiom.co` has its own (`app.<deployment>.axiom.co`).
 */
function consoleOrigin(apiUrl: string): string {
    const host = new URL(apiUrl).hostname;
    const m = /^api\.([a-z0-9-]+)\.axiom\.co$/.exec(host);
    return m ? `https://app.${m[1]}.axiom.co` : 'https://app.axiom.co';
}

/** An Axiom connection: a URL on axiom.co (the Console exists only there). */
export function isAxiomUrl(url: string): boolean {
    try {
        const host = new URL(url).hostname;
        return host === 'axiom.co' || host.endsWith('.axiom.co');
    } catch {
        return false;
    }
}

/** The Console link, or a reason it cannot be made. */
export function consoleLink(q: QueryToShare): { url: string } | { reason: string } {
    if (!isAxiomUrl(q.url)) return { reason: `the connection (${publicUrl(q.url) || q.url}) is not Axiom's: the Axiom Console cannot open its queries` };
    if (!q.orgId) return { reason: "the connection has no organization ID (orgId): the Console's link names the organization" };
    const form = { apl: q.apl, queryOptions: { startTime: q.startTime, endTime: q.endTime } };
    return { url: `${consoleOrigin(q.url)}/${encodeURIComponent(q.orgId)}/query?initForm=${encodeURIComponent(JSON.stringify(form))}` };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlCommand(q: QueryToShare): string {
    const body = JSON.stringify({ apl: q.apl, startTime: q.startTime, endTime: q.endTime }, null, 2);
    const base = publicUrl(q.url);
    const lines = [
        `curl -sS -X POST ${shellQuote(`${base}/v1/datasets/_apl?format=tabular`)} \\`,
        `  -H "Authorization: Bearer $AXIOM_TOKEN" \\`,
        ...(q.orgId ? [`  -H ${shellQuote(`X-Axiom-Org-Id: ${q.orgId}`)} \\`] : []),
        `  -H 'Content-Type: application/json' \\`,
        `  --data-binary ${shellQuote(body)}`,
    ];
    return lines.join('\n') + '\n';
}

export function axiomJsSnippet(q: QueryToShare): string {
    const options: string[] = [`token: process.env.AXIOM_TOKEN!`];
    const base = publicUrl(q.url);
    if (!isAxiomUrl(base)) options.push(`url: ${JSON.stringify(base)}`);
    if (q.orgId) options.push(`orgId: ${JSON.stringify(q.orgId)}`);
    return [
        `import { Axiom } from '@axiomhq/js';`,
        ``,
        `const axiom = new Axiom({ ${options.join(', ')} });`,
        `const result = await axiom.query(${JSON.stringify(q.apl)}, {`,
        `    startTime: ${JSON.stringify(q.startTime)},`,
        `    endTime: ${JSON.stringify(q.endTime)},`,
        `    format: 'tabular',`,
        `});`,
        `console.log(result.tables[0]);`,
        ``,
    ].join('\n');
}
