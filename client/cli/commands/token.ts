import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CliError } from '../cli-error.js';
import { terminalText } from '../terminal-text.js';
import { helpPointer } from '../usage-error.js';
import { resolveDataDir, TokenStore } from './serve.js';

export const TOKEN_USAGE = `apl token create [--data DIR] [--name NAME]
apl token list [--data DIR]
apl token revoke ID [--data DIR]

Manages the API tokens of a service data directory (default APL_DATA_DIR or ./.apl-data).
  create   makes a new xaat-… token and prints it once on stdout; only its hash is stored.
           A running 'apl serve' on the same directory accepts it at once.
  list     prints the id, name and creation time of each stored token (never the tokens).
  revoke   deletes the stored token with that id (from 'list'); a running 'apl serve' on the same
           directory stops accepting it within a second.
  --data DIR    the data directory
  --name NAME   a label for the token (default 'cli')`;

const TOKEN_SUBCOMMANDS = ['create', 'list', 'revoke'];
const REVOKE_SYNONYMS = new Set(['delete', 'remove', 'rm', 'del']);

export async function runTokenCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            data: { type: 'string' },
            name: { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(TOKEN_USAGE + '\n');
        return 0;
    }
    const [sub, ...args] = positionals;
    if (sub === undefined) throw new CliError(`missing subcommand: create, list or revoke\n${helpPointer('token')}`);
    if (!TOKEN_SUBCOMMANDS.includes(sub)) {
        const hint = REVOKE_SYNONYMS.has(sub) ? ` (to remove a token, use 'apl token revoke ID')` : '';
        throw new CliError(`'${sub}' is not a subcommand of apl token; use ${TOKEN_SUBCOMMANDS.join(', ')}${hint}\n${helpPointer('token')}`);
    }
    const extra = sub === 'revoke' ? args.slice(1) : args;
    if (extra.length > 0) throw new CliError(`unexpected argument '${extra[0]}'\n${helpPointer('token')}`);
    const dir = resolveDataDir(values.data);
    if (sub === 'create') {
        const name = values.name ?? 'cli';
        if (name.trim() === '') throw new CliError('--name must not be empty');
        try {
            mkdirSync(dir, { recursive: true });
        } catch (e) {
            throw new CliError(`cannot create the data directory ${dir}: ${(e as Error).message}`);
        }
        let created;
        try {
            const tokens = await TokenStore.open(dir);
            created = await tokens.createToken(name);
        } catch (e) {
            throw new CliError(`cannot store the token in ${dir}: ${(e as Error).message}`);
        }
        out.write(created.token + '\n');
        err.write(`created token ${created.info.id} ('${terminalText(created.info.name)}') in ${dir}; it is shown only once.\n`);
        return 0;
    }
    if (sub === 'list') {
        if (values.name !== undefined) throw new CliError('--name only applies to token create');
        let list;
        try {
            list = (await TokenStore.open(dir)).list();
        } catch (e) {
            throw new CliError(`cannot read the tokens of ${dir}: ${(e as Error).message}`);
        }
        // The names come from the data directory's file: no control characters to the terminal.
        for (const t of list) out.write(`${terminalText(t.id)}  ${terminalText(t.created)}  ${terminalText(t.name)}\n`);
        if (list.length === 0) err.write(`no tokens stored in ${dir}\n`);
        return 0;
    }
    if (sub === 'revoke') {
        const id = args[0];
        if (id === undefined || id.trim() === '') throw new CliError(`missing the id of the token to revoke (see 'apl token list')\n${helpPointer('token')}`);
        if (values.name !== undefined) throw new CliError('--name only applies to token create');
        let deleted;
        try {
            deleted = await (await TokenStore.open(dir)).deleteToken(id);
        } catch (e) {
            throw new CliError(`cannot revoke the token in ${dir}: ${(e as Error).message}`);
        }
        if (!deleted) throw new CliError(`no token with id '${id}' in ${dir} (see 'apl token list')`);
        err.write(`revoked token ${id} in ${dir}\n`);
        return 0;
    }
    throw new Error(`unreachable: token subcommand '${sub}'`);
}
