/**
 * Multilinear tools (compat-v1 §1 "Bit order of points", §10.1).
 *
 * Points are MSB-first: for a table of length 2^n and a point (z_0 … z_{n−1}), coordinate j pairs
 * with bit (n−1−j) of the index, so variable 0 is the most significant index bit.
 *  - eq(z, b) = Π_j (z_j·b_j + (1 − z_j)(1 − b_j)), b_j = bit (n−1−j) of b.
 *  - MLE(T)(z) = Σ_b T[b]·eq(z, b), computed in fold form: for r = z_0, z_1, … in order, with
 *    h = len/2, T[j] ← T[j] + r·(T[j+h] − T[j]) for j < h.
 *
 * Extension tables use the `ExtVector` plane layout. Folding an extension table happens in place:
 * the result is written compactly (planes of length h) into the front of the same buffer and
 * returned as a new `ExtVector` view of it; the input view must not be used afterwards.
 */
import { P, add, sub, mul } from "../field/koalabear.js";
import { EXT_ONE, extMul, extAdd, type Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { SumcheckError } from "./errors.js";
import { extMulTo } from "../field/ext-inline.js";

/** Largest number of variables a table may have here (tables are indexed by 31-bit integers). */
export const MAX_TABLE_BITS = 30;

function checkBits(n: number, what: string): void {
  if (n > MAX_TABLE_BITS)
    throw new SumcheckError("BAD_POINT", `${what}: ${n} variables exceed the limit of ${MAX_TABLE_BITS}`);
}

/**
 * eq table E[b] = scale·eq(point, b) for b < 2^n (n = point.length), plane layout.
 * One extension multiplication per entry. Allocates 16·2^n bytes.
 * @throws SumcheckError `BAD_POINT` for more than 30 coordinates.
 */
export function eqTable(point: readonly Ext[], scale: Ext = EXT_ONE): ExtVector {
  const n = point.length;
  checkBits(n, "eqTable");
  const N = 2 ** n;
  const v = new ExtVector(N);
  const d = v.data;
  const N2 = 2 * N;
  const N3 = 3 * N;
  d[0] = scale[0];
  d[N] = scale[1];
  d[N2] = scale[2];
  d[N3] = scale[3];
  let size = 1;
  for (let j = 0; j < n; j++) {
    const z = point[j]!;
    const z0 = z[0],
      z1 = z[1],
      z2 = z[2],
      z3 = z[3];
    // Descending b: entries 2b and 2b+1 are written after entry b is read, and never read again.
    for (let b = size - 1; b >= 0; b--) {
      const e0 = d[b]!,
        e1 = d[N + b]!,
        e2 = d[N2 + b]!,
        e3 = d[N3 + b]!;
      const hi = 2 * b + 1;
      extMulTo(d, hi, N, e0, e1, e2, e3, z0, z1, z2, z3);
      const lo = 2 * b;
      d[lo] = sub(e0, d[hi]!);
      d[N + lo] = sub(e1, d[N + hi]!);
      d[N2 + lo] = sub(e2, d[N2 + hi]!);
      d[N3 + lo] = sub(e3, d[N3 + hi]!);
    }
    size *= 2;
  }
  return v;
}

/** eq(point, index) as a direct product over the coordinates (O(n); reference for tests and small uses). */
export function eqAt(point: readonly Ext[], index: number): Ext {
  const n = point.length;
  const t = EQ_PRODUCT;
  let a0 = 1,
    a1 = 0,
    a2 = 0,
    a3 = 0;
  for (let j = 0; j < n; j++) {
    const bit = Math.floor(index / 2 ** (n - 1 - j)) % 2;
    const z = point[j]!;
    // the factor z_j, or 1 − z_j
    if (bit === 1) extMulTo(t, 0, 1, a0, a1, a2, a3, z[0], z[1], z[2], z[3]);
    else extMulTo(t, 0, 1, a0, a1, a2, a3, sub(1, z[0]), sub(0, z[1]), sub(0, z[2]), sub(0, z[3]));
    a0 = t[0]!;
    a1 = t[1]!;
    a2 = t[2]!;
    a3 = t[3]!;
  }
  return [a0, a1, a2, a3];
}

/** The running product of `eqAt`. */
const EQ_PRODUCT = new Uint32Array(4);

/** β(y) = Π_j (1 − y_j) = eq(y, 0) (compat-v1 §10.1). */
export function betaAt(point: readonly Ext[]): Ext {
  return eqAt(point, 0);
}

function checkPowerOfTwo(len: number, what: string): number {
  let n = 0;
  while (2 ** n < len) n++;
  if (2 ** n !== len) throw new SumcheckError("BAD_TABLE", `${what}: length ${len} is not a power of two`);
  return n;
}

/**
 * Folds a base table on its most significant variable: out[j] = T[j] + r·(T[j+h] − T[j]), j < h.
 * Returns a new extension table of length h (allocates 16·h bytes); `values` is not modified.
 * @throws SumcheckError `BAD_TABLE` if the length is not an even power of two ≥ 2.
 */
export function foldBase(values: ArrayLike<number>, r: Ext): ExtVector {
  const len = values.length;
  checkPowerOfTwo(len, "foldBase");
  if (len < 2) throw new SumcheckError("BAD_TABLE", "foldBase: a table of length 1 has no variable left to fold");
  const h = len / 2;
  const out = new ExtVector(h);
  const d = out.data;
  const r0 = r[0],
    r1 = r[1],
    r2 = r[2],
    r3 = r[3];
  for (let j = 0; j < h; j++) {
    const lo = values[j]!;
    const diff = sub(values[j + h]!, lo);
    d[j] = add(lo, mul(r0, diff));
    d[h + j] = mul(r1, diff);
    d[2 * h + j] = mul(r2, diff);
    d[3 * h + j] = mul(r3, diff);
  }
  return out;
}

/**
 * Folds an extension table in place on its most significant variable (see the module comment for
 * the compact in-place layout). Returns the view of length h over the same buffer.
 * @throws SumcheckError `BAD_TABLE` if the table has length < 2 or not a power of two.
 */
export function foldExtInPlace(table: ExtVector, r: Ext): ExtVector {
  const len = table.length;
  checkPowerOfTwo(len, "foldExtInPlace");
  if (len < 2) throw new SumcheckError("BAD_TABLE", "foldExtInPlace: a table of length 1 has no variable left to fold");
  const h = len / 2;
  const d = table.data;
  const r0 = r[0],
    r1 = r[1],
    r2 = r[2],
    r3 = r[3];
  const L1 = len,
    L2 = 2 * len,
    L3 = 3 * len;
  const H2 = 2 * h,
    H3 = 3 * h;
  // Iteration j reads old words {k·len + j, k·len + j + h} and writes new words {k·h + j}; no
  // word written in iteration j is read by a later iteration (k·h + j ≠ k'·2h + j' (+h) for j' > j).
  for (let j = 0; j < h; j++) {
    const a0 = d[j]!,
      a1 = d[L1 + j]!,
      a2 = d[L2 + j]!,
      a3 = d[L3 + j]!;
    const jh = j + h;
    // e = T[j+h] − T[j], shifted into [0, 2p) and reduced
    const e0 = (d[jh]! + P - a0) % P,
      e1 = (d[L1 + jh]! + P - a1) % P,
      e2 = (d[L2 + jh]! + P - a2) % P,
      e3 = (d[L3 + jh]! + P - a3) % P;
    d[j] = (a0 + mul(r0, e0) + 3 * (mul(r1, e3) + mul(r2, e2) + mul(r3, e1))) % P;
    d[h + j] = (a1 + mul(r0, e1) + mul(r1, e0) + 3 * (mul(r2, e3) + mul(r3, e2))) % P;
    d[H2 + j] = (a2 + mul(r0, e2) + mul(r1, e1) + mul(r2, e0) + 3 * mul(r3, e3)) % P;
    d[H3 + j] = (a3 + mul(r0, e3) + mul(r1, e2) + mul(r2, e1) + mul(r3, e0)) % P;
  }
  return new ExtVector(h, d.subarray(0, 4 * h));
}

/**
 * MLE of a base vector (length 2^n) at an extension point of n coordinates, by folding.
 * Values must be canonical (not checked). Allocates 8·2^n bytes once; `values` is not modified.
 * @throws SumcheckError `BAD_POINT` if values.length ≠ 2^point.length.
 */
export function mleEvalBase(values: ArrayLike<number>, point: readonly Ext[]): Ext {
  const n = point.length;
  checkBits(n, "mleEvalBase");
  if (values.length !== 2 ** n) {
    throw new SumcheckError(
      "BAD_POINT",
      `mleEvalBase: a point of ${n} coordinates needs a table of 2^${n} = ${2 ** n} values, got ${values.length}`,
    );
  }
  if (n === 0) return [values[0]!, 0, 0, 0];
  let t = foldBase(values, point[0]!);
  for (let j = 1; j < n; j++) t = foldExtInPlace(t, point[j]!);
  return t.get(0);
}

/**
 * MLE of an extension table (length 2^n) at a point of n coordinates; `table` is not modified.
 * @throws SumcheckError `BAD_POINT` if table.length ≠ 2^point.length.
 */
export function mleEvalExt(table: ExtVector, point: readonly Ext[]): Ext {
  const n = point.length;
  checkBits(n, "mleEvalExt");
  if (table.length !== 2 ** n) {
    throw new SumcheckError(
      "BAD_POINT",
      `mleEvalExt: a point of ${n} coordinates needs a table of 2^${n} = ${2 ** n} values, got ${table.length}`,
    );
  }
  let t = new ExtVector(table.length, table.data.slice());
  for (let j = 0; j < n; j++) t = foldExtInPlace(t, point[j]!);
  return t.get(0);
}

/** Reference MLE by the definition Σ_b T[b]·eq(z, b) (O(n·2^n); for tests and tiny tables). */
export function mleEvalByDefinition(values: readonly Ext[], point: readonly Ext[]): Ext {
  let acc: Ext = [0, 0, 0, 0];
  for (let b = 0; b < values.length; b++) acc = extAdd(acc, extMul(values[b]!, eqAt(point, b)));
  return acc;
}
