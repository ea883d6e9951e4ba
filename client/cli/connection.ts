/** `--url`, `--token`, `--org-id` for the commands that talk to a service, and how their errors print. */
import { AplClient } from '../api/client.js';
import { AplApiError } from '../api/errors.js';
import { normalizeServiceUrl } from '../api/service-url.js';
import { CliError } from './cli-error.js';
import { terminalLines } from './terminal-text.js';

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8686';

export const CONNECTION_OPTIONS = {
    url: { type: 'string' },
    token: { type: 'string' },
    'org-id': { type: 'string' },
} as const;

export const CONNECTION_USAGE = `  --url URL        the service (default $AXIOM_URL, else $APL_URL, else ${DEFAULT_SERVICE_URL};
                   https://api.axiom.co for Axiom)
  --token TOKEN    API token (default $AXIOM_TOKEN, else $APL_TOKEN; prefer them: other users can
                   read arguments)
  --org-id ID      organisation id, sent as X-Axiom-Org-Id (default $AXIOM_ORG_ID, else $APL_ORG_ID)`;

/**
 * The environment variables of a connection: the official clients' names first (AXIOM_URL, …, the
 * ones the extension and the `apl serve` banner use), the older APL_ names as aliases. When both
 * are set (and not empty), the AXIOM_ one wins.
 */
export const CONNECTION_ENV = {
    url: ['AXIOM_URL', 'APL_URL'],
    token: ['AXIOM_TOKEN', 'APL_TOKEN'],
    orgId: ['AXIOM_ORG_ID', 'APL_ORG_ID'],
} as const;

/** The first of `names` set to a non-empty value, with its name. */
export function envValue(env: NodeJS.ProcessEnv, names: readonly string[]): { name: string; value: string } | undefined {
    for (const name of names) {
        const value = env[name];
        if (value !== undefined && value !== '') return { name, value };
    }
    return undefined;
}

export interface ConnectionArgs {
    url?: string;
    token?: string;
    'org-id'?: string;
}

/**
 * A token given as an argument is visible to every user of the machine (`ps`, /proc/PID/cmdline)
 * for as long as the process runs: say so on stderr (without the token), and name the safer ways.
 */
export function warnAboutTokenArgument(args: { token?: string | string[] }, err: NodeJS.WritableStream, command: string, safer = 'the AXIOM_TOKEN environment variable'): void {
    if (args.token === undefined) return;
    err.write(`apl ${command}: warning: --token puts the token in the process arguments, which other users of this machine can read (ps); prefer ${safer}\n`);
}

export function clientFrom(args: ConnectionArgs, env: NodeJS.ProcessEnv = process.env): AplClient {
    const url = normalizeServiceUrl(args.url ?? envValue(env, CONNECTION_ENV.url)?.value ?? DEFAULT_SERVICE_URL);
    if (!url.ok) throw new CliError(`--url: ${url.problem}`);
    return new AplClient({ url: url.url, token: args.token ?? envValue(env, CONNECTION_ENV.token)?.value, orgId: args['org-id'] ?? envValue(env, CONNECTION_ENV.orgId)?.value });
}

/**
 * A service error as the CLI reports it: no response → CliError (exit 2, I/O); an HTTP error → the
 * message and exit code 1.
 */
export function reportApiError(e: unknown, err: NodeJS.WritableStream, command: string): number {
    if (!(e instanceof AplApiError)) throw e;
    if (e.status === 0) throw new CliError(e.message);
    let hint = '';
    if (e.status === 401) hint = ' (check --token, or AXIOM_TOKEN / APL_TOKEN)';
    else if (e.status === 403) hint = ' (the token lacks permission for this)';
    // The message is the service's text: no control characters reach the terminal.
    err.write(`apl ${command}: ${e.status} ${terminalLines(e.message)}${hint}\n`);
    return 1;
}
