/** fast-check generators for kernel tests: field elements biased towards edge values. */
import fc from "fast-check";
import { P } from "../../../src/field/koalabear.js";
import type { Ext } from "../../../src/field/extension.js";
import { ExtVector } from "../../../src/field/ext-vector.js";

/** 0, 1, p − 1, p − 2, values near 2^31 and 2^30, powers of two around 2^24, (p ± 1)/2. */
export const EDGE_VALUES: readonly number[] = [
  0,
  1,
  2,
  P - 1,
  P - 2,
  P - 3,
  2 ** 30,
  2 ** 30 - 1,
  2 ** 30 + 1,
  2 ** 31 - 2 ** 24,
  2 ** 31 - 2 ** 24 - 1,
  2 ** 24,
  2 ** 24 + 1,
  2 ** 24 - 1,
  (P - 1) / 2,
  (P + 1) / 2,
  127,
  255,
  256,
];

export const element = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: P - 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...EDGE_VALUES) },
);

export const extElement: fc.Arbitrary<Ext> = fc.tuple(element, element, element, element);

/** A base vector of a length in [min, max]. */
export function baseVector(min: number, max: number): fc.Arbitrary<Uint32Array> {
  return fc.array(element, { minLength: min, maxLength: max }).map((a) => Uint32Array.from(a));
}

/** Two base vectors of one common length in [min, max]. */
export function basePair(min: number, max: number): fc.Arbitrary<[Uint32Array, Uint32Array]> {
  return fc
    .integer({ min, max })
    .chain((n) =>
      fc.tuple(fc.array(element, { minLength: n, maxLength: n }), fc.array(element, { minLength: n, maxLength: n })),
    )
    .map(([a, b]) => [Uint32Array.from(a), Uint32Array.from(b)]);
}

/** An extension vector of exactly n elements. */
export function extVector(n: number): fc.Arbitrary<ExtVector> {
  return fc.array(element, { minLength: 4 * n, maxLength: 4 * n }).map((w) => new ExtVector(n, Uint32Array.from(w)));
}

/** A uniformly random canonical vector (no fast-check shrinking, for larger sizes). */
export function randomVector(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * P);
  return out;
}
