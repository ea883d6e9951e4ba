import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../client/cli/cli-error.js';
import { parseDataSpec, parseSampleSpec, formatOf } from '../../client/cli/load-data.js';
import { typeCsvColumns as typeCsvEvents, csvNumber } from '../../language/ingest/parse-events.js';
import { parseIntOption, parseOutputFormat, queryTextFrom } from '../../client/cli/options.js';
import { parseTimeArg, resolveTimeRange } from '../../client/cli/time-arg.js';
import { formatQueryError, positionInMessage } from '../../client/cli/query-error.js';
import { samplesToLoad } from '../../client/cli/commands/run.js';
import { sniffContentKind, parseLabels } from '../../client/cli/commands/ingest.js';
import { clientFrom } from '../../client/cli/connection.js';

const NOW = 1_700_000_000_000n * 1_000_000n; // 2023-11-14T22:13:20Z

describe('time arguments', () => {
    it('parses RFC 3339, dates and now-relative times', () => {
        expect(parseTimeArg('2024-01-02T03:04:05.123456789Z', '--start')).toBe(1704164645123456789n);
        expect(parseTimeArg('2024-01-02T05:04:05+02:00', '--start')).toBe(1704164645000000000n);
        expect(parseTimeArg('2024-01-02', '--start')).toBe(1704153600000000000n);
        expect(parseTimeArg('now', '--end', NOW)).toBe(NOW);
        expect(parseTimeArg('now-1h', '--end', NOW)).toBe(NOW - 3_600_000_000_000n);
        expect(parseTimeArg('now-7d', '--end', NOW)).toBe(NOW - 7n * 86_400_000_000_000n);
        expect(parseTimeArg('now-1h30m', '--end', NOW)).toBe(NOW - 5_400_000_000_000n);
        expect(parseTimeArg('now+5m', '--end', NOW)).toBe(NOW + 300_000_000_000n);
    });
    it('rejects anything else with a CliError naming the option', () => {
        expect(() => parseTimeArg('yesterday', '--start')).toThrow(CliError);
        expect(() => parseTimeArg('yesterday', '--start')).toThrow(/--start 'yesterday'/);
        expect(() => parseTimeArg('now-1x', '--end')).toThrow(/unknown duration/);
        expect(() => parseTimeArg('2024-13-01', '--end')).toThrow(CliError);
    });
    it('resolves a range to RFC 3339 and checks its order', () => {
        expect(resolveTimeRange({ start: '2024-01-01', end: '2024-01-02T00:00:00.5Z' })).toMatchObject({
            startTime: '2024-01-01T00:00:00Z',
            endTime: '2024-01-02T00:00:00.5Z',
        });
        expect(resolveTimeRange({})).toMatchObject({ startTime: undefined, endTime: undefined });
        expect(() => resolveTimeRange({ start: '2024-01-02', end: '2024-01-01' })).toThrow(/after --end/);
    });
});

describe('option helpers', () => {
    it('parses integers within bounds', () => {
        expect(parseIntOption('--limit', '10', 1)).toBe(10);
        expect(() => parseIntOption('--limit', '0', 1)).toThrow(/--limit must be an integer >= 1/);
        expect(() => parseIntOption('--port', '70000', 0, 65535)).toThrow(/from 0 to 65535/);
        expect(() => parseIntOption('--limit', 'x')).toThrow(CliError);
    });
    it('checks the output format', () => {
        expect(parseOutputFormat(undefined)).toBe('table');
        expect(parseOutputFormat('csv')).toBe('csv');
        expect(() => parseOutputFormat('xml')).toThrow(/--format must be one of table, json, csv, tabular, legacy/);
    });
    it('takes the query from one argument or --file', () => {
        expect(queryTextFrom(['x | take 1'], undefined, 'usage')).toEqual({ name: '<query>', text: 'x | take 1' });
        expect(() => queryTextFrom([], undefined, 'usage')).toThrow(/missing the query/);
        expect(() => queryTextFrom(['a', 'b'], undefined, 'usage')).toThrow(/expected one query argument/);
        expect(() => queryTextFrom(['a'], 'f.apl', 'usage')).toThrow(/not both/);
        expect(() => queryTextFrom([], '/nonexistent/q.apl', 'usage')).toThrow(/no such file/);
        expect(() => queryTextFrom(['  '], undefined, 'usage')).toThrow(/empty/);
    });
    it('builds a client from flags and the environment', () => {
        expect(clientFrom({}, {}).url).toBe('http://127.0.0.1:8686');
        expect(clientFrom({}, { APL_URL: 'http://h:1/' }).url).toBe('http://h:1');
        expect(clientFrom({ url: 'localhost:9' }, { APL_URL: 'http://h:1' }).url).toBe('http://localhost:9');
        expect(() => clientFrom({ url: 'ftp://x' }, {})).toThrow(CliError);
    });
    it('AXIOM_URL, AXIOM_TOKEN and AXIOM_ORG_ID win over their APL_ aliases; an empty one counts as unset; flags win over both', async () => {
        const seen: IncomingHttpHeaders[] = [];
        const server = createServer((req, res) => {
            seen.push(req.headers);
            res.setHeader('Content-Type', 'application/json');
            res.end('[]');
        });
        await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        try {
            const both = { AXIOM_URL: url, APL_URL: 'http://127.0.0.1:9', AXIOM_TOKEN: 'xaat-axiom', APL_TOKEN: 'xaat-apl', AXIOM_ORG_ID: 'org-axiom', APL_ORG_ID: 'org-apl' };
            expect(clientFrom({}, both).url).toBe(url);
            await clientFrom({}, both).datasets.list();
            expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer xaat-axiom', 'x-axiom-org-id': 'org-axiom' });
            await clientFrom({}, { ...both, AXIOM_TOKEN: '', AXIOM_ORG_ID: '' }).datasets.list();
            expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer xaat-apl', 'x-axiom-org-id': 'org-apl' });
            await clientFrom({ token: 'xaat-flag', 'org-id': 'org-flag' }, both).datasets.list();
            expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer xaat-flag', 'x-axiom-org-id': 'org-flag' });
        } finally {
            server.close();
        }
    });
});

