/**
 * Univariate polynomials over the extension K as ascending coefficient lists, for the round
 * polynomials of the zero-knowledge layer sumcheck (docs/profile-v3.md §11.4), whose last rounds
 * have degree up to 7: products of the linear tables of a round and of the masked V̇.
 */
import { EXT_ZERO, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";

/** Ascending coefficients a_0..a_d of Σ a_e·X^e. */
export type UniPoly = readonly Ext[];

/** The line through (0, at0) and (1, at1): [at0, at1 − at0]. */
export function linePoly(at0: Ext, at1: Ext): UniPoly {
  return [at0, extSub(at1, at0)];
}

/** a + b. */
export function polyAdd(a: UniPoly, b: UniPoly): Ext[] {
  const out: Ext[] = [];
  for (let e = 0; e < Math.max(a.length, b.length); e++) out.push(extAdd(a[e] ?? EXT_ZERO, b[e] ?? EXT_ZERO));
  return out;
}

/** c·a. */
export function polyScale(a: UniPoly, c: Ext): Ext[] {
  return a.map((x) => extMul(x, c));
}

/** a·b (schoolbook; the operands have at most a few coefficients). */
export function polyMul(a: UniPoly, b: UniPoly): Ext[] {
  if (a.length === 0 || b.length === 0) return [];
  const out: Ext[] = Array.from({ length: a.length + b.length - 1 }, () => EXT_ZERO);
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < b.length; j++) out[i + j] = extAdd(out[i + j]!, extMul(a[i]!, b[j]!));
  return out;
}
