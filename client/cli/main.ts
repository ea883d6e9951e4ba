import packageJson from '../../package.json' with { type: 'json' };
import { CliError } from './cli-error.js';
import { terminalLines } from './terminal-text.js';
import { parseArgsErrorMessage, unknownCommandMessage } from './usage-error.js';

const USAGE = `apl: tools for APL, the Axiom Processing Language

Usage: apl <command> [options]

Commands:
  check       check query files for syntax and semantic problems
  fmt         format query files (or check that they are formatted)
  run         run a query locally over files or the sample datasets
  explain     show a query stage by stage: the columns, row count and first rows after each
  translate   translate a query to the legacy structured query JSON
  serve       run the Axiom-compatible Dataset Query and Ingest Service
  token       create, list or revoke API tokens of a service data directory
  query       run a query against a service (apl serve or Axiom)
  ingest      send events from files to a service
  datasets    list, create, inspect, trim or delete the datasets of a service
  mcp         serve the tools to agents over the Model Context Protocol (read-only by default)
  help        show this help, or help for a command (apl help check)

Options: --version (-V) prints the version; --help (-h) this help.
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
    fmt: () => import('./commands/fmt.js').then(m => ({ run: m.runFmt, usage: m.FMT_USAGE })),
    run: () => import('./commands/run.js').then(m => ({ run: m.runRun, usage: m.RUN_USAGE })),
    explain: () => import('./commands/explain.js').then(m => ({ run: m.runExplain, usage: m.EXPLAIN_USAGE })),
    translate: () => import('./commands/translate.js').then(m => ({ run: m.runTranslate, usage: m.TRANSLATE_USAGE })),
    serve: () => import('./commands/serve.js').then(m => ({ run: m.runServeCommand, usage: m.SERVE_USAGE })),
    token: () => import('./commands/token.js').then(m => ({ run: m.runTokenCommand, usage: m.TOKEN_USAGE })),
    query: () => import('./commands/query.js').then(m => ({ run: m.runQueryCommand, usage: m.QUERY_USAGE })),
    ingest: () => import('./commands/ingest.js').then(m => ({ run: m.runIngestCommand, usage: m.INGEST_USAGE })),
    datasets: () => import('./commands/datasets.js').then(m => ({ run: m.runDatasetsCommand, usage: m.DATASETS_USAGE })),
    mcp: () => import('./commands/mcp.js').then(m => ({ run: m.runMcpCommand, usage: m.MCP_USAGE })),
};

/** `apl: unknown command 'chek' (did you mean 'check'?)` and where to look. */
function unknownCommand(kind: string, name: string): string {
    return unknownCommandMessage(kind, name, Object.keys(COMMANDS)) + '\n';
}

export async function main(argv: string[]): Promise<number> {
    const [name, ...rest] = argv;
    if (name === undefined) {
        // A bare `apl` is a usage error (exit 2), but it still shows what to type.
        process.stderr.write(USAGE + '\n');
        return 2;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
        process.stdout.write(`apl ${packageJson.version}\n`);
        return 0;
    }
    if (name === 'help' || name === '--help' || name === '-h') {
        const topic = name === 'help' ? rest[0] : undefined;
        if (topic === undefined) {
            process.stdout.write(USAGE + '\n');
            return 0;
        }
        if (!Object.hasOwn(COMMANDS, topic)) {
            process.stderr.write(unknownCommand('no help for an unknown command', topic));
            return 2;
        }
        process.stdout.write((await COMMANDS[topic]!()).usage + '\n');
        return 0;
    }
    if (!Object.hasOwn(COMMANDS, name)) {
        process.stderr.write(unknownCommand(name.startsWith('-') ? 'unknown option' : 'unknown command', name));
        return 2;
    }
    const command = await COMMANDS[name]!();
    try {
        return await command.run(rest, process.stdout, process.stderr);
    } catch (e) {
        if (e instanceof CliError) {
            // A message may quote a file, a service's answer or an argument: no control characters.
            process.stderr.write(`apl ${name}: ${terminalLines(e.message)}\n`);
            return e.exitCode;
        }
        // node:util parseArgs throws TypeErrors with a code for unknown or malformed options.
        const usageError = parseArgsErrorMessage(name, command.usage, e);
        if (usageError !== undefined) {
            process.stderr.write(usageError + '\n');
            return 2;
        }
        process.stderr.write(`apl ${name}: internal error: ${(e as Error).stack ?? String(e)}\n`);
        return 70;
    }
}

/**
 * A reader that stops early (`apl run … | head -2`) closes the pipe: the next write fails with
 * EPIPE. That ends the command quietly with success, as sqlite and duckdb do, instead of a stack
 * trace. Any other write error is an I/O error (exit 2).
 */
function endQuietlyWhenThePipeCloses(stream: NodeJS.WriteStream): void {
    stream.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EPIPE') process.exit(0);
        process.stderr.write(`apl: cannot write the output: ${e.message}\n`);
        process.exit(2);
    });
}

endQuietlyWhenThePipeCloses(process.stdout);

main(process.argv.slice(2)).then(
    code => {
        process.exitCode = code;
    },
    (e: unknown) => {
        process.stderr.write(`apl: internal error: ${String(e)}\n`);
        process.exitCode = 70;
    },
);
