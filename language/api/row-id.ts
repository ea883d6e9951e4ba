/**
 * Row ids and cursors (API.md §10.1), one module for the engine, the durable store and the service:
 * `base36(_time ns, left-padded to 13) + "-" + 16 hex batch id + "-" + 8 hex row index`. Plain
 * string comparison orders them by (_time, batch, row). Times before 1970 are clamped to 0 for the
 * id (they still sort first); 13 base-36 digits hold any positive int64.
 *
 * The service's batch id is the dataset's WAL sequence number of the ingest batch (persisted,
 * unique and increasing across restarts, see server/store/FORMAT.md); an engine used on its own
 * makes ids from the clock (`newBatchId`).
 */

/** A batch id as 16 hex digits; a string is taken as already formatted. */
export function batchIdHex(seq: number | bigint | string): string {
    if (typeof seq === 'string') return seq;
    return seq.toString(16).padStart(16, '0');
}

export function formatRowId(timeNs: bigint, batch: number | bigint | string, row: number): string {
    const t = timeNs > 0n ? timeNs.toString(36).padStart(13, '0') : '0000000000000';
    return `${t}-${batchIdHex(batch)}-${row.toString(16).padStart(8, '0')}`;
}

/** A row id or cursor split into its parts; `batch` stays the hex text (ids of any origin compare as text). */
export interface ParsedCursor {
    raw: string;
    ns: bigint;
    batch: string;
    seq: number;
}

/** A cursor as clients send it back: the parts of a row id, leniently (any number of digits per part). */
export function parseCursor(raw: string): ParsedCursor | undefined {
    const m = /^([0-9a-z]+)-([0-9a-f]+)-([0-9a-f]+)$/.exec(raw.trim());
    if (!m) return undefined;
    let ns = 0n;
    for (const ch of m[1]) ns = ns * 36n + BigInt(parseInt(ch, 36));
    return { raw, ns, batch: m[2], seq: parseInt(m[3], 16) };
}

/** True when `id` has the shape of a row id (what the service accepts as a cursor). */
export function isRowId(id: string): boolean {
    return /^[0-9a-z]{1,13}-[0-9a-f]{16}-[0-9a-f]{8}$/.test(id);
}

/** A canonical row id split into its parts (no regex, two BigInt steps); undefined if not canonical. */
export function parseRowIdFast(id: string): { ns: bigint; batch: string; seq: number } | undefined {
    if (id.length !== 39 || id.charCodeAt(13) !== 45 || id.charCodeAt(30) !== 45) return undefined;
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < 13; i++) {
        const c = id.charCodeAt(i);
        const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
        if (d < 0) return undefined;
        if (i < 4) hi = hi * 36 + d;
        else lo = lo * 36 + d;
    }
    for (let i = 14; i < 39; i++) {
        if (i === 30) continue;
        const c = id.charCodeAt(i);
        if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return undefined;
    }
    // 36^9 = 101559956668416
    return { ns: BigInt(hi) * 101559956668416n + BigInt(lo), batch: id.slice(14, 30), seq: parseInt(id.slice(31), 16) };
}

let batchCounter = 0;
let lastBatchMs = 0;

/** A fresh 16-hex batch id for an engine used on its own; ids increase over time within a process. */
export function newBatchId(): string {
    let ms = Date.now();
    if (ms <= lastBatchMs) ms = lastBatchMs;
    else batchCounter = 0;
    lastBatchMs = ms;
    const id = (BigInt(ms) << 20n) | BigInt(batchCounter++ & 0xfffff);
    return id.toString(16).padStart(16, '0').slice(-16);
}