describe('apl run data options', () => {
    it('parses --data NAME=PATH', () => {
        expect(parseDataSpec('logs=./a=b.ndjson')).toEqual({ name: 'logs', path: './a=b.ndjson' });
        expect(() => parseDataSpec('logs')).toThrow(/NAME=PATH/);
        expect(() => parseDataSpec('=x')).toThrow(/NAME=PATH/);
        expect(() => parseDataSpec('logs=')).toThrow(/NAME=PATH/);
    });
    it('parses --sample NAME[:ROWS]', () => {
        const known = ['sample-http-logs', 'otel-demo-traces'];
        expect(parseSampleSpec('sample-http-logs', known)).toEqual({ name: 'sample-http-logs' });
        expect(parseSampleSpec('otel-demo-traces:500', known)).toEqual({ name: 'otel-demo-traces', rows: 500 });
        expect(() => parseSampleSpec('nope', known)).toThrow(/unknown sample dataset 'nope'/);
        expect(() => parseSampleSpec('otel-demo-traces:x', known)).toThrow(/ROWS must be/);
    });
    it('loads the samples the query names, unless --data is given', () => {
        expect(samplesToLoad("['sample-http-logs'] | take 1", [], []).map(s => s.name)).toEqual(['sample-http-logs']);
        expect(samplesToLoad("['sample-http-logs'] | take 1", [{ name: 'x', path: 'p' }], [])).toEqual([]);
        expect(samplesToLoad('x', [{ name: 'x', path: 'p' }], [{ name: 'otel-demo-traces', rows: 5 }])).toEqual([{ name: 'otel-demo-traces', rows: 5 }]);
    });
    it('types CSV columns as numbers or booleans only when every cell is one', () => {
        const events: Record<string, unknown>[] = [
            { n: '1', f: '1.5', b: 'true', zip: '007', mixed: '1', big: '12345678901234567890' },
            { n: '-2', f: '2e3', b: 'FALSE', zip: '10', mixed: 'x', big: '1' },
        ];
        typeCsvEvents(events);
        expect(events).toEqual([
            { n: 1, f: 1.5, b: true, zip: '007', mixed: '1', big: '12345678901234567890' },
            { n: -2, f: 2000, b: false, zip: '10', mixed: 'x', big: '1' },
        ]);
        expect(csvNumber('0.5')).toBe(0.5);
        expect(csvNumber('01')).toBeUndefined();
        expect(csvNumber('1e999')).toBeUndefined();
    });
    it('picks the body format from the extension or the first character', () => {
        expect(formatOf('a.csv', Buffer.from('{'))).toBe('csv');
        expect(formatOf('a.csv.gz', Buffer.from('{'))).toBe('csv');
        expect(formatOf('a.txt', Buffer.from('  [{}]'))).toBe('json');
        expect(formatOf('a.txt', Buffer.from('{"a":1}\n'))).toBe('json');
        expect(formatOf('a.txt', Buffer.from('a,b\n1,2'))).toBe('csv');
    });
});

describe('apl ingest helpers', () => {
    it('sniffs the content type', () => {
        expect(sniffContentKind(Buffer.from('[{"a":1}]'), 'x')).toBe('json');
        expect(sniffContentKind(Buffer.from('\n{"a":1}'), 'x.json')).toBe('ndjson');
        expect(sniffContentKind(Buffer.from('a,b'), 'x')).toBe('csv');
        expect(sniffContentKind(Buffer.from('{'), 'x.csv.gz')).toBe('csv');
    });
    it('parses labels', () => {
        expect(parseLabels(['region=eu', 'team:core'])).toEqual({ region: 'eu', team: 'core' });
        expect(parseLabels([])).toBeUndefined();
        expect(() => parseLabels(['nope'])).toThrow(/KEY=VALUE/);
    });
});

describe('query error format', () => {
    it('prints file:line:col, the line and a caret', () => {
        expect(formatQueryError('<query>', "a\n| wher x", 'bad', { line: 2, column: 3, endColumn: 7 })).toBe('<query>:2:3: error: bad\n2 | | wher x\n  |   ^^^^');
        expect(formatQueryError('q.apl', 'x', 'oops')).toBe('q.apl: error: oops');
    });
    it('finds positions in service messages', () => {
        expect(positionInMessage('invalid query: x (line 3, column 14)')).toEqual({ line: 3, column: 14 });
        expect(positionInMessage('nothing here')).toBeUndefined();
    });
});
