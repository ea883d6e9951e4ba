/**
 * IP address functions: IPv4/IPv6 parsing, CIDR matching and searching text for addresses.
 *
 * Addresses are written `a.b.c.d` (each octet 0–255, exactly four) or in any RFC 4291 IPv6 form
 * (`::`, embedded IPv4 tail), optionally with a `/prefix` suffix. The IPv6 functions accept IPv4
 * addresses too, as `::ffff:a.b.c.d`. Invalid input gives null for comparisons and matches, and an
 * empty string for the `format_*` functions, as in KQL.
 */
import type { AplValue, JsonValue } from '../values.js';
import type { ParamSpec, ScalarFunction, Signature } from './catalogue-types.js';
import { asDynamic, categoryBuilder, p, sig, strict, str, toInt } from './functions-numeric-time-helpers.js';

const ip = categoryBuilder('ip');

export interface Ipv4 {
    /** The address as an unsigned 32-bit integer. */
    addr: number;
    /** The `/n` suffix, 32 when absent. */
    prefix: number;
}

export interface Ipv6 {
    /** The address as an unsigned 128-bit integer. */
    addr: bigint;
    /** The `/n` suffix, 128 when absent (IPv4 input: 96 + its prefix). */
    prefix: number;
}

const OCTET = /^(?:0|[1-9]\d{0,2}|0\d{1,2})$/;

function parseOctets(text: string): number | undefined {
    const parts = text.split('.');
    if (parts.length !== 4) return undefined;
    let addr = 0;
    for (const part of parts) {
        if (!OCTET.test(part)) return undefined;
        const n = Number(part);
        if (n > 255) return undefined;
        addr = addr * 256 + n;
    }
    return addr;
}

function splitPrefix(text: string, max: number): { body: string; prefix: number } | undefined {
    const slash = text.indexOf('/');
    if (slash < 0) return { body: text, prefix: max };
    const pre = text.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(pre)) return undefined;
    const prefix = Number(pre);
    return prefix > max ? undefined : { body: text.slice(0, slash).trim(), prefix };
}

/** Parses `a.b.c.d` or `a.b.c.d/n`. */
export function parseIpv4(text: string): Ipv4 | undefined {
    const s = splitPrefix(text.trim(), 32);
    if (!s) return undefined;
    const addr = parseOctets(s.body);
    return addr === undefined ? undefined : { addr, prefix: s.prefix };
}

/** The network mask of a prefix length, as an unsigned 32-bit integer. */
export function ipv4Mask(prefix: number): number {
    return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffff : (0xffffffff << (32 - prefix)) >>> 0;
}

export function maskIpv4(addr: number, prefix: number): number {
    return (addr & ipv4Mask(prefix)) >>> 0;
}

export function formatIpv4Address(addr: number): string {
    return [addr >>> 24, (addr >>> 16) & 255, (addr >>> 8) & 255, addr & 255].join('.');
}

/** Parses any IPv6 text form, or an IPv4 address as its IPv4-mapped IPv6 form. */
export function parseIpv6(text: string): Ipv6 | undefined {
    const t = text.trim();
    if (!t.includes(':')) {
        const v4 = parseIpv4(t);
        return v4 ? { addr: 0xffff00000000n | BigInt(v4.addr), prefix: 96 + v4.prefix } : undefined;
    }
    const s = splitPrefix(t, 128);
    if (!s) return undefined;
    let body = s.body;
    // An embedded IPv4 tail counts as the last two groups.
    let tail: number[] = [];
    const lastColon = body.lastIndexOf(':');
    if (body.slice(lastColon + 1).includes('.')) {
        const v4 = parseOctets(body.slice(lastColon + 1));
        if (v4 === undefined) return undefined;
        tail = [v4 >>> 16, v4 & 0xffff];
        // Drop ":a.b.c.d", but keep both colons of a "::" right before the tail.
        body = body[lastColon - 1] === ':' ? body.slice(0, lastColon + 1) : body.slice(0, lastColon);
    }
    const halves = body.split('::');
    if (halves.length > 2) return undefined;
    const groups = (h: string): number[] | undefined => {
        if (h === '') return [];
        const out: number[] = [];
        for (const g of h.split(':')) {
            if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
            out.push(parseInt(g, 16));
        }
        return out;
    };
    const head = groups(halves[0]);
    const rest = halves.length === 2 ? groups(halves[1]) : [];
    if (!head || !rest) return undefined;
    const explicit = head.length + rest.length + tail.length;
    let all: number[];
    if (halves.length === 2) {
        if (explicit > 7) return undefined;
        all = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
    } else {
        if (explicit !== 8) return undefined;
        all = [...head, ...tail];
    }
    let addr = 0n;
    for (const g of all) addr = (addr << 16n) | BigInt(g);
    return { addr, prefix: s.prefix };
}

