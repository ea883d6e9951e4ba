/** When a run's error and a language-server diagnostic mark the same spot (one problem, one diagnostic). */
import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', () => import('./__mocks__/vscode.js'));

import { sameSpot, type Span } from '../../../client/vscode/src/run-diagnostics.js';

const span = (line: number, from: number, to: number, endLine = line): Span => ({ start: { line, character: from }, end: { line: endLine, character: to } });

describe('sameSpot', () => {
    it.each([
        ['overlapping ranges on one line', span(2, 4, 10), span(2, 8, 12), true],
        ['one range inside the other', span(2, 4, 10), span(2, 5, 6), true],
        ['ranges that only touch', span(2, 4, 10), span(2, 10, 12), false],
        ['ranges on different lines', span(2, 4, 10), span(3, 4, 10), false],
        ['an empty range inside a range', span(2, 6, 6), span(2, 4, 10), true],
        ['an empty range at the end of a range', span(2, 4, 10), span(2, 10, 10), true],
        ['an empty range past a range', span(2, 11, 11), span(2, 4, 10), false],
        ['a range over two lines and one starting on its first', span(2, 4, 1, 3), span(2, 6, 7), true],
    ])('%s', (_what, a, b, same) => {
        expect(sameSpot(a, b)).toBe(same);
        expect(sameSpot(b, a)).toBe(same);
    });
});
