/**
 * XXH64 (seed 0), the hash behind a zstd frame's content checksum (RFC 8878 §3.1.1: the low 32 bits
 * of XXH64 of the decompressed frame). fzstd skips that checksum and no xxHash package is installed,
 * so this is the reference algorithm (github.com/Cyan4973/xxHash, doc/xxhash_spec.md) in BigInt,
 * checked against the published test vectors and the zstd CLI. BigInt costs about 1 s per 50 MB,
 * which is acceptable for ingest bodies (bounded by --max-body-bytes).
 */
const M64 = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(x: bigint, r: bigint): bigint {
    return ((x << r) | (x >> (64n - r))) & M64;
}

function round(acc: bigint, lane: bigint): bigint {
    acc = (acc + lane * P2) & M64;
    return (rotl(acc, 31n) * P1) & M64;
}

function mergeRound(acc: bigint, val: bigint): bigint {
    acc ^= round(0n, val);
    return (acc * P1 + P4) & M64;
}

/** XXH64 of `data` with seed 0, as an unsigned 64-bit BigInt. */
export function xxh64(data: Uint8Array): bigint {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const len = data.byteLength;
    let p = 0;
    let acc: bigint;
    if (len >= 32) {
        let v1 = (P1 + P2) & M64;
        let v2 = P2;
        let v3 = 0n;
        let v4 = (M64 + 1n - P1) & M64;
        for (; p + 32 <= len; p += 32) {
            v1 = round(v1, view.getBigUint64(p, true));
            v2 = round(v2, view.getBigUint64(p + 8, true));
            v3 = round(v3, view.getBigUint64(p + 16, true));
            v4 = round(v4, view.getBigUint64(p + 24, true));
        }
        acc = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M64;
        acc = mergeRound(acc, v1);
        acc = mergeRound(acc, v2);
        acc = mergeRound(acc, v3);
        acc = mergeRound(acc, v4);
    } else {
        acc = P5;
    }
    acc = (acc + BigInt(len)) & M64;
    for (; p + 8 <= len; p += 8) {
        acc ^= round(0n, view.getBigUint64(p, true));
        acc = (rotl(acc, 27n) * P1 + P4) & M64;
    }
    if (p + 4 <= len) {
        acc ^= (BigInt(view.getUint32(p, true)) * P1) & M64;
        acc = (rotl(acc, 23n) * P2 + P3) & M64;
        p += 4;
    }
    for (; p < len; p++) {
        acc ^= (BigInt(data[p]) * P5) & M64;
        acc = (rotl(acc, 11n) * P1) & M64;
    }
    acc ^= acc >> 33n;
    acc = (acc * P2) & M64;
    acc ^= acc >> 29n;
    acc = (acc * P3) & M64;
    acc ^= acc >> 32n;
    return acc;
}
