/**
 * How the CLI words a mistake on its command line: one line in our words (with "did you mean"
 * when a known name is close), then where to look, instead of node:util parseArgs' text and the
 * whole help.
 *
 *     apl run: unknown option '--dataset' (did you mean '--data'?)
 *     Run 'apl run --help' for the options.
 */
import { editDistance } from '../../language/apl-issue-codes.js';
import { terminalText } from './terminal-text.js';

/** The closest of `names` to `name`: one that `name` starts with (or that starts with it), else by spelling. */
export function closestName(name: string, names: readonly string[]): string | undefined {
    const bare = (s: string) => s.replace(/^-+/, '');
    const n = bare(name);
    if (n.length >= 2) {
        const prefix = names.filter(c => bare(c) !== n && (n.startsWith(bare(c)) || bare(c).startsWith(n)));
        if (prefix.length > 0) return prefix.sort((a, b) => Math.abs(bare(a).length - n.length) - Math.abs(bare(b).length - n.length))[0];
        // `--delimiter` for `--csv-delimiter`.
        const inside = n.length >= 4 ? names.find(c => bare(c).includes(n)) : undefined;
        if (inside) return inside;
        // `--max-age` for `--max-duration`: the one option that starts with the same word.
        const word = n.split('-')[0];
        const sameWord = word.length >= 3 && n.includes('-') ? names.filter(c => bare(c).split('-')[0] === word) : [];
        if (sameWord.length === 1) return sameWord[0];
    }
    // By spelling, without the dashes (they would count as matching letters): up to two edits
    // from four letters on (`--prot`, `--port`), one below.
    const max = n.length >= 4 ? Math.max(2, Math.floor(n.length / 3)) : 1;
    let best: string | undefined;
    let bestDistance = max + 1;
    for (const c of names) {
        const d = editDistance(n, bare(c), max);
        if (d < bestDistance) {
            best = c;
            bestDistance = d;
        }
    }
    return best;
}

/** The long options a usage text documents (`--format`, `--max-duration`, …). */
export function optionsInUsage(usage: string): string[] {
    return [...new Set(usage.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])];
}

function withHint(what: string, name: string, candidates: readonly string[]): string {
    const closest = closestName(name, candidates);
    return `${what} '${terminalText(name)}'${closest ? ` (did you mean '${closest}'?)` : ''}`;
}

/** The line after a usage mistake: where to read the options (rather than printing them all). */
export function helpPointer(command: string): string {
    return `Run 'apl ${command} --help' for the options.`;
}

/** The command a usage text is about: `run` for "apl run [--data …]". */
export function commandOfUsage(usage: string): string {
    return /^apl ([a-z]+)/.exec(usage)?.[1] ?? '';
}

/**
 * The message for a node:util parseArgs error (`ERR_PARSE_ARGS_*`) of `apl <command>`, or
 * undefined for another error.
 */
export function parseArgsErrorMessage(command: string, usage: string, e: unknown): string | undefined {
    const { code, message } = e as NodeJS.ErrnoException;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS') || typeof message !== 'string') return undefined;
    const help = helpPointer(command);
    const unknown = /^Unknown option '([^']*)'/.exec(message);
    if (unknown) return `apl ${command}: ${withHint('unknown option', unknown[1], optionsInUsage(usage))}\n${help}`;
    // `Option '-d, --data <value>' argument missing`: name the long form.
    const missing = /^Option '(?:-\w, )?([^']*?)(?: <value>)?' argument missing/.exec(message);
    if (missing) return `apl ${command}: the option '${missing[1]}' needs a value\n${help}`;
    const noValue = /^Option '([^']*)' does not take an argument/.exec(message);
    if (noValue) return `apl ${command}: the option '${noValue[1]}' takes no value\n${help}`;
    return `apl ${command}: ${terminalText(message)}\n${help}`;
}

/** `apl: unknown command 'chek' (did you mean 'check'?)` and where to look. */
export function unknownCommandMessage(kind: string, name: string, commands: readonly string[]): string {
    return `apl: ${withHint(kind, name, commands)}\nRun 'apl --help' for the commands.`;
}
