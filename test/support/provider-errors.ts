/**
 * Setup file (vitest.config.ts): under test, an error that an LSP provider's `safely()` catches is
 * rethrown, so a test that drives a provider fails on it instead of the error only being logged.
 */
import { setProviderErrorHandler } from '../../language/lsp/apl-names.js';

export class ProviderError extends Error {
    constructor(readonly what: string, readonly error: unknown) {
        super(`APL ${what} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`, { cause: error });
        this.name = 'ProviderError';
    }
}

export function throwProviderErrors(): void {
    setProviderErrorHandler((what, error) => {
        throw new ProviderError(what, error);
    });
}

throwProviderErrors();
