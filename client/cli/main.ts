import { CliError } from './cli-error.js';
import { CHECK_USAGE, runCheck } from './commands/check.js';
import { INGEST_USAGE, runIngestCommand } from './commands/ingest.js';
import { QUERY_USAGE, runQueryCommand } from './commands/query.js';
import { RUN_USAGE, runRun } from './commands/run.js';
import { runServeCommand, SERVE_USAGE } from './commands/serve.js';
import { runTokenCommand, TOKEN_USAGE } from './commands/token.js';
import { runTranslate, TRANSLATE_USAGE } from './commands/translate.js';

const USAGE = `apl: tools for APL, the Axiom Processing Language

Usage: apl <command> [options]

Commands:
  check       check query files for syntax and semantic problems
  run         run a query locally over files or the sample datasets
  translate   translate a query to the legacy structured query JSON
  serve       run the Axiom-compatible Dataset Query and Ingest Service
  token       create or list API tokens of a service data directory
  query       run a query against a service (apl serve or Axiom)
  ingest      send events from files to a service
  help        show this help, or help for a command (apl help check)

Run 'apl <command> --help' for a command's options.`;

type Command = (argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
    check: { run: runCheck, usage: CHECK_USAGE },
    run: { run: runRun, usage: RUN_USAGE },
    translate: { run: runTranslate, usage: TRANSLATE_USAGE },
    serve: { run: runServeCommand, usage: SERVE_USAGE },
    token: { run: runTokenCommand, usage: TOKEN_USAGE },
    query: { run: runQueryCommand, usage: QUERY_USAGE },
    ingest: { run: runIngestCommand, usage: INGEST_USAGE },
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
