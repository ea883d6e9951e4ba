import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `N passed, N failed` (with `, N skipped`), after vitest's own
 * summary, so that CI logs state the outcome in a form any reader or tool recognises.
 */
export default class SummaryReporter implements Reporter {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
        let passed = 0;
        let failed = 0;
        let skipped = 0;
        for (const module of testModules) {
            for (const test of module.children.allTests()) {
                const state = test.result().state;
                if (state === 'passed') passed++;
                else if (state === 'failed') failed++;
                else skipped++;
            }
        }
        process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
    }
}
