/**
 * Terminal tables as the built `apl` prints them: readable widths on a narrow terminal (columns that
 * do not fit are left out, and the footer says how many and how to see them), and the totals of a
 * time-binned result labelled in words (json and csv say on stderr where they went).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAplServe, type AplServe } from '../support/apl-serve.js';
import { runApl } from '../support/cli.js';
import { displayWidth } from '../../client/cli/render.js';

const SAMPLE_FIELDS = 16;
let dir: string;
let server: AplServe;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apl-tables-'));
    server = await startAplServe(['--data', join(dir, 'data')], { AXIOM_TOKEN: 'xaat-tables' });
    env = { AXIOM_URL: server.url, AXIOM_TOKEN: 'xaat-tables' };
});

afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
});

/** The header names, the cells of the first row and the footer of a table printed by the CLI. */
function parseTable(stdout: string): { headers: string[]; lines: string[]; footer: string } {
    const lines = stdout.trimEnd().split('\n');
    const last = lines.map(l => /^\d+ rows?\b/.test(l)).lastIndexOf(true);
    return { headers: lines[0].trim().split(/\s{2,}/), lines, footer: lines.slice(last).join('\n') };
}

describe('a wide result on a narrow terminal', () => {
    for (const [command, width] of [['run', 80], ['query', 60]] as const) {
        it(`apl ${command} --width ${width} "['sample-http-logs'] | take 3": whole headers, readable cells, the columns left out counted in the footer`, () => {
            const r = runApl([command, '--width', String(width), "['sample-http-logs'] | sort by _time desc | take 3"], { env });
            expect(r.code, r.stderr).toBe(0);
            const { headers, lines, footer } = parseTable(r.stdout);
            for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
            expect(headers[0]).toBe('_time');
            for (const h of headers) expect(h).not.toContain('…');
            // The time is cut no shorter than the second.
            expect(lines[2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
            const dropped = SAMPLE_FIELDS - headers.length;
            expect(dropped).toBeGreaterThan(0);
            expect(footer).toBe(`3 rows; ${dropped} of ${SAMPLE_FIELDS} columns not shown\n(see them: --format json, --width N, | project)`);
        });
    }

    it('COLUMNS=200: every column is shown and nothing is cut below its readable width', () => {
        const r = runApl(['run', "['sample-http-logs'] | take 3 | project _time, status, method, uri, ['geo.city']"], { env: { COLUMNS: '200' } });
        const { headers, footer } = parseTable(r.stdout);
        expect(headers).toEqual(['_time', 'status', 'method', 'uri', 'geo.city']);
        expect(footer).toBe('3 rows');
    });
});

describe('the totals of a time-binned result', () => {
    const query = "['sample-http-logs'] | summarize n = count() by bin(_time, 7d)";
    for (const command of ['run', 'query'] as const) {
        it(`apl ${command} "${query}": the tables are titled in words`, () => {
            const r = runApl([command, query], { env });
            expect(r.code, r.stderr).toBe(0);
            expect(r.stdout).toMatch(/^# Per time bin\n_time\s+n\n/);
            expect(r.stdout).toMatch(/\n# Totals over the whole range\n\s*n\n─+\n\s*10000\n1 row\n$/);
            expect(r.stdout).not.toContain('_totals');
        });

        for (const format of ['json', 'csv'] as const) {
            it(`apl ${command} --format ${format} "${query}": stderr says where the totals went`, () => {
                const r = runApl([command, '--format', format, query], { env });
                expect(r.code).toBe(0);
                expect(r.stderr).toBe(`apl ${command}: note: ${format} holds the first table only; the totals over the whole range (table _totals) are in --format tabular, or drop bin()/bin_auto() from the summarize\n`);
            });
        }
    }
});
