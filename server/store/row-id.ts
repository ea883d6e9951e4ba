/**
 * Row ids (API.md §10.1): `base36(_time ns, left-padded to 13) + "-" + 16 hex batch id + "-" + 8 hex
 * row index`. Plain string comparison orders them by (_time, batch, row). Times before 1970 are
 * clamped to 0 for the id (they still sort first); 13 base-36 digits hold any positive int64.
 *
 * The batch id is the dataset's WAL sequence number of the ingest batch: persisted, unique and
 * strictly increasing across restarts (see FORMAT.md).
 */
export function formatRowId(timeNs: bigint, batchSeq: number, row: number): string {
    const t = timeNs > 0n ? timeNs.toString(36).padStart(13, '0') : '0000000000000';
    return `${t}-${batchIdHex(batchSeq)}-${row.toString(16).padStart(8, '0')}`;
}

/** `formatRowId` for the rows of one batch (the batch part is formatted once). */
export function batchRowIds(batchSeq: number): (timeNs: bigint, row: number) => string {
    const mid = `-${batchIdHex(batchSeq)}-`;
    return (timeNs, row) => (timeNs > 0n ? timeNs.toString(36).padStart(13, '0') : '0000000000000') + mid + row.toString(16).padStart(8, '0');
}

export function batchIdHex(seq: number): string {
    return seq.toString(16).padStart(16, '0');
}

export interface ParsedRowId {
    timeNs: bigint;
    batchSeq: number;
    row: number;
}

export function parseRowId(id: string): ParsedRowId | undefined {
    const m = /^([0-9a-z]{1,13})-([0-9a-f]{16})-([0-9a-f]{8})$/.exec(id);
    if (!m) return undefined;
    let t = 0n;
    for (const ch of m[1]) t = t * 36n + BigInt(parseInt(ch, 36));
    return { timeNs: t, batchSeq: parseInt(m[2], 16), row: parseInt(m[3], 16) };
}
