/**
 * `--start`/`--end` values: RFC 3339 (`2024-01-02T15:04:05Z`, any offset, up to ns), a bare date
 * (`2024-01-02`, midnight UTC), or `now` with signed offsets (`now-1h`, `now-7d`, `now-1h30m`,
 * `now+5m`; units ns us ms s m h d w). Resolved on the client so every service sees RFC 3339.
 */
import { formatDatetime, parseTimeExpression } from '../../language/values.js';
import { CliError } from './cli-error.js';

/** Nanoseconds since the epoch, or a CliError (exit 2) that names the option. */
export function parseTimeArg(value: string, option: string, nowNs: bigint = BigInt(Date.now()) * 1_000_000n): bigint {
    const parsed = parseTimeExpression(value, nowNs);
    if (!parsed.ok) throw new CliError(`${option} '${value}': ${parsed.problem}`);
    return parsed.ns;
}

export interface TimeRangeArgs {
    start?: string;
    end?: string;
}

/** Both ends resolved to RFC 3339 (undefined when not given); start must not be after end. */
export function resolveTimeRange(args: TimeRangeArgs, nowNs?: bigint): { startTime?: string; endTime?: string; startNs?: bigint; endNs?: bigint } {
    const startNs = args.start !== undefined ? parseTimeArg(args.start, '--start', nowNs) : undefined;
    const endNs = args.end !== undefined ? parseTimeArg(args.end, '--end', nowNs) : undefined;
    if (startNs !== undefined && endNs !== undefined && startNs > endNs) {
        throw new CliError(`--start ${formatDatetime(startNs)} is after --end ${formatDatetime(endNs)}`);
    }
    return {
        startTime: startNs !== undefined ? formatDatetime(startNs) : undefined,
        endTime: endNs !== undefined ? formatDatetime(endNs) : undefined,
        startNs,
        endNs,
    };
}
