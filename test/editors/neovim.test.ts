/**
 * The Neovim set-up of docs/editors.md, as written there (its `lua` block marked
 * `docs-test: neovim`), run in a real Neovim: `nvim --headless` with that block as its init.lua,
 * the built `apl-language-server --stdio` on the PATH, and real .apl files in a project folder.
 * A Lua script of the test's own opens them and writes what the editor got to a JSON file:
 * the diagnostics of a file with a syntax error, the completion items after `|`, and the
 * diagnostics of a file in a second project whose schema.json names its datasets.
 *
 * Neovim is Debian's package (0.7.2 on Debian 12, what CI runs on), installed when missing by
 * scripts/provision-neovim.sh. APL_SKIP_NEOVIM_TESTS=1 skips this file (loudly).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

const SKIP = process.env.APL_SKIP_NEOVIM_TESTS === '1';

/** The block of docs/editors.md marked `<!-- docs-test: neovim … -->`. */
function documentedConfig(): string {
    const lines = readFileSync(join(REPO_ROOT, 'docs/editors.md'), 'utf8').split('\n');
    const marker = lines.findIndex(l => l.startsWith('<!-- docs-test: neovim'));
    if (marker < 0 || lines[marker + 1] !== '```lua') throw new Error('docs/editors.md has no ```lua block marked <!-- docs-test: neovim … -->');
    const end = lines.findIndex((l, i) => i > marker + 1 && l.startsWith('```'));
    return lines.slice(marker + 2, end).join('\n');
}

/** Runs in Neovim after the documented init.lua; paths come from the environment. */
const CHECK_LUA = String.raw`
local out = { version = vim.fn.matchstr(vim.fn.execute('version'), 'NVIM v\\S\\+') }
local function clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = 0 }) end
  return vim.lsp.buf_get_clients(0)
end
local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(found, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL)
  end
  return found
end
local function has(list, value)
  for _, v in ipairs(list) do if v == value then return true end end
  return false
end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('APL_ERROR_FILE')))
out.filetype = vim.bo.filetype
vim.wait(60000, function() return has(codes(), 'APL1001') end, 50)
out.diagnostics = codes()
out.clientNames = {}
for _, c in pairs(clients()) do table.insert(out.clientNames, c.name) end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('APL_COMPLETE_FILE')))
vim.wait(60000, function() return next(clients()) ~= nil end, 50)
out.clientsAfterSecondFile = 0
for _ in pairs(clients()) do out.clientsAfterSecondFile = out.clientsAfterSecondFile + 1 end
local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 1, character = 2 } }
local replies = vim.lsp.buf_request_sync(0, 'textDocument/completion', params, 60000) or {}
out.completion = {}
for _, reply in pairs(replies) do
  local result = reply.result or {}
  for _, item in ipairs(result.items or result) do table.insert(out.completion, item.label) end
end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('APL_SCHEMA_PROJECT_FILE')))
vim.wait(60000, function() return has(codes(), 'APL0012') end, 50)
out.schemaProjectDiagnostics = codes()

local f = assert(io.open(os.getenv('APL_RESULT_FILE'), 'w'))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
`;

interface NeovimResult {
    version: string;
    filetype: string;
    diagnostics: (string | null)[];
    clientNames: string[];
    clientsAfterSecondFile: number;
    completion: string[];
    schemaProjectDiagnostics: (string | null)[];
}

let work: string;
let nvim: string;
let result: NeovimResult;
let stderr: string;

beforeAll(() => {
    if (SKIP) return;
    const provision = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'provision-neovim.sh')], { encoding: 'utf8', timeout: 10 * 60_000 });
    if (provision.status !== 0) throw new Error(`the Neovim test cannot run: provisioning failed (exit ${provision.status}).\n${provision.stderr}\nSet APL_SKIP_NEOVIM_TESTS=1 to skip it.`);
    nvim = provision.stdout.trim().split('\n').pop()!;

    work = mkdtempSync(join(tmpdir(), 'apl-neovim-'));
    // `apl-language-server` on the PATH, as after `npm install -g .`
    const bin = join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(join(REPO_ROOT, 'out', 'apl-language-server.cjs'), join(bin, 'apl-language-server'));
    const project = join(work, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, 'queries'));
    const errorFile = join(project, 'queries', 'broken.apl');
    writeFileSync(errorFile, "['sample-http-logs']\n| where status ==\n");
    const completeFile = join(project, 'queries', 'complete.apl');
    writeFileSync(completeFile, "['sample-http-logs']\n| \n");
    // A second project, with a schema of its own datasets at its root: the documented set-up passes it.
    const schemaProject = join(work, 'with-schema');
    mkdirSync(join(schemaProject, '.git'), { recursive: true });
    writeFileSync(join(schemaProject, 'schema.json'), JSON.stringify({ datasets: { 'my-logs': { level: 'string' } } }));
    const schemaProjectFile = join(schemaProject, 'q.apl');
    writeFileSync(schemaProjectFile, "['my-logs'] | where levle == 'error'\n");
    writeFileSync(join(work, 'init.lua'), documentedConfig());
    writeFileSync(join(work, 'check.lua'), CHECK_LUA);
    const resultFile = join(work, 'result.json');
    const home = join(work, 'home');
    const r = spawnSync(nvim, ['--headless', '-i', 'NONE', '-u', join(work, 'init.lua'), '-c', `luafile ${join(work, 'check.lua')}`], {
        cwd: project,
        encoding: 'utf8',
        timeout: 5 * 60_000,
        env: {
            ...process.env,
            PATH: `${bin}:${process.env.PATH}`,
            HOME: home,
            XDG_CONFIG_HOME: join(home, 'config'),
            XDG_DATA_HOME: join(home, 'data'),
            XDG_STATE_HOME: join(home, 'state'),
            XDG_CACHE_HOME: join(home, 'cache'),
            APL_ERROR_FILE: errorFile,
            APL_COMPLETE_FILE: completeFile,
            APL_SCHEMA_PROJECT_FILE: schemaProjectFile,
            APL_RESULT_FILE: resultFile,
        },
    });
    stderr = `${r.stdout}\n${r.stderr}`;
    if (!existsSync(resultFile)) throw new Error(`nvim wrote no result (exit ${r.status ?? r.signal}):\n${stderr}`);
    result = JSON.parse(readFileSync(resultFile, 'utf8')) as NeovimResult;
}, 15 * 60_000);

afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(SKIP)("Neovim with docs/editors.md's set-up, against the built apl-language-server", () => {
    it('.apl files get the filetype apl and one client named apl, shared by the files of a project', () => {
        expect(result.filetype).toBe('apl');
        expect(result.clientNames).toEqual(['apl']);
        expect(result.clientsAfterSecondFile).toBe(1);
    });

    it("['sample-http-logs'] | where status ==  (a syntax error: APL1001 arrives as a diagnostic)", () => {
        expect(result.diagnostics, stderr).toContain('APL1001');
    });

    it("['sample-http-logs'] |   (completion after the pipe offers where)", () => {
        expect(result.completion, stderr).toContain('where');
    });

    it("['my-logs'] | where levle == 'error'  (in a project with a schema.json: the field is unknown, APL0012)", () => {
        expect(result.schemaProjectDiagnostics, stderr).toContain('APL0012');
    });
});

if (SKIP) {
    describe('Neovim', () => {
        it.skip('SKIPPED: the Neovim set-up of docs/editors.md (APL_SKIP_NEOVIM_TESTS=1)', () => undefined);
    });
}
