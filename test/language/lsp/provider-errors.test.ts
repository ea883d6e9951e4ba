/**
 * `safely()` keeps editor requests from failing in production (the error is logged, the request
 * answers "nothing"), but under test the setup file makes it rethrow, so provider bugs fail tests.
 */
import { parseDocument } from 'langium/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { safely, setProviderErrorHandler } from '../../../language/lsp/apl-names.js';
import { ProviderError, throwProviderErrors } from '../../support/provider-errors.js';
import { lspServices } from './lsp-services.js';

afterEach(() => {
    throwProviderErrors();
    vi.restoreAllMocks();
});

describe('provider errors', () => {
    it('under test, an error caught by safely() is rethrown', () => {
        expect(() => safely('hover', undefined, () => { throw new TypeError('boom'); })).toThrow(ProviderError);
    });

    it("['sample-http-logs'] | where status == '500' (a failing hover rejects the request under test)", async () => {
        const services = lspServices();
        const hover = services.lsp.HoverProvider!;
        vi.spyOn(hover as unknown as { hover: () => unknown }, 'hover').mockImplementation(() => { throw new TypeError('boom'); });
        const document = await parseDocument(services, "['sample-http-logs'] | where status == '500'");
        const params = { textDocument: { uri: document.uri.toString() }, position: { line: 0, character: 30 } };
        await expect(Promise.resolve().then(() => hover.getHoverContent(document, params))).rejects.toThrow(/APL hover failed: TypeError: boom/);
    });

    it('in production (the default handler), safely() logs the error and returns the fallback', () => {
        setProviderErrorHandler(undefined);
        const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
        expect(safely('completion', 'fallback', () => { throw new TypeError('boom'); })).toBe('fallback');
        expect(log).toHaveBeenCalledTimes(1);
        expect(String(log.mock.calls[0][0])).toBe('APL completion failed:');
    });

    it('a custom handler receives what failed and the error', () => {
        const seen: [string, unknown][] = [];
        setProviderErrorHandler((what, error) => { seen.push([what, error]); });
        const error = new TypeError('boom');
        expect(safely('references', [], () => { throw error; })).toEqual([]);
        expect(seen).toEqual([['references', error]]);
    });
});
