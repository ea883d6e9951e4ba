import { CliError } from './cli-error.js';
import { CHECK_USAGE, runCheck } from './commands/check.js';

const USAGE = `apl: tools for APL, the Axiom Processing Language

Usage: apl <command> [options]

Commands:
  check       check query files for syntax and semantic problems
  help        show this help, or help for a command (apl help check)

Run 'apl <command> --help' for a command's options.`;

type Command = (argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
    check: { run: runCheck, usage: CHECK_USAGE },
};

export async function main(argv: string[]): Promise<number> {
    const [name, ...rest] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
        const topic = name === 'help' ? rest[0] : undefined;
        process.stdout.write((topic && COMMANDS[topic] ? COMMANDS[topic].usage : USAGE) + '\n');
        return 0;
    }
    const command = COMMANDS[name];
    if (!command) {
        process.stderr.write(`apl: unknown command '${name}'\n\n${USAGE}\n`);
        return 2;
    }
    try {
        return await command.run(rest, process.stdout, process.stderr);
    } catch (e) {
        if (e instanceof CliError) {
            process.stderr.write(`apl ${name}: ${e.message}\n`);
            return e.exitCode;
        }
        // node:util parseArgs throws TypeErrors with a code for unknown or malformed options.
        if ((e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
            process.stderr.write(`apl ${name}: ${(e as Error).message}\n\n${command.usage}\n`);
            return 2;
        }
        process.stderr.write(`apl ${name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
        return 70;
    }
}

main(process.argv.slice(2)).then(
    code => {
        process.exitCode = code;
    },
    (e: unknown) => {
        process.stderr.write(`apl: internal error: ${String(e)}\n`);
        process.exitCode = 70;
    },
);
