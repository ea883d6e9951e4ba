/**
 * Every fenced code block in README.md and docs/*.md is run here, so no example can drift from
 * what the tools do. A block that cannot run says so on the line before its fence:
 * `<!-- docs-test: skip (why) -->`. By the fence's language:
 *
 * - `console`: each `$ command` runs in bash with the built `apl` on the PATH; the lines under it
 *   are its output (stdout and stderr), compared exactly;
 * - `sh`: the block runs in bash (`set -euo pipefail`) against a spawned `apl serve`, and exits 0;
 * - `js`, `ts`: the block runs with Node (ts through tsx) from the package root, against the same
 *   service; a `// …` comment on a `console.log(…)` line, or the comment lines right under it,
 *   is what it prints;
 * - `json`: parses; `toml`: parses (smol-toml); `<!-- docs-test: schema-error -->`: the schema
 *   error message shown is the one parseSchemaJson gives.
 *
 * In `sh`, `js` and `ts` blocks, `http://127.0.0.1:8686` stands for the spawned service and
 * `xaat-…` for its token. Files the examples name (events.ndjson, errors.apl, messy.apl) are made
 * in the scratch folder the commands run in.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchemaJson } from '../language/schema/index.js';
import { startAplServe, type AplServe } from './support/apl-serve.js';
import { APL_BIN, REPO_ROOT } from './support/cli.js';

interface Block {
    file: string;
    line: number;
    lang: string;
    code: string;
    marker?: string;
}

function blocksOf(file: string): Block[] {
    const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
    const out: Block[] = [];
    for (let i = 0; i < lines.length; i++) {
        const open = /^```(\S*)\s*$/.exec(lines[i]);
        if (!open) continue;
        const end = lines.findIndex((l, k) => k > i && l.startsWith('```'));
        if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
        const marker = /^<!-- docs-test: (.*) -->$/.exec(lines[i - 1] ?? '')?.[1];
        out.push({ file, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join('\n'), marker });
        i = end;
    }
    return out;
}

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)];
const BLOCKS = FILES.flatMap(blocksOf);

/** The files the examples name, made in the folder the commands run in. */
const FIXTURES: Record<string, string> = {
    'events.ndjson': [
        { _time: '2024-05-01T10:00:00Z', level: 'info', msg: 'hello' },
        { _time: '2024-05-01T10:00:02Z', level: 'error', msg: 'boom' },
        { _time: '2024-05-01T10:00:05Z', level: 'info', msg: 'created' },
    ]
        .map(e => JSON.stringify(e))
        .join('\n'),
    'errors.apl': "['sample-http-logs']\n| where status ==\n",
    'messy.apl': "['sample-http-logs'] | where status=='500'|summarize count() by method\n",
};

let work: string;
let bin: string;
let server: AplServe;
const TOKEN = 'xaat-docs-examples';

beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'apl-docs-'));
    for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(work, name), text);
    // `apl` on the PATH, as after `npm install -g .`
    bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'apl'), `#!/bin/sh\nexec "${process.execPath}" "${APL_BIN}" "$@"\n`);
    chmodSync(join(bin, 'apl'), 0o755);
    server = await startAplServe(['--data', join(work, 'data'), '--no-samples'], { APL_TOKEN: TOKEN });
});

afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    APL_TOKEN: TOKEN,
    AXIOM_TOKEN: TOKEN,
    APL_URL: server.url,
    AXIOM_URL: server.url,
    COLUMNS: '',
    NO_COLOR: '1',
});

/** The placeholders: the documented address and token stand for the spawned service's. */
const localize = (code: string) => code.replaceAll('http://127.0.0.1:8686', server.url).replaceAll('xaat-…', TOKEN);

