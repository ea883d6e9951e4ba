/** The `apl` entry point as a new user meets it: version, help, mistakes, and `| head`. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runApl } from '../support/cli.js';
import { runAplIntoClosedPipe } from '../support/closed-pipe.js';

const VERSION = (JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as { version: string }).version;

describe('apl with no command, --version and help', () => {
    it('apl --version and apl -V print the package version', () => {
        for (const flag of ['--version', '-V']) {
            const r = runApl([flag]);
            expect(r.code).toBe(0);
            expect(r.stdout).toBe(`apl ${VERSION}\n`);
        }
    });

    it('a bare apl prints the help and exits 2', () => {
        const r = runApl([]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('Usage: apl <command>');
    });

    it('the top-level help lists every command, token revoke and datasets included', () => {
        const r = runApl(['--help']);
        expect(r.code).toBe(0);
        for (const command of ['check', 'fmt', 'run', 'explain', 'translate', 'serve', 'token', 'query', 'ingest', 'datasets']) expect(r.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
        expect(r.stdout).toMatch(/token .*revoke/);
    });

    it('apl help run prints the run usage, with --seed and --timestamp-field', () => {
        const r = runApl(['help', 'run']);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('--seed N');
        expect(r.stdout).toContain('--timestamp-field');
        expect(r.stdout).toContain('--timestamp-format');
    });

    it('apl help nosuch says so and exits 2', () => {
        const r = runApl(['help', 'nosuch']);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe("apl: no help for an unknown command 'nosuch'\nRun 'apl --help' for the commands.\n");
    });

    it('apl chek: one line with did you mean, a pointer to --help, exit 2', () => {
        const r = runApl(['chek']);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe("apl: unknown command 'chek' (did you mean 'check'?)\nRun 'apl --help' for the commands.\n");
        expect(r.stdout).toBe('');
    });

    it('apl help chek suggests check too', () => {
        const r = runApl(['help', 'chek']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain("(did you mean 'check'?)");
    });
});

describe('a wrong flag: one line in our words, did you mean, a pointer to --help, exit 2', () => {
    const cases: [string[], string][] = [
        [['run', '--dataset', 'x=y.ndjson', "['x'] | count"], "apl run: unknown option '--dataset' (did you mean '--data'?)\nRun 'apl run --help' for the options.\n"],
        [['query', '--fromat', 'json', "['x']"], "apl query: unknown option '--fromat' (did you mean '--format'?)\nRun 'apl query --help' for the options.\n"],
        [['ingest', 'x', 'f.ndjson', '--delimiter', ';'], "apl ingest: unknown option '--delimiter' (did you mean '--csv-delimiter'?)\nRun 'apl ingest --help' for the options.\n"],
        [['datasets', 'trim', 'x', '--max-age', '1d'], "apl datasets: unknown option '--max-age' (did you mean '--max-duration'?)\nRun 'apl datasets --help' for the options.\n"],
        [['check', '--schemas', 's.json', 'a.apl'], "apl check: unknown option '--schemas' (did you mean '--schema'?)\nRun 'apl check --help' for the options.\n"],
        [['serve', '--prot', '1'], "apl serve: unknown option '--prot' (did you mean '--port'?)\nRun 'apl serve --help' for the options.\n"],
        [['fmt', '-x'], "apl fmt: unknown option '-x'\nRun 'apl fmt --help' for the options.\n"],
        [['run', '--data'], "apl run: the option '--data' needs a value\nRun 'apl run --help' for the options.\n"],
        [['query', '-f'], "apl query: the option '--file' needs a value\nRun 'apl query --help' for the options.\n"],
        [['query', '--all=yes', "['x']"], "apl query: the option '--all' takes no value\nRun 'apl query --help' for the options.\n"],
        [['datasets', 'lst'], "apl datasets: 'lst' is not a subcommand of apl datasets (did you mean 'list'?); use list, create, info, schema, trim, delete\nRun 'apl datasets --help' for the options.\n"],
        [['run'], "apl run: missing the query (an argument, or --file F)\nRun 'apl run --help' for the options.\n"],
        [['ingest', 'logs'], "apl ingest: missing FILE (a path, or - for standard input)\nRun 'apl ingest --help' for the options.\n"],
    ];
    for (const [args, message] of cases) {
        it(`apl ${args.join(' ')}`, () => {
            const r = runApl(args, { env: { AXIOM_URL: 'http://127.0.0.1:9' } });
            expect(r.stderr).toBe(message);
            expect(r.code).toBe(2);
            expect(r.stdout).toBe('');
        });
    }

    it('apl token delete x says delete is not a subcommand and lists create, list, revoke', () => {
        const r = runApl(['token', 'delete', 'x', '--data', '/nonexistent/apl-data']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain("'delete' is not a subcommand of apl token; use create, list, revoke");
        expect(r.stderr).toContain('apl token revoke ID');
        expect(r.stderr).not.toContain("unexpected argument 'x'");
    });
});

describe('a reader that closes the pipe early (apl … | head)', () => {
    it('apl run --format csv … | head ends quietly with exit 0', async () => {
        const r = await runAplIntoClosedPipe(['run', '--format', 'csv', '--limit', '50000', "['sample-http-logs'] | take 50000"]);
        expect(r.head.split('\n')[0]).toMatch(/^_time,/);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
    });

    it('apl run (table) … | head ends quietly with exit 0', async () => {
        const r = await runAplIntoClosedPipe(['run', '--limit', '50000', "['sample-http-logs'] | take 50000"]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
    });
});
