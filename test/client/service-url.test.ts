/** Service URLs as people type them: one reading for `apl --url` and the editor's Add Connection. */
import { describe, expect, it } from 'vitest';
import { normalizeServiceUrl } from '../../client/api/service-url.js';
import { CliError } from '../../client/cli/cli-error.js';
import { clientFrom } from '../../client/cli/connection.js';

describe('normalizeServiceUrl', () => {
    it.each([
        ['127.0.0.1:8686', 'http://127.0.0.1:8686'],
        ['localhost:8686/', 'http://localhost:8686'],
        ['  https://api.axiom.co  ', 'https://api.axiom.co'],
        ['HTTP://example.com:80/base/', 'HTTP://example.com:80/base'],
    ])('%s → %s', (text, url) => {
        expect(normalizeServiceUrl(text)).toEqual({ ok: true, url });
    });

    it.each([
        ['', /empty/],
        ['ftp://127.0.0.1:8686', /must start with http:\/\/ or https:\/\/, not 'ftp:\/\/'/],
        ['127.0.0.1 8686', /is not a valid URL/],
        ['http://', /not a valid URL|names no host/],
    ])('%j is refused, saying why', (text, problem) => {
        const r = normalizeServiceUrl(text);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.problem).toMatch(problem);
    });

    it('the CLI reads --url the same way', () => {
        expect(clientFrom({ url: '127.0.0.1:9999', token: 't' }, {}).url).toBe('http://127.0.0.1:9999');
        expect(() => clientFrom({ url: 'ftp://x', token: 't' }, {})).toThrow(CliError);
        expect(() => clientFrom({ url: 'ftp://x', token: 't' }, {})).toThrow(/--url: the URL must start with http:\/\//);
    });
});