function bash(script: string): { status: number | null; output: string } {
    const r = spawnSync('bash', ['-c', script], { cwd: work, env: env(), encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, output: (r.stdout ?? '') + (r.stderr ?? '') };
}

/** `$ command` (with `\` continuation lines) and the output under it. */
function consoleSteps(code: string): { command: string; expected: string }[] {
    const steps: { command: string; expected: string[] }[] = [];
    const lines = code.split('\n');
    for (let i = 0; i < lines.length; i++) {
        if (lines[i].startsWith('$ ')) {
            let command = lines[i].slice(2);
            // A line ending in `\` goes on: bash reads backslash-newline as a continuation too.
            while (command.endsWith('\\') && i + 1 < lines.length) command += '\n' + lines[++i];
            steps.push({ command, expected: [] });
        } else {
            if (steps.length === 0) throw new Error(`output before the first '$ ' line: ${lines[i]}`);
            steps[steps.length - 1].expected.push(lines[i]);
        }
    }
    return steps.map(s => ({ command: s.command, expected: s.expected.join('\n') }));
}

/** What a js/ts block says it prints: the comment on or right under each console.log line. */
function printedComments(code: string): string[] {
    const out: string[] = [];
    const lines = code.split('\n');
    lines.forEach((line, i) => {
        if (!/console\.log\(/.test(line)) return;
        const inline = /\)\s*;?\s*\/\/\s*(.*)$/.exec(line)?.[1];
        if (inline !== undefined) {
            out.push(inline);
            return;
        }
        const below: string[] = [];
        for (let k = i + 1; k < lines.length && /^\s*\/\/ /.test(lines[k]); k++) below.push(lines[k].replace(/^\s*\/\/ /, ''));
        if (below.length) out.push(below.join(' '));
    });
    return out;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function runScript(block: Block, n: number): void {
    const ext = block.lang === 'ts' ? 'ts' : 'mjs';
    // From the package root: `apl-tools` and `@axiomhq/js` resolve, and so do './server/…' imports.
    const file = join(REPO_ROOT, `.docs-example-${process.pid}-${n}.${ext}`);
    writeFileSync(file, localize(block.code));
    try {
        const args = block.lang === 'ts' ? ['--import', 'tsx', file] : [file];
        const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, env: env(), encoding: 'utf8', timeout: 60_000 });
        expect(r.stderr, r.stdout).toBe('');
        expect(r.status).toBe(0);
        const expected = printedComments(block.code);
        if (expected.length > 0) expect(squash(r.stdout)).toBe(squash(expected.join(' ')));
    } finally {
        rmSync(file, { force: true });
    }
}

describe('every code block in README.md and docs/ runs as shown', () => {
    it('the blocks are found, and only a few are marked as not run', () => {
        expect(BLOCKS.length).toBeGreaterThan(25);
        const skipped = BLOCKS.filter(b => b.marker?.startsWith('skip'));
        expect(skipped.length).toBeLessThanOrEqual(12);
        for (const b of skipped) expect(b.marker, `${b.file}:${b.line}`).toMatch(/^skip \(.+\)$/);
    });

    BLOCKS.forEach((block, n) => {
        const title = `${block.file}:${block.line} ${block.lang || 'text'}${block.marker ? ` (${block.marker})` : ''}`;
        if (block.marker?.startsWith('skip')) return;
        if (block.marker?.startsWith('neovim')) {
            it(`${title}: test/editors/neovim.test.ts runs it`, () => {
                expect(block.lang).toBe('lua');
                expect(existsSync(join(REPO_ROOT, 'test/editors/neovim.test.ts'))).toBe(true);
            });
            return;
        }
        it(title, () => {
            if (block.marker === 'schema-error') {
                const shown = block.code.trim();
                const [source, rest] = shown.split(/: (.*)/s);
                const field = /datasets\["([^"]+)"\]\.(\w+): unknown field type '(\w+)'/.exec(rest);
                expect(field, shown).not.toBeNull();
                let message = '';
                try {
                    parseSchemaJson(JSON.stringify({ datasets: { [field![1]]: { [field![2]]: field![3] } } }), source);
                } catch (e) {
                    message = (e as Error).message;
                }
                expect(message.startsWith(shown.replace(/\.\.\.$/, ''))).toBe(true);
                return;
            }
            switch (block.lang) {
                case 'console':
                    for (const step of consoleSteps(block.code)) {
                        const r = bash(step.command);
                        expect(r.output.replace(/\n$/, ''), `$ ${step.command}`).toBe(step.expected);
                    }
                    return;
                case 'sh':
                case 'bash': {
                    const r = bash(`set -euo pipefail\n${localize(block.code)}`);
                    expect(r.status, r.output).toBe(0);
                    return;
                }
                case 'js':
                case 'ts':
                    runScript(block, n);
                    return;
                case 'json':
                    expect(() => JSON.parse(block.code)).not.toThrow();
                    if (block.file === 'docs/schema-file.md') expect(parseSchemaJson(block.code, 'schema.json').length).toBeGreaterThan(0);
                    return;
                case 'toml':
                    expect(() => parseToml(block.code)).not.toThrow();
                    return;
                default:
                    throw new Error(`${title}: no way to run a '${block.lang}' block; run it here or mark it <!-- docs-test: skip (why) -->`);
            }
        });
    });
});
