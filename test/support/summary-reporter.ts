import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `N passed, N failed` (with `, N skipped`), after vitest's own
 * summary, so that CI logs state the outcome in a form any reader or tool recognises. A file that
 * failed outside its tests (an import, or a `beforeAll` whose failure skips every test of the file)
 * and an unhandled error count as failures too, named after the tests: otherwise the line would
 * read "0 failed" beside a run that failed.
 */
export default class SummaryReporter implements Reporter {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
        let passed = 0;
        let failed = 0;
        let skipped = 0;
        let brokenFiles = 0;
        for (const module of testModules) {
            let failedHere = 0;
            for (const test of module.children.allTests()) {
                const state = test.result().state;
                if (state === 'passed') passed++;
                else if (state === 'failed') failedHere++;
                else skipped++;
            }
            failed += failedHere;
            if (failedHere === 0 && module.state() === 'failed') brokenFiles++;
        }
        const outside = [brokenFiles > 0 ? `${brokenFiles} file${brokenFiles === 1 ? '' : 's'} failed outside a test` : '', unhandledErrors.length > 0 ? `${unhandledErrors.length} unhandled error${unhandledErrors.length === 1 ? '' : 's'}` : ''].filter(Boolean);
        process.stdout.write(`\n${passed} passed, ${failed + brokenFiles + unhandledErrors.length} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${outside.length ? ` (${outside.join(', ')})` : ''}\n`);
    }
}
