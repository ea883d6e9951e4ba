import { describe, expect, it } from 'vitest';
import { terminalLines, terminalText } from '../../client/cli/terminal-text.js';
import { closestName, optionsInUsage, parseArgsErrorMessage } from '../../client/cli/usage-error.js';
import { RUN_USAGE } from '../../client/cli/commands/run.js';
import { parseArgs } from 'node:util';

describe('closestName: the option or command a mistyped one meant', () => {
    const run = optionsInUsage(RUN_USAGE);
    it.each([
        ['--dataset', '--data'],
        ['--form', '--format'],
        ['--fromat', '--format'],
        ['--timestamp', '--timestamp-field'],
        ['--seeed', '--seed'],
        ['--limt', '--limit'],
    ])('%s → %s', (typed, meant) => {
        expect(closestName(typed, run)).toBe(meant);
    });
    it('nothing when nothing is close', () => {
        expect(closestName('--zzz', run)).toBeUndefined();
        expect(closestName('--at', run)).toBeUndefined();
    });
});

describe('parseArgsErrorMessage', () => {
    const fail = (args: string[]) => {
        try {
            parseArgs({ args, options: { data: { type: 'string', short: 'd' }, all: { type: 'boolean' } }, allowPositionals: true });
        } catch (e) {
            return parseArgsErrorMessage('run', RUN_USAGE, e);
        }
        throw new Error('parsed');
    };
    it('an unknown option, a missing value, a value given to a flag', () => {
        expect(fail(['--dataset'])).toBe("apl run: unknown option '--dataset' (did you mean '--data'?)\nRun 'apl run --help' for the options.");
        expect(fail(['-d'])).toBe("apl run: the option '--data' needs a value\nRun 'apl run --help' for the options.");
        expect(fail(['--all=1'])).toBe("apl run: the option '--all' takes no value\nRun 'apl run --help' for the options.");
    });
    it('another error is not one of these', () => {
        expect(parseArgsErrorMessage('run', RUN_USAGE, new Error('x'))).toBeUndefined();
    });
});

describe('terminalText: control characters escaped as git shows them', () => {
    it('C0, DEL and C1 become escapes; the rest is kept', () => {
        expect(terminalText('a\u001b[2Jb\u0007\u007f\u009b é 日本')).toBe('a\\033[2Jb\\a\\177\\233 é 日本');
        expect(terminalText('line\nnext\ttab\r')).toBe('line\\nnext\\ttab\\r');
        expect(terminalLines('one\u001b\ntwo')).toBe('one\\033\ntwo');
    });
});
