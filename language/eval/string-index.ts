/**
 * The string → code index of a string dictionary (a column's distinct values), as open addressing
 * over a hash that whoever made the string may already know: the ingest workers hash each string
 * while they scan its bytes, so the service's main thread appends a batch of new values (a unique
 * `id` per event) without hashing them again. A V8 `Map` costs about 0.5 µs to insert a fresh
 * string; this costs a third to a fifth of that with the hash given, and under half without. (A
 * string that V8 has hashed before is another matter: see FieldColumn's `byValue`.)
 */

/**
 * FNV-1a over a string's UTF-16 code units, four at a time (packed little-endian, a byte each)
 * and then one at a time. For ASCII text this is the same number as the byte scanner's hash of the
 * string's bytes (server/ingest/ndjson-columns.ts), which is what lets a worker's hash stand in.
 */
export function stringHash(s: string): number {
    const n = s.length;
    let h = 0x811c9dc5 | 0;
    let k = 0;
    for (; k + 4 <= n; k += 4) {
        const w = s.charCodeAt(k) | (s.charCodeAt(k + 1) << 8) | (s.charCodeAt(k + 2) << 16) | (s.charCodeAt(k + 3) << 24);
        h = Math.imul(h ^ w, 0x01000193);
    }
    for (; k < n; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
    return h;
}

/**
 * The first slot of hash `h` in a table of `mask + 1` slots. FNV's low bits depend only on the
 * low bits of its input, so the high half is folded in first (strings that differ only in the high
 * byte of a word would otherwise all start at one slot).
 */
export function hashSlot(h: number, mask: number): number {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    return (h ^ (h >>> 13)) & mask;
}

/**
 * Longest probe sequence of a lookup (at load ≤ 1/2 an honest one is a few slots). The hash is not
 * keyed, so strings can be made to share one; past this the index gives up on it (see StringIndex).
 */
export const MAX_PROBES = 64;

/** What a column needs of an index: the code of a string. */
export interface StringLookup {
    get(s: string): number | undefined;
}

/**
 * Open addressing over 32-bit hashes: per slot a value (≥ 1; 0 = empty) and its hash, side by
 * side in `slots`, at most half of the slots used. Its owners walk a probe sequence themselves (from
 * `hashSlot(h, mask)`, `mask` = `slots.length / 2 - 1`), comparing what a value stands for; this
 * places values and grows. The workers' byte dictionary (server/ingest/columnar.ts) and
 * `StringIndex` share it.
 */
export class ProbeTable {
    slots: Int32Array;
    private size = 0;

    /** `expected`: how many values are likely to come, so that the table need not grow to them. */
    constructor(expected = 0) {
        let n = 64;
        while (n < expected * 4) n *= 2;
        this.slots = new Int32Array(n);
    }

    /** Adds `v` under hash `h`; false when its slot lies more than MAX_PROBES away (see MAX_PROBES). */
    add(v: number, h: number): boolean {
        this.size++;
        if (this.size * 4 > this.slots.length && !this.grow()) return false;
        return this.place(v, h);
    }

    private place(v: number, h: number): boolean {
        const slots = this.slots;
        const mask = (slots.length >> 1) - 1;
        let i = hashSlot(h, mask);
        for (let probes = 0; slots[i << 1] !== 0; i = (i + 1) & mask) if (++probes === MAX_PROBES) return false;
        slots[i << 1] = v;
        slots[(i << 1) + 1] = h;
        return true;
    }

    /**
     * Puts `v` in slot `i`, found empty on `h`'s probe sequence (`StringIndex.getOrAdd`), unless the
     * table must grow first: then it is placed anew. False as for `add`.
     */
    claim(i: number, v: number, h: number): boolean {
        this.size++;
        if (this.size * 4 > this.slots.length) return this.grow() && this.place(v, h);
        this.slots[i << 1] = v;
        this.slots[(i << 1) + 1] = h;
        return true;
    }

    /** Twice the slots, the values placed again by their hashes. */
    private grow(): boolean {
        const old = this.slots;
        this.slots = new Int32Array(old.length * 2);
        for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 && !this.place(old[i], old[i + 1])) return false;
        return true;
    }
}

/**
 * Codes of the strings of `dict`: code c is `dict[c - base]` (base 0 for a dictionary whose entry 0
 * is the null placeholder, 1 for one that starts at code 1). Entries are added by the owner after
 * it pushes them (`add`), each string once.
 *
 * A probe sequence longer than MAX_PROBES (strings crafted to share a hash, which would make every
 * lookup walk them all and stall ingest for everyone) turns the index into a V8 `Map` for good,
 * whose hash is seeded per process.
 */
export class StringIndex implements StringLookup {
    /** Codes by their strings' hashes; null once the index is a Map. */
    private table: ProbeTable | null;
    private map: Map<string, number> | null = null;

    /** `expected`: about how many strings will be added (a bound known up front saves growing). */
    constructor(
        private readonly dict: readonly string[],
        private readonly base: 0 | 1,
        expected = 0,
    ) {
        this.table = new ProbeTable(expected);
    }

    /** The code of `s` (its hash `h`, when known), or undefined when it is not in the dictionary. */
    get(s: string, h = stringHash(s)): number | undefined {
        if (this.table === null) return this.map!.get(s);
        const slots = this.table.slots;
        const mask = (slots.length >> 1) - 1;
        for (let i = hashSlot(h, mask), probes = 0; ; i = (i + 1) & mask) {
            const c = slots[i << 1];
            if (c === 0) return undefined;
            if (slots[(i << 1) + 1] === h && this.dict[c - this.base] === s) return c;
            if (++probes === MAX_PROBES) return this.toMap().get(s);
        }
    }

    /**
     * The code of `s` (hash `h`); when it has none, notes `code` as its code (the caller then puts
     * `s` in the dictionary as that code) and returns it. One probe sequence for both: a new value
     * is looked for and placed with one walk of the slots.
     */
    getOrAdd(s: string, h: number, code: number): number {
        if (this.table !== null) {
            const table = this.table;
            const slots = table.slots;
            const mask = (slots.length >> 1) - 1;
            for (let i = hashSlot(h, mask), probes = 0; ; i = (i + 1) & mask) {
                const c = slots[i << 1];
                if (c === 0) {
                    if (!table.claim(i, code, h)) this.toMap().set(s, code);
                    return code;
                }
                if (slots[(i << 1) + 1] === h && this.dict[c - this.base] === s) return c;
                if (++probes === MAX_PROBES) break;
            }
        }
        const map = this.toMap();
        const c = map.get(s);
        if (c !== undefined) return c;
        map.set(s, code);
        return code;
    }

    /** Notes that code `code` (already in the dictionary) is `s`, whose hash is `h`. */
    add(s: string, code: number, h = stringHash(s)): void {
        if (this.table === null) this.map!.set(s, code);
        // The Map holds `s` already: it is in the dictionary.
        else if (!this.table.add(code, h)) this.toMap();
    }

    /** Gives up on the hash: every entry of the dictionary into a Map. */
    private toMap(): Map<string, number> {
        if (this.map === null) {
            const map = new Map<string, number>();
            for (let c = 1; c - this.base < this.dict.length; c++) map.set(this.dict[c - this.base], c);
            this.map = map;
            this.table = null;
        }
        return this.map;
    }
}
