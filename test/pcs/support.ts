/** Deterministic polynomials and claims for the WHIR tests. */
import { P, add, mul } from "../../src/field/koalabear.js";
import { extAdd, extMul, type Ext } from "../../src/field/extension.js";
import {
  evaluateCoefficients,
  evaluationsToCoefficients,
  laneWeights,
  liftToExtension,
} from "../../src/pcs/multilinear.js";
import type { WhirBlockClaim, WhirClaim, WhirWeightBlock } from "../../src/pcs/types.js";

/** A small deterministic generator of canonical field elements (xorshift32 reduced mod p). */
export function rng(seed: number): () => number {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % P;
  };
}

/** `words` canonical field elements from `rng(seed)`. */
export function randomWords(words: number, seed: number): Uint32Array {
  const next = rng(seed);
  return new Uint32Array(words).map(() => next());
}

export function randomEvaluations(m: number, seed: number, width = 1): Uint32Array {
  return randomWords(width << m, seed);
}

export function randomPoint(m: number, seed: number): Ext[] {
  const next = rng(seed);
  return Array.from({ length: m }, () => [next(), next(), next(), next()] as Ext);
}

/** n deterministic extension weights (a block claim's). */
export function randomWeights(n: number, seed: number): Ext[] {
  return randomPoint(n, seed);
}

/** Σ over the blocks of Σ_i weights[i]·f(offset + i), by its definition (base-field evaluations). */
export function blocksValue(evals: Uint32Array, blocks: readonly WhirWeightBlock[]): Ext {
  let acc: Ext = [0, 0, 0, 0];
  for (const b of blocks)
    laneWeights(b).forEach((w, i) => {
      acc = extAdd(acc, extMul(w, [evals[b.offset + i]!, 0, 0, 0]));
    });
  return acc;
}

/** A true block claim over block q of 2^b lanes, random weights. */
export function blockClaim(evals: Uint32Array, b: number, q: number, seed: number): WhirBlockClaim {
  const block = { offset: q << b, weights: randomWeights(1 << b, seed) };
  return { block, value: blocksValue(evals, [block]) };
}

/** The MLE of `evaluations` at `point` (through the coefficients). */
export function mleAt(evaluations: Uint32Array, point: readonly Ext[], width = 1): Ext {
  const c = width === 1 ? liftToExtension(evaluations) : evaluations.slice();
  evaluationsToCoefficients(c, 4);
  return evaluateCoefficients(c, point);
}

/** Two true claims, as the GKR input layer's x* and y*. */
export function twoClaims(evaluations: Uint32Array, m: number, seed: number, width = 1): WhirClaim[] {
  return [0, 1].map((j) => {
    const point = randomPoint(m, seed * 7 + j + 1);
    return { point, value: mleAt(evaluations, point, width) };
  });
}

/** The MLE by its definition Σ_b eq(point, b)·f(b) (base-field evaluations). */
export function mleByDefinition(evaluations: Uint32Array, point: readonly Ext[]): Ext {
  const n = evaluations.length;
  let acc: Ext = [0, 0, 0, 0];
  for (let b = 0; b < n; b++) {
    let w: Ext = [1, 0, 0, 0];
    point.forEach((p, j) => {
      const bit = (b >> j) & 1;
      const f: Ext = bit ? p : [(1 - p[0] + P) % P, (P - p[1]) % P, (P - p[2]) % P, (P - p[3]) % P];
      w = extMulLocal(w, f);
    });
    const v = evaluations[b]!;
    acc = [add(acc[0], mul(w[0], v)), add(acc[1], mul(w[1], v)), add(acc[2], mul(w[2], v)), add(acc[3], mul(w[3], v))];
  }
  return acc;
}

function extMulLocal(a: Ext, b: Ext): Ext {
  const r = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++)
    for (let j = 0; j < 4; j++) {
      const p = mul(a[i]!, b[j]!);
      const k = i + j;
      if (k < 4) r[k] = add(r[k]!, p);
      else r[k - 4] = add(r[k - 4]!, mul(3, p));
    }
  return r as unknown as Ext;
}
