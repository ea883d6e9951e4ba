/**
 * `--start`/`--end` values: RFC 3339 (`2024-01-02T15:04:05Z`, any offset, up to ns), a bare date
 * (`2024-01-02`, midnight UTC), or `now` with signed offsets (`now-1h`, `now-7d`, `now-1h30m`,
 * `now+5m`; units ns us ms s m h d w). Resolved on the client so every service sees RFC 3339.
 */
import { formatDatetime, NS_PER_DAY, parseDatetime, parseGoDuration } from '../../language/values.js';
import { CliError } from './cli-error.js';

const EXTRA_UNITS: Record<string, bigint> = { d: NS_PER_DAY, w: 7n * NS_PER_DAY };

function parseOffset(text: string): bigint | undefined {
    const go = parseGoDuration(text);
    if (go !== undefined) return go;
    let total = 0n;
    let pos = 0;
    const re = /([0-9]+)(d|w)/y;
    while (pos < text.length) {
        re.lastIndex = pos;
        const m = re.exec(text);
        if (!m) {
            const rest = parseGoDuration(text.slice(pos));
            return rest === undefined ? undefined : total + rest;
        }
        total += BigInt(m[1]) * EXTRA_UNITS[m[2]];
        pos = re.lastIndex;
    }
    return total;
}

/** Nanoseconds since the epoch, or a CliError (exit 2) that names the option. */
export function parseTimeArg(value: string, option: string, nowNs: bigint = BigInt(Date.now()) * 1_000_000n): bigint {
    const s = value.trim();
    const rel = /^now((?:\s*[-+]\s*[0-9][0-9a-zµ.]*)*)$/i.exec(s);
    if (rel) {
        let t = nowNs;
        for (const term of rel[1].match(/[-+]\s*[0-9][0-9a-zµ.]*/gi) ?? []) {
            const ns = parseOffset(term.slice(1).trim().toLowerCase());
            if (ns === undefined) throw new CliError(`${option} '${value}': unknown duration '${term.slice(1).trim()}' (use e.g. 30s, 15m, 1h, 7d, 2w)`);
            t += term[0] === '-' ? -ns : ns;
        }
        return t;
    }
    const ns = /^\d{4}-\d{2}-\d{2}/.test(s) ? parseDatetime(s) : undefined;
    if (ns === undefined) {
        throw new CliError(`${option} '${value}': not a time; use RFC 3339 (2024-01-02T15:04:05Z), a date (2024-01-02) or now-1h`);
    }
    return ns;
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
