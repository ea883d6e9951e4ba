/**
 * `apl run --notebook FILE.aplnb` with the BUILT bin: the APL cells run in order as one script (a
 * `let` and a `// as NAME` result of a cell reach the cells below), an error is reported at the
 * cell's own line, and `--update` writes each cell's snapshot back into the file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNotebook, serializeNotebook, type AplNotebook } from '../../client/notebook/aplnb.js';
import { runApl } from '../support/cli.js';
import { spawnServer, type ChildServer } from '../server/http/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'apl-notebook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOTEBOOK: AplNotebook = {
    format: 1,
    cells: [
        { kind: 'markdown', text: '# Server errors' },
        { kind: 'apl', text: "let server_error = '500';" },
        { kind: 'apl', text: "// as errors\n['sample-http-logs'] | where status == server_error" },
        { kind: 'apl', text: 'errors\n| summarize n = count()' },
        { kind: 'apl', text: 'errors\n| where nosuchfield > 1' },
    ],
};

function notebookFile(name: string, nb: AplNotebook = NOTEBOOK): string {
    const path = join(dir, name);
    writeFileSync(path, serializeNotebook(nb));
    return path;
}

describe('apl run --notebook', () => {
    it('runs the APL cells in order: errors | summarize n = count() counts the rows of the // as errors cell', () => {
        const file = notebookFile('report.aplnb');
        const direct = runApl(['run', '--format', 'json', "['sample-http-logs'] | where status == '500' | summarize n = count()"]);
        const n = (JSON.parse(direct.stdout) as { n: number }[])[0].n;
        const r = runApl(['run', '--notebook', file, '--width', '200']);
        expect(r.stdout).toContain('# Cell 4 (APL 3 of 4)');
        expect(r.stdout).toMatch(new RegExp(`\\b${n}\\b`));
        // The error is at the cell's own line 2 (not the script's, which has the prelude above it).
        expect(r.stderr).toContain(`${file} cell 5:2:`);
        expect(r.code).toBe(1);
    });

    it('--update writes every APL cell a snapshot, the failing one its error at the cell position', () => {
        const file = notebookFile('update.aplnb');
        const r = runApl(['run', '--notebook', file, '--update']);
        expect(r.code).toBe(1);
        const nb = parseNotebook(readFileSync(file, 'utf8'));
        const outputs = nb.cells.map(c => (c.kind === 'apl' ? c.output : undefined));
        expect(outputs[0]).toBeUndefined();
        expect(outputs[1]?.tables).toEqual([]);
        expect(outputs[3]?.tables[0].fields.map(f => f.name)).toEqual(['n']);
        expect(outputs[4]?.error).toMatchObject({ line: 2 });
        expect(nb.cells.map(c => c.text)).toEqual(NOTEBOOK.cells.map(c => c.text));
    });

    it("['sample-http-logs'] | summarize n = count() by bin(_time, 1h), method: --update keeps the chart's column, --export writes Markdown with the chart as an SVG beside it", () => {
        const nb: AplNotebook = {
            format: 1,
            timeRange: { start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' },
            cells: [
                { kind: 'markdown', text: '# By hour' },
                { kind: 'apl', text: "['sample-http-logs'] | summarize n = count() by bin(_time, 1h), method" },
                { kind: 'apl', text: "['sample-http-logs'] | take 3" },
            ],
        };
        const file = notebookFile('chart.aplnb', nb);
        const md = join(dir, 'out', 'chart report.md');
        const r = runApl(['run', '--notebook', file, '--update', '--export', md]);
        expect(r.code, r.stderr).toBe(0);
        const saved = parseNotebook(readFileSync(file, 'utf8')).cells.map(c => (c.kind === 'apl' ? c.output : undefined));
        expect(saved[1]?.chart).toEqual({ timeColumn: '_time' });
        expect(saved[2]?.chart).toBeUndefined();
        expect(readFileSync(md, 'utf8')).toContain('![Chart of cell 2](chart%20report-cell-2.svg)');
        expect(readFileSync(join(dir, 'out', 'chart report-cell-2.svg'), 'utf8')).toMatch(/^<svg /);
        expect(existsSync(join(dir, 'out', 'chart report-cell-3.svg'))).toBe(false);
        expect(r.stderr).toContain(`exported the notebook to ${md}`);
        const ipynb = join(dir, 'out', 'chart.ipynb');
        expect(runApl(['run', '--notebook', file, '--export', ipynb]).code).toBe(0);
        expect(readFileSync(ipynb, 'utf8')).toContain('image/svg+xml');
        expect(runApl(['run', '--notebook', file, '--export', join(dir, 'x.txt')]).stderr).toContain('--export');
        expect(runApl(['run', '--export', md, "['sample-http-logs'] | count"]).code).toBe(2);
    });

    it('a file that is not a notebook is refused naming the field (exit 2)', () => {
        const path = join(dir, 'bad.aplnb');
        writeFileSync(path, '{"format":1,"cells":[{"kind":"apl"}]}');
        const r = runApl(['run', '--notebook', path]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('cells[0].text');
    });

    it('--format json with several APL cells is refused; --update without --notebook too', () => {
        expect(runApl(['run', '--notebook', notebookFile('json.aplnb'), '--format', 'json']).code).toBe(2);
        expect(runApl(['run', '--update', "['sample-http-logs'] | count"]).code).toBe(2);
    });
});

describe('apl run --notebook --url (a real apl serve)', () => {
    const TOKEN = 'xaat-notebook-test-token';
    let server: ChildServer;
    const env = { AXIOM_TOKEN: TOKEN };
    const events = Array.from({ length: 300 }, (_, i) => JSON.stringify({ _time: new Date(Date.now() - i * 60_000).toISOString(), status: i % 3 === 0 ? '500' : '200', i })).join('\n');
    const nb: AplNotebook = {
        format: 1,
        cells: [
            { kind: 'apl', text: "let server_error = '500';" },
            { kind: 'apl', text: "// as errors\n['logs'] | where status == server_error" },
            { kind: 'apl', text: 'errors\n| summarize n = count()' },
            { kind: 'apl', text: 'errors\n| where nosuchfield > 1' },
        ],
    };

    beforeAll(async () => {
        server = await spawnServer({ dataDir: join(dir, 'data'), token: TOKEN, bundled: true });
        const file = join(dir, 'logs.ndjson');
        writeFileSync(file, events);
        const ingest = runApl(['ingest', '--url', server.url, '--create', 'logs', file], { env });
        expect(ingest.code, ingest.stderr).toBe(0);
    }, 90_000);

    afterAll(async () => {
        await server?.stop();
    });

    it("errors | summarize n = count()  on the service: the rows of the // as errors cell, snapshots saying where they ran, no token in the file", () => {
        const file = notebookFile('service.aplnb', nb);
        const r = runApl(['run', '--notebook', file, '--url', server.url, '--start', 'now-1d', '--update'], { env });
        expect(r.code, r.stderr).toBe(1);
        const saved = readFileSync(file, 'utf8');
        expect(saved).not.toContain(TOKEN);
        const cells = parseNotebook(saved).cells.map(c => (c.kind === 'apl' ? c.output : undefined));
        expect(cells[2]?.ranOn).toBe(server.url.replace(/\/$/, ''));
        expect(cells[2]?.tables[0].rows).toEqual([[100]]);
        // The service's error, at the cell's own line 2.
        expect(cells[3]?.error?.line).toBe(2);
        expect(r.stderr).toContain(`${file} cell 4:2:`);
    });

    it('--url with --data is refused; --url without --notebook too (exit 2)', () => {
        expect(runApl(['run', '--notebook', notebookFile('svc2.aplnb', nb), '--url', server.url, '--data', `x=${join(dir, 'logs.ndjson')}`], { env }).code).toBe(2);
        expect(runApl(['run', '--url', server.url, "['logs'] | count"], { env }).code).toBe(2);
    });
});
