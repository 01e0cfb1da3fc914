/**
 * Allocation-free extension-field arithmetic for the hot loops over plane-layout tables
 * (`ExtVector` layout: coordinate k of element i at word k·stride + i).
 *
 * These are the same formulas as `extMul` in src/field/extension.ts (K = F[X]/(X^4 − 3),
 * compat-v1 §2) written on unpacked coordinates so inner loops do not allocate tuples.
 * Differential tests compare them with the tuple functions.
 */
import { P, mul } from "../field/koalabear.js";

// The sums below are of at most 13 canonical values (< 13·p < 2^35), exact in a double, and are
// reduced once with `%`; every product of two field elements goes through `mul`.

/** Writes a·b into out[o], out[o + stride], out[o + 2·stride], out[o + 3·stride]. */
export function extMulTo(
  out: Uint32Array,
  o: number,
  stride: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  out[o] = (mul(a0, b0) + 3 * (mul(a1, b3) + mul(a2, b2) + mul(a3, b1))) % P;
  out[o + stride] = (mul(a0, b1) + mul(a1, b0) + 3 * (mul(a2, b3) + mul(a3, b2))) % P;
  out[o + 2 * stride] = (mul(a0, b2) + mul(a1, b1) + mul(a2, b0) + 3 * mul(a3, b3)) % P;
  out[o + 3 * stride] = (mul(a0, b3) + mul(a1, b2) + mul(a2, b1) + mul(a3, b0)) % P;
}

/** Adds a·b into out[o + k·stride] (k = 0..3). */
export function extMulAddTo(
  out: Uint32Array,
  o: number,
  stride: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  out[o] = (out[o]! + mul(a0, b0) + 3 * (mul(a1, b3) + mul(a2, b2) + mul(a3, b1))) % P;
  const o1 = o + stride;
  out[o1] = (out[o1]! + mul(a0, b1) + mul(a1, b0) + 3 * (mul(a2, b3) + mul(a3, b2))) % P;
  const o2 = o1 + stride;
  out[o2] = (out[o2]! + mul(a0, b2) + mul(a1, b1) + mul(a2, b0) + 3 * mul(a3, b3)) % P;
  const o3 = o2 + stride;
  out[o3] = (out[o3]! + mul(a0, b3) + mul(a1, b2) + mul(a2, b1) + mul(a3, b0)) % P;
}

/** Adds s·b (s a base scalar) into out[o + k·stride] (k = 0..3). */
export function extScaleAddTo(
  out: Uint32Array,
  o: number,
  stride: number,
  s: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  out[o] = (out[o]! + mul(s, b0)) % P;
  out[o + stride] = (out[o + stride]! + mul(s, b1)) % P;
  out[o + 2 * stride] = (out[o + 2 * stride]! + mul(s, b2)) % P;
  out[o + 3 * stride] = (out[o + 3 * stride]! + mul(s, b3)) % P;
}
