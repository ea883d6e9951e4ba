/** `--url`, `--token`, `--org-id` for the commands that talk to a service, and how their errors print. */
import { AplClient } from '../api/client.js';
import { AplApiError } from '../api/errors.js';
import { normalizeServiceUrl } from '../api/service-url.js';
import { CliError } from './cli-error.js';

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8686';

export const CONNECTION_OPTIONS = {
    url: { type: 'string' },
    token: { type: 'string' },
    'org-id': { type: 'string' },
} as const;

export const CONNECTION_USAGE = `  --url URL        the service (default APL_URL or ${DEFAULT_SERVICE_URL}; https://api.axiom.co for Axiom)
  --token TOKEN    API token (default APL_TOKEN; prefer APL_TOKEN: other users can read arguments)
  --org-id ID      organisation id, sent as X-Axiom-Org-Id (default APL_ORG_ID)`;

export interface ConnectionArgs {
    url?: string;
    token?: string;
    'org-id'?: string;
}

/**
 * A token given as an argument is visible to every user of the machine (`ps`, /proc/PID/cmdline)
 * for as long as the process runs: say so on stderr (without the token), and name the safer ways.
 */
export function warnAboutTokenArgument(args: { token?: string | string[] }, err: NodeJS.WritableStream, command: string, safer = 'the APL_TOKEN environment variable'): void {
    if (args.token === undefined) return;
    err.write(`apl ${command}: warning: --token puts the token in the process arguments, which other users of this machine can read (ps); prefer ${safer}\n`);
}

export function clientFrom(args: ConnectionArgs, env: NodeJS.ProcessEnv = process.env): AplClient {
    const url = normalizeServiceUrl(args.url ?? env.APL_URL ?? DEFAULT_SERVICE_URL);
    if (!url.ok) throw new CliError(`--url: ${url.problem}`);
    return new AplClient({ url: url.url, token: args.token ?? env.APL_TOKEN, orgId: args['org-id'] ?? env.APL_ORG_ID });
}

/**
 * A service error as the CLI reports it: no response → CliError (exit 2, I/O); an HTTP error → the
 * message and exit code 1.
 */
export function reportApiError(e: unknown, err: NodeJS.WritableStream, command: string): number {
    if (!(e instanceof AplApiError)) throw e;
    if (e.status === 0) throw new CliError(e.message);
    let hint = '';
    if (e.status === 401) hint = ' (check --token or APL_TOKEN)';
    else if (e.status === 403) hint = ' (the token lacks permission for this)';
    err.write(`apl ${command}: ${e.status} ${e.message}${hint}\n`);
    return 1;
}
