/**
 * Round polynomial messages (compat-v1 §10.3): from the evaluations g(0), g(1), …, g(m) (m ≤ 4)
 * to exactly five ascending coefficients a_0..a_4 with g(T) = Σ a_k·T^k, trailing zeros kept.
 *
 * Interpolation is exact in F (componentwise over the four extension coordinates, because it is
 * linear): Newton forward differences d_k = Δ^k g(0) / k!, then the falling factorials
 * T(T−1)…(T−k+1) are expanded with the signed Stirling numbers of the first kind. The only
 * inverses are those of 2, 6 and 24 (small-integer inverses in F).
 */
import { P, add, inverse, mul, sub } from "../field/koalabear.js";
import { extMulTo } from "../field/ext-inline.js";
import type { Ext } from "../field/extension.js";
import { SumcheckError } from "./errors.js";

/** Number of coefficients of every round polynomial on the wire (degree bound 4). */
export const ROUND_POLY_COEFFS = 5;

/** 1/k! for k = 0..4. */
const INV_FACTORIAL = [1, 1, inverse(2), inverse(6), inverse(24)];

/** STIRLING1[k][j]: coefficient of T^j in T(T−1)…(T−k+1), as field elements. */
const STIRLING1: readonly (readonly number[])[] = [
  [1],
  [0, 1],
  [0, neg(1), 1],
  [0, 2, neg(3), 1],
  [0, neg(6), 11, neg(6), 1],
];

function neg(a: number): number {
  return sub(0, a);
}

/**
 * Interpolates evaluations at T = 0, 1, …, m (1 ≤ m + 1 ≤ 5) into five ascending coefficients.
 * @param evaluations g(0)..g(m) as extension elements.
 * @returns [a_0, a_1, a_2, a_3, a_4] (coefficients above m are zero).
 * @throws SumcheckError `BAD_ROUND_MESSAGE` for 0 or more than 5 evaluations.
 */
export function interpolateRoundPoly(evaluations: readonly Ext[]): Ext[] {
  const n = evaluations.length;
  if (n < 1 || n > ROUND_POLY_COEFFS) {
    throw new SumcheckError(
      "BAD_ROUND_MESSAGE",
      `a round polynomial needs 1 to ${ROUND_POLY_COEFFS} evaluations at 0, 1, …, got ${n}`,
    );
  }
  const out: number[][] = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ];
  for (let c = 0; c < 4; c++) {
    // Forward differences of coordinate c.
    const diff: number[] = evaluations.map((e) => e[c]!);
    const d: number[] = [diff[0]!];
    for (let k = 1; k < n; k++) {
      for (let j = 0; j < n - k; j++) diff[j] = sub(diff[j + 1]!, diff[j]!);
      d.push(mul(diff[0]!, INV_FACTORIAL[k]!));
    }
    for (let k = 0; k < n; k++) {
      const row = STIRLING1[k]!;
      for (let j = 0; j <= k; j++) out[j]![c] = add(out[j]![c]!, mul(d[k]!, row[j]!));
    }
  }
  return out.map((a) => [a[0]!, a[1]!, a[2]!, a[3]!] as Ext);
}

/** g(r) = Σ a_k·r^k by Horner's rule (any number of coefficients; none means g = 0). */
export function evalRoundPoly(coefficients: readonly Ext[], r: Ext): Ext {
  const n = coefficients.length;
  if (n === 0) return [0, 0, 0, 0];
  const top = coefficients[n - 1]!;
  let g0 = top[0],
    g1 = top[1],
    g2 = top[2],
    g3 = top[3];
  const t = HORNER_PRODUCT;
  for (let k = n - 2; k >= 0; k--) {
    extMulTo(t, 0, 1, g0, g1, g2, g3, r[0], r[1], r[2], r[3]);
    const a = coefficients[k]!;
    g0 = (t[0]! + a[0]) % P;
    g1 = (t[1]! + a[1]) % P;
    g2 = (t[2]! + a[2]) % P;
    g3 = (t[3]! + a[3]) % P;
  }
  return [g0, g1, g2, g3];
}

/** The product of one Horner step of `evalRoundPoly`. */
const HORNER_PRODUCT = new Uint32Array(4);

/** g(0) + g(1) = 2·a_0 + a_1 + … + a_m. */
export function roundSum(coefficients: readonly Ext[]): Ext {
  if (coefficients.length === 0) return [0, 0, 0, 0];
  const s = [0, 0, 0, 0];
  for (let c = 0; c < 4; c++) {
    let acc = coefficients[0]![c]!;
    for (const a of coefficients) acc = add(acc, a[c]!);
    s[c] = acc;
  }
  return [s[0]!, s[1]!, s[2]!, s[3]!];
}
