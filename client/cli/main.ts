import { CliError } from './cli-error.js';

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

interface LoadedCommand {
    run: Command;
    usage: string;
}

/**
 * Each command is loaded when it is run, so that a short `apl check` does not first load the
 * service (fastify, storage, ingest) or the evaluator, and start-up stays short.
 */
const COMMANDS: Record<string, () => Promise<LoadedCommand>> = {
    check: () => import('./commands/check.js').then(m => ({ run: m.runCheck, usage: m.CHECK_USAGE })),
    run: () => import('./commands/run.js').then(m => ({ run: m.runRun, usage: m.RUN_USAGE })),
    translate: () => import('./commands/translate.js').then(m => ({ run: m.runTranslate, usage: m.TRANSLATE_USAGE })),
    serve: () => import('./commands/serve.js').then(m => ({ run: m.runServeCommand, usage: m.SERVE_USAGE })),
    token: () => import('./commands/token.js').then(m => ({ run: m.runTokenCommand, usage: m.TOKEN_USAGE })),
    query: () => import('./commands/query.js').then(m => ({ run: m.runQueryCommand, usage: m.QUERY_USAGE })),
    ingest: () => import('./commands/ingest.js').then(m => ({ run: m.runIngestCommand, usage: m.INGEST_USAGE })),
};

export async function main(argv: string[]): Promise<number> {
    const [name, ...rest] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
        const topic = name === 'help' ? rest[0] : undefined;
        const load = topic !== undefined && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
        process.stdout.write((load ? (await load()).usage : USAGE) + '\n');
        return 0;
    }
    if (!Object.hasOwn(COMMANDS, name)) {
        process.stderr.write(`apl: unknown command '${name}'\n\n${USAGE}\n`);
        return 2;
    }
    const command = await COMMANDS[name]!();
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
