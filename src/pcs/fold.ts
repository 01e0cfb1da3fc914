/**
 * The verifier's fold of one codeword row (docs/pcs.md §4.4). Row j of f_i holds F at the points
 * x·ζ^t (t < 2^k), x = ω^j, ζ a primitive 2^k-th root of unity. One step pairs t with
 * t + 2^(k−1) (the points y and −y) and keeps
 *   F_even(y²) + α·F_odd(y²) = (F(y) + F(−y))/2 + α·(F(y) − F(−y))/(2y),
 * the values of f̂(α, X_1, …)'s univariate polynomial at the squared points; after k steps with
 * α_0 … α_(k−1) one value remains: the folded function at x^(2^k).
 */
import { P, add, batchInverse, mul, sub } from "../field/koalabear.js";
import { extMulTo } from "../field/ext-inline.js";
import type { Ext } from "../field/extension.js";

const INV2 = (P + 1) / 2;

/**
 * Folds a row of 2^k values (interleaved extension words; a base-field row lifted) at x by the
 * k challenges.
 */
export function foldRow(row: Uint32Array, x: number, zeta: number, alphas: readonly Ext[]): Ext {
  let cur = row; // never written: each step builds a new array
  let size = cur.length / 4;
  let base = x;
  let root = zeta;
  for (const alpha of alphas) {
    const half = size >> 1;
    const ys = new Uint32Array(half);
    let y = base;
    for (let t = 0; t < half; t++) {
      ys[t] = mul(y, 2);
      y = mul(y, root);
    }
    const inv = batchInverse(ys);
    const next = new Uint32Array(4 * half);
    const b0 = alpha[0],
      b1 = alpha[1],
      b2 = alpha[2],
      b3 = alpha[3];
    for (let t = 0; t < half; t++) {
      const lo = 4 * t,
        hi = 4 * (t + half);
      const it = inv[t]!;
      const o0 = mul(sub(cur[lo]!, cur[hi]!), it),
        o1 = mul(sub(cur[lo + 1]!, cur[hi + 1]!), it);
      const o2 = mul(sub(cur[lo + 2]!, cur[hi + 2]!), it),
        o3 = mul(sub(cur[lo + 3]!, cur[hi + 3]!), it);
      extMulTo(next, lo, 1, o0, o1, o2, o3, b0, b1, b2, b3);
      for (let l = 0; l < 4; l++) next[lo + l] = add(next[lo + l]!, mul(add(cur[lo + l]!, cur[hi + l]!), INV2));
    }
    cur = next;
    size = half;
    base = mul(base, base);
    root = mul(root, root);
  }
  return [cur[0]!, cur[1]!, cur[2]!, cur[3]!];
}
