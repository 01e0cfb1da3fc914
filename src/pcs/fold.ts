/**
 * The verifier's fold of one codeword row (docs/pcs.md §4.4). Row j of f_i holds F at the points
 * x·ζ^t (t < 2^k), x = ω^j, ζ a primitive 2^k-th root of unity. One step pairs t with
 * t + 2^(k−1) (the points y and −y) and keeps
 *   F_even(y²) + α·F_odd(y²) = (F(y) + F(−y))/2 + α·(F(y) − F(−y))/(2y),
 * the values of f̂(α, X_1, …)'s univariate polynomial at the squared points; after k steps with
 * α_0 … α_(k−1) one value remains: the folded function at x^(2^k).
 */
import { P, add, batchInverse, inverse, mul, pow, sub } from "../field/koalabear.js";
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

/**
 * `foldRow` for the rows of one iteration (its domain generator ω, 2^k-th root ζ and k
 * challenges): the same values by fewer products. The step's inverses 1/y come from one
 * inverse per row, 1/y = x^(−2^s)·ζ^(−t·2^s) at step s (ζ's inverse powers tabled
 * once) instead of a batch inversion per step; a base-field row's first step multiplies by the
 * challenge lane by lane instead of lifting the row; each step keeps twice its values (no
 * halving per pair; the last value is multiplied by 2^(−k)); the steps reuse two scratch arrays.
 */
export class RowFolder {
  private readonly zetaInverses: Uint32Array;
  private readonly a: Uint32Array;
  private readonly b: Uint32Array;
  /** 2^(−k). */
  private readonly inverse2k: number;

  constructor(
    private readonly k: number,
    zeta: number,
    private readonly alphas: readonly Ext[],
  ) {
    const half = k === 0 ? 0 : 1 << (k - 1);
    this.zetaInverses = new Uint32Array(Math.max(1, half));
    const zi = k === 0 ? 1 : inverse(zeta);
    let z = 1;
    for (let t = 0; t < half; t++) {
      this.zetaInverses[t] = z;
      z = mul(z, zi);
    }
    this.a = new Uint32Array(Math.max(4, 4 * half));
    this.b = new Uint32Array(Math.max(4, 4 * half));
    this.inverse2k = pow(INV2, k);
  }

  /** `foldRow` of `row` at x ≠ 0: 2^k interleaved extension values (`width` 4) or base-field values (`width` 1). */
  fold(row: Uint32Array, width: 1 | 4, x: number): Ext {
    const { k, alphas, zetaInverses } = this;
    if (k === 0) return width === 1 ? [row[0]!, 0, 0, 0] : [row[0]!, row[1]!, row[2]!, row[3]!];
    // Each step computes twice its value, (v_t + v_(t+h)) + α·(v_t − v_(t+h))/y, and the one value
    // left is multiplied by 2^(−k) at the end: no halving per pair.
    let xi = inverse(x); // x^(−2^s) at step s
    let cur = row;
    let out = this.a;
    let half = 1 << (k - 1);
    for (let s = 0; s < k; s++, half >>= 1) {
      const alpha = alphas[s]!;
      const b0 = alpha[0],
        b1 = alpha[1],
        b2 = alpha[2],
        b3 = alpha[3];
      if (s === 0 && width === 1) {
        for (let t = 0; t < half; t++) {
          const lo = cur[t]!,
            hi = cur[t + half]!;
          const o = mul(sub(lo, hi), mul(xi, zetaInverses[t]!));
          const at = 4 * t;
          out[at] = add(add(lo, hi), mul(b0, o));
          out[at + 1] = mul(b1, o);
          out[at + 2] = mul(b2, o);
          out[at + 3] = mul(b3, o);
        }
      } else {
        for (let t = 0; t < half; t++) {
          const lo = 4 * t,
            hi = 4 * (t + half);
          const it = mul(xi, zetaInverses[t << s]!);
          const l0 = cur[lo]!,
            l1 = cur[lo + 1]!,
            l2 = cur[lo + 2]!,
            l3 = cur[lo + 3]!,
            h0 = cur[hi]!,
            h1 = cur[hi + 1]!,
            h2 = cur[hi + 2]!,
            h3 = cur[hi + 3]!;
          extMulTo(
            out,
            lo,
            1,
            mul(sub(l0, h0), it),
            mul(sub(l1, h1), it),
            mul(sub(l2, h2), it),
            mul(sub(l3, h3), it),
            b0,
            b1,
            b2,
            b3,
          );
          out[lo] = add(out[lo]!, add(l0, h0));
          out[lo + 1] = add(out[lo + 1]!, add(l1, h1));
          out[lo + 2] = add(out[lo + 2]!, add(l2, h2));
          out[lo + 3] = add(out[lo + 3]!, add(l3, h3));
        }
      }
      cur = out;
      out = out === this.a ? this.b : this.a;
      xi = mul(xi, xi);
    }
    const scale = this.inverse2k;
    return [mul(cur[0]!, scale), mul(cur[1]!, scale), mul(cur[2]!, scale), mul(cur[3]!, scale)];
  }
}
