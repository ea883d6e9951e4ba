/**
 * `npm run prepare` (scripts/prepare.mjs) builds only when an input changed: `npx apl` in a clone
 * that is already built starts at once instead of rebuilding for ~20 s. Run on a scratch folder
 * with a stand-in build, so the test never rebuilds the real out/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without type declarations
import { OUTPUTS, prepare } from '../../scripts/prepare.mjs';

let root: string;
let builds: number;
const logs: string[] = [];

const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
};
/** The stand-in build: writes every output, like `npm run build`. */
const build = (): boolean => {
    builds++;
    for (const o of OUTPUTS as string[]) write(o, `built ${builds}`);
    return true;
};
const run = (): boolean => (prepare as (root: string, build: () => boolean, log: (m: string) => void) => boolean)(root, build, m => logs.push(m));

beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'apl-prepare-'));
    builds = 0;
    logs.length = 0;
    write('package.json', '{"name":"x"}');
    write('language/apl.langium', 'grammar Apl');
    write('client/cli/main.ts', 'export {}');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('prepare', () => {
    it('builds a fresh clone, then skips while no input changes', () => {
        expect(run()).toBe(true);
        expect(builds).toBe(1);
        expect(run()).toBe(true);
        expect(builds).toBe(1);
        expect(logs.at(-1)).toContain('up to date');
    });

    it('rebuilds when a source file changes, is added, or a generated file is all that changed (no rebuild)', () => {
        run();
        write('client/cli/main.ts', 'export const x = 1;');
        run();
        expect(builds).toBe(2);
        write('server/http/new.ts', 'export {}');
        run();
        expect(builds).toBe(3);
        write('language/generated/ast.ts', 'generated');
        write('language/parser/apl-lookahead.generated.ts', 'generated');
        run();
        expect(builds).toBe(3);
    });

    it('rebuilds when an output is missing', () => {
        run();
        rmSync(join(root, 'out/apl.cjs'));
        run();
        expect(builds).toBe(2);
    });

    it('a failed build writes no stamp, so the next prepare builds again', () => {
        const failing = () => {
            builds++;
            return false;
        };
        expect((prepare as (r: string, b: () => boolean, l: (m: string) => void) => boolean)(root, failing, () => undefined)).toBe(false);
        run();
        expect(builds).toBe(2);
    });
});
