/**
 * Element-wise arithmetic over number columns (long and real semantics of scalar-ops.ts). A
 * module-level kernel over typed arrays so its optimized code survives major GCs (see select.ts);
 * the operator is a small integer so the per-row switch compares numbers, not strings.
 */
import { longArith } from '../scalar-ops.js';

const OPS = ['+', '-', '*', '/', '%'] as const;

/** The kernel's code of an arithmetic operator, or -1. */
export function arithOpCode(op: string): number {
    return (OPS as readonly string[]).indexOf(op);
}

/** One side of a binary operation: a column (vals, nulls, sel) or, when `isConst`, the number k. */
export interface ArithSide {
    vals: Float64Array;
    nulls: Uint8Array | null;
    sel: Uint32Array | null;
    k: number;
    isConst: boolean;
}

/**
 * out[i] = a[i] op b[i]; rows where a side is null, or the long result is null (division by
 * zero), get outNulls[i] = 1. Returns how many such rows there are.
 */
export function arithColumns(op: number, isLong: boolean, a: ArithSide, b: ArithSide, n: number, out: Float64Array, outNulls: Uint8Array): number {
    return arithKernel(op, isLong, a.vals, a.nulls, a.sel, a.k, a.isConst, b.vals, b.nulls, b.sel, b.k, b.isConst, n, out, outNulls);
}

function arithKernel(
    op: number, isLong: boolean,
    av: Float64Array, an: Uint8Array | null, as: Uint32Array | null, ak: number, ac: boolean,
    bv: Float64Array, bn: Uint8Array | null, bs: Uint32Array | null, bk: number, bc: boolean,
    n: number, out: Float64Array, outNulls: Uint8Array,
): number {
    let nulls = 0;
    for (let i = 0; i < n; i++) {
        let x = ak;
        if (!ac) {
            const j = as === null ? i : as[i];
            if (an !== null && an[j] === 1) {
                outNulls[i] = 1;
                nulls++;
                continue;
            }
            x = av[j];
        }
        let y = bk;
        if (!bc) {
            const j = bs === null ? i : bs[i];
            if (bn !== null && bn[j] === 1) {
                outNulls[i] = 1;
                nulls++;
                continue;
            }
            y = bv[j];
        }
        if (!isLong) {
            // realArith, spelled out so that no operator string is compared per row.
            out[i] = op === 0 ? x + y : op === 1 ? x - y : op === 2 ? x * y : op === 3 ? x / y : x % y;
            continue;
        }
        if (op === 0 || op === 1) {
            const r = op === 0 ? x + y : x - y;
            out[i] = r <= 9007199254740991 && r >= -9007199254740991 ? r : longArith(OPS[op], x, y)!;
        } else if (op === 3) {
            if (y === 0) {
                outNulls[i] = 1;
                nulls++;
            } else if (Math.abs(x) >= 2 ** 52) out[i] = longArith('/', x, y)!;
            else {
                const q = x / y;
                out[i] = q < 0 ? Math.ceil(q) : Math.floor(q);
            }
        } else {
            const r = longArith(OPS[op], x, y);
            if (r === null) {
                outNulls[i] = 1;
                nulls++;
            } else out[i] = r;
        }
    }
    return nulls;
}
