import { defineConfig } from 'vitest/config';

export default defineConfig({
    test: {
        include: ['test/**/*.test.ts'],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        pool: 'forks',
        setupFiles: ['./test/support/provider-errors.ts', './test/support/fast-check-seed.ts'],
        reporters: ['default', './test/support/summary-reporter.ts'],
    },
});