const ALL_128 = (1n << 128n) - 1n;

export function maskIpv6(addr: bigint, prefix: number): bigint {
    const hostBits = BigInt(128 - Math.max(0, Math.min(128, prefix)));
    return addr & (ALL_128 ^ ((1n << hostBits) - 1n));
}

/** Reads an IPv4 argument: a string, or a long holding the address (for `format_ipv4`). */
function ipv4Arg(v: AplValue | undefined, allowLong = false): Ipv4 | undefined {
    if (typeof v === 'string') return parseIpv4(v);
    if (allowLong && typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return { addr: v, prefix: 32 };
    return undefined;
}

/** A prefix-length argument within 0..max; absent means max. */
function prefixArg(v: AplValue | undefined, max: number): number | undefined {
    if (v === undefined) return max;
    const n = toInt(v);
    return n === undefined || n < 0 || n > max ? undefined : n;
}

function cmp(a: number | bigint, b: number | bigint): number {
    return a < b ? -1 : a > b ? 1 : 0;
}

function compareIpv4(a: AplValue, b: AplValue, prefix: AplValue | undefined): number | undefined {
    const x = ipv4Arg(a);
    const y = ipv4Arg(b);
    const pre = prefixArg(prefix, 32);
    if (!x || !y || pre === undefined) return undefined;
    const eff = Math.min(x.prefix, y.prefix, pre);
    return cmp(maskIpv4(x.addr, eff), maskIpv4(y.addr, eff));
}

function compareIpv6(a: AplValue, b: AplValue, prefix: AplValue | undefined): number | undefined {
    const x = typeof a === 'string' ? parseIpv6(a) : undefined;
    const y = typeof b === 'string' ? parseIpv6(b) : undefined;
    const pre = prefixArg(prefix, 128);
    if (!x || !y || pre === undefined) return undefined;
    const eff = Math.min(x.prefix, y.prefix, pre);
    return cmp(maskIpv6(x.addr, eff), maskIpv6(y.addr, eff));
}

function ipv4InRange(addr: number, range: Ipv4): boolean {
    return maskIpv4(addr, range.prefix) === maskIpv4(range.addr, range.prefix);
}

function ipv6InRange(addr: bigint, range: Ipv6): boolean {
    return maskIpv6(addr, range.prefix) === maskIpv6(range.addr, range.prefix);
}

/** The RFC 1918 private ranges. */
export const IPV4_PRIVATE_RANGES: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];
const PRIVATE = IPV4_PRIVATE_RANGES.map(r => parseIpv4(r)!);

/**
 * The strings listed by variadic "list" arguments: each argument may be a string or a dynamic array of
 * strings. Undefined when an element is not a string.
 */
function listArgs(args: AplValue[]): string[] | undefined {
    const out: string[] = [];
    for (const a of args) {
        const d: JsonValue | undefined = asDynamic(a);
        const items = Array.isArray(d) ? d : [d];
        for (const item of items) {
            if (typeof item !== 'string') return undefined;
            out.push(item);
        }
    }
    return out;
}

/**
 * The valid IPv4 addresses written in a text, as their octet text. An address counts only when it
 * stands alone as a term: the characters around it are not letters, digits or further dotted
 * numbers (`127.0.0.1.1` and `x127.0.0.1` hold none; a trailing sentence dot is fine).
 */
export function ipv4TermsIn(text: string): string[] {
    const out: string[] = [];
    for (const token of text.split(/[^A-Za-z0-9.]+/)) {
        const t = token.replace(/^\.+|\.+$/g, '');
        if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(t)) continue;
        const addr = parseOctets(t);
        if (addr !== undefined) out.push(formatIpv4Address(addr));
    }
    return out;
}

/** Canonical text of an IPv4 prefix (`10.`, `192.168.`, or a full address), else undefined. */
function normaliseIpv4Prefix(prefix: string): string | undefined {
    const t = prefix.trim();
    const parts = t.replace(/\.$/, '').split('.');
    if (parts.length < 1 || parts.length > 4) return undefined;
    for (const part of parts) if (!OCTET.test(part) || Number(part) > 255) return undefined;
    const canonical = parts.map(Number).join('.');
    return parts.length === 4 ? canonical : `${canonical}.`;
}

function termMatchesPrefix(term: string, prefix: string): boolean {
    return prefix.endsWith('.') ? term.startsWith(prefix) : term === prefix;
}

/** An entry of `has_any_ipv4`'s list matches an address: equal, or (our extension) a CIDR range holding it. */
function addressListMatcher(entries: string[]): ((term: string) => boolean) | undefined {
    const parsed: Ipv4[] = [];
    for (const e of entries) {
        const v = parseIpv4(e);
        if (!v) return undefined;
        parsed.push(v);
    }
    return term => {
        const addr = parseOctets(term)!;
        return parsed.some(r => ipv4InRange(addr, r));
    };
}

const ipText = (name = 'ip') => p(name, 'string');

/** A first argument plus a list given as one or more arguments (at least one). */
const listSig = (first: ParamSpec, list: ParamSpec): Signature => ({ params: [first, list], arity: { min: 2 } });

export const IP_FUNCTIONS: ScalarFunction[] = [
    ip({
        name: 'format_ipv4',
        signatures: [sig(p('ip', 'scalar', { description: 'A string address or a long holding one.' }), p('prefix', 'long', { optional: true }))],
        returns: 'string',
        description: 'Formats an IPv4 address (string or long) as `a.b.c.d`, keeping only the first `prefix` bits (default 32). Invalid input gives an empty string.',
        example: "print a = format_ipv4('192.168.1.255', 24), b = format_ipv4(3232236031)",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0], true);
            const pre = prefixArg(args[1], 32);
            if (!v || pre === undefined) return '';
            return formatIpv4Address(maskIpv4(v.addr, Math.min(v.prefix, pre)));
        }),
    }),
    ip({
        name: 'format_ipv4_mask',
        signatures: [sig(p('ip', 'scalar', { description: 'A string address or a long holding one.' }), p('prefix', 'long'))],
        returns: 'string',
        description: 'Formats an IPv4 address as a CIDR block `a.b.c.d/prefix` (the host bits cleared). Invalid input gives an empty string.',
        example: "print subnet = format_ipv4_mask('192.168.1.54', 24)",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0], true);
            const pre = prefixArg(args[1], 32);
            if (!v || pre === undefined) return '';
            const eff = Math.min(v.prefix, pre);
            return `${formatIpv4Address(maskIpv4(v.addr, eff))}/${eff}`;
        }),
    }),
    ip({
        name: 'geo_info_from_ip_address',
        signatures: [sig(p('ip_address', 'string'))],
        returns: 'dynamic',
        description:
            'Looks up the geographic location of an IPv4 or IPv6 address and returns a bag with `country`, `country_iso`, `state`, `city`, `latitude`, `longitude` and `time_zone`.',
        example: "print geo = geo_info_from_ip_address('172.217.22.14')",
        unsupported:
            'geo_info_from_ip_address needs a GeoIP database (Axiom uses a MaxMind-style one), which this toolkit does not ship; the reference evaluator cannot answer it.',
    }),
    ip({
        name: 'has_any_ipv4',
        signatures: [listSig(p('source', 'string'), p('ip_addresses', 'any', { variadic: true, description: 'Addresses as strings or a dynamic array of strings.' }))],
        returns: 'bool',
        description:
            'True when the text contains, as a separate term, any of the listed IPv4 addresses. The list is several strings or one dynamic array; an entry with a `/prefix` matches any address in that block.',
        example: "print a = has_any_ipv4('Client 10.0.0.5 connected', dynamic(['10.0.0.5', '192.168.1.1']))",
        evaluate: strict(args => {
            const text = str(args[0]);
            const entries = listArgs(args.slice(1));
            if (text === undefined || !entries) return null;
            const match = addressListMatcher(entries);
            if (!match) return null;
            return ipv4TermsIn(text).some(match);
        }),
    }),
    ip({
        name: 'has_any_ipv4_prefix',
        signatures: [listSig(p('source', 'string'), p('ip_prefixes', 'any', { variadic: true, description: 'Prefixes such as `10.` or `192.168.` as strings or a dynamic array.' }))],
        returns: 'bool',
        description: 'True when the text contains, as a separate term, an IPv4 address starting with any of the listed prefixes (`10.`, `192.168.`; a full address must match exactly).',
        example: "print a = has_any_ipv4_prefix('from 10.1.2.3', dynamic(['10.', '172.16.']))",
        evaluate: strict(args => {
            const text = str(args[0]);
            const entries = listArgs(args.slice(1));
            if (text === undefined || !entries) return null;
            const prefixes = entries.map(normaliseIpv4Prefix);
            if (prefixes.some(x => x === undefined)) return null;
            return ipv4TermsIn(text).some(t => prefixes.some(pre => termMatchesPrefix(t, pre!)));
        }),
    }),
    ip({
        name: 'has_ipv4',
        signatures: [sig(p('source', 'string'), ipText('ip_address'))],
        returns: 'bool',
        description: 'True when the text contains the IPv4 address as a separate term (not glued to letters, digits or more dotted numbers).',
        example: "print a = has_ipv4('Requests from: 192.168.1.1, 10.1.1.115.', '192.168.1.1')",
        evaluate: strict(args => {
            const text = str(args[0]);
            const target = str(args[1]);
            if (text === undefined || target === undefined) return null;
            const addr = parseOctets(target.trim());
            if (addr === undefined) return false;
            const want = formatIpv4Address(addr);
            return ipv4TermsIn(text).includes(want);
        }),
    }),
    ip({
        name: 'has_ipv4_prefix',
        signatures: [sig(p('source', 'string'), p('ip_prefix', 'string'))],
        returns: 'bool',
        description: 'True when the text contains, as a separate term, an IPv4 address starting with the prefix (`10.`, `192.168.`; a full address must match exactly).',
        example: "print a = has_ipv4_prefix('from 192.168.0.1', '192.168.')",
        evaluate: strict(args => {
            const text = str(args[0]);
            const prefix = str(args[1]);
            if (text === undefined || prefix === undefined) return null;
            const pre = normaliseIpv4Prefix(prefix);
            if (pre === undefined) return false;
            return ipv4TermsIn(text).some(t => termMatchesPrefix(t, pre));
        }),
    }),
    ip({
        name: 'ipv4_compare',
        signatures: [sig(ipText('ip1'), ipText('ip2'), p('prefix', 'long', { optional: true }))],
        returns: 'long',
        description: 'Compares two IPv4 addresses: -1, 0 or 1. Only the first `prefix` bits count (default 32, or a smaller `/n` written in either address). Null if either is invalid.',
        example: "print a = ipv4_compare('192.168.1.1', '192.168.1.255', 24)",
        evaluate: strict(args => compareIpv4(args[0], args[1], args[2]) ?? null),
    }),
    ip({
        name: 'ipv4_is_in_any_range',
        signatures: [listSig(ipText('ip_address'), p('ranges', 'any', { variadic: true, description: 'CIDR ranges as strings or a dynamic array of strings.' }))],
        returns: 'bool',
        description: 'True when the IPv4 address lies in any of the CIDR ranges (several strings or one dynamic array). Null if the address or a range is invalid.',
        example: "print a = ipv4_is_in_any_range('10.1.2.3', dynamic(['10.0.0.0/8', '192.168.0.0/16']))",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0]);
            const entries = listArgs(args.slice(1));
            if (!v || !entries) return null;
            const ranges = entries.map(parseIpv4);
            if (ranges.some(r => r === undefined)) return null;
            return ranges.some(r => ipv4InRange(v.addr, r!));
        }),
    }),
    ip({
        name: 'ipv4_is_in_range',
        signatures: [sig(ipText('ip'), p('range', 'string'))],
        returns: 'bool',
        description: 'True when the IPv4 address lies in the CIDR range (a bare address means /32). Null if either is invalid.',
        example: "print a = ipv4_is_in_range('192.168.1.6', '192.168.1.0/24')",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0]);
            const r = ipv4Arg(args[1]);
            return v && r ? ipv4InRange(v.addr, r) : null;
        }),
    }),
    ip({
        name: 'ipv4_is_match',
        signatures: [sig(ipText('ip1'), ipText('ip2'), p('prefix', 'long', { optional: true }))],
        returns: 'bool',
        description: 'True when two IPv4 addresses are equal in their first `prefix` bits (default 32, or a smaller `/n` written in either). Null if either is invalid.',
        example: "print a = ipv4_is_match('192.168.1.1', '192.168.1.255', 24)",
        evaluate: strict(args => {
            const c = compareIpv4(args[0], args[1], args[2]);
            return c === undefined ? null : c === 0;
        }),
    }),
    ip({
        name: 'ipv4_is_private',
        signatures: [sig(ipText('ip'))],
        returns: 'bool',
        description: 'True when the IPv4 address (or the whole `/n` block) is in a private RFC 1918 range: 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16. Null if invalid.',
        example: "print a = ipv4_is_private('192.168.0.1'), b = ipv4_is_private('8.8.8.8')",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0]);
            if (!v) return null;
            return PRIVATE.some(r => v.prefix >= r.prefix && ipv4InRange(v.addr, r));
        }),
    }),
    ip({
        name: 'ipv4_netmask_suffix',
        signatures: [sig(ipText('ip'))],
        returns: 'long',
        description: 'The `/n` prefix length written in an IPv4 address, or 32 when there is none. Null if invalid.',
        example: "print a = ipv4_netmask_suffix('192.168.1.1/24')",
        evaluate: strict(args => ipv4Arg(args[0])?.prefix ?? null),
    }),
    ip({
        name: 'ipv6_compare',
        signatures: [sig(ipText('ip1'), ipText('ip2'), p('prefix', 'long', { optional: true }))],
        returns: 'long',
        description: 'Compares two IPv6 (or IPv4) addresses: -1, 0 or 1. Only the first `prefix` bits count (default 128, or a smaller `/n` written in either). Null if either is invalid.',
        example: "print a = ipv6_compare('2001:db8::1', '2001:db8::abcd')",
        evaluate: strict(args => compareIpv6(args[0], args[1], args[2]) ?? null),
    }),
    ip({
        name: 'ipv6_is_in_any_range',
        signatures: [listSig(ipText('ipv6_address'), p('ranges', 'any', { variadic: true, description: 'CIDR ranges as strings or a dynamic array of strings.' }))],
        returns: 'bool',
        description: 'True when the IPv6 (or IPv4) address lies in any of the CIDR ranges (several strings or one dynamic array). Null if the address or a range is invalid.',
        example: "print a = ipv6_is_in_any_range('2001:db8:1::5', dynamic(['2001:db8::/32', 'fd00::/8']))",
        evaluate: strict(args => {
            const v = typeof args[0] === 'string' ? parseIpv6(args[0]) : undefined;
            const entries = listArgs(args.slice(1));
            if (!v || !entries) return null;
            const ranges = entries.map(parseIpv6);
            if (ranges.some(r => r === undefined)) return null;
            return ranges.some(r => ipv6InRange(v.addr, r!));
        }),
    }),
    ip({
        name: 'ipv6_is_in_range',
        signatures: [sig(ipText('ipv6'), p('cidr_range', 'string'))],
        returns: 'bool',
        description: 'True when the IPv6 (or IPv4) address lies in the CIDR range. Null if either is invalid.',
        example: "print a = ipv6_is_in_range('2001:db8:abcd::1', '2001:db8::/32')",
        evaluate: strict(args => {
            const v = typeof args[0] === 'string' ? parseIpv6(args[0]) : undefined;
            const r = typeof args[1] === 'string' ? parseIpv6(args[1]) : undefined;
            return v && r ? ipv6InRange(v.addr, r) : null;
        }),
    }),
    ip({
        name: 'ipv6_is_match',
        signatures: [sig(ipText('ipv6_1'), ipText('ipv6_2'), p('prefix', 'long', { optional: true }))],
        returns: 'bool',
        description: 'True when two IPv6 (or IPv4) addresses are equal in their first `prefix` bits (default 128, or a smaller `/n` written in either). Null if either is invalid.',
        example: "print a = ipv6_is_match('2001:db8:abcd::1', '2001:db8::/32')",
        evaluate: strict(args => {
            const c = compareIpv6(args[0], args[1], args[2]);
            return c === undefined ? null : c === 0;
        }),
    }),
    ip({
        name: 'parse_ipv4',
        signatures: [sig(ipText('ip'))],
        returns: 'long',
        description: 'The IPv4 address as a long (a `/n` suffix clears the host bits). Null if invalid.',
        example: "print a = parse_ipv4('192.168.1.1')",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0]);
            return v ? maskIpv4(v.addr, v.prefix) : null;
        }),
    }),
    ip({
        name: 'parse_ipv4_mask',
        signatures: [sig(ipText('ip'), p('prefix', 'long'))],
        returns: 'long',
        description: 'The IPv4 address as a long with only its first `prefix` bits kept. Null if the address or prefix is invalid.',
        example: "print a = parse_ipv4_mask('192.168.0.1', 24)",
        evaluate: strict(args => {
            const v = ipv4Arg(args[0]);
            const pre = prefixArg(args[1], 32);
            return v && pre !== undefined ? maskIpv4(v.addr, Math.min(v.prefix, pre)) : null;
        }),
    }),
];
