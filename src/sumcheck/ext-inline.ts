/**
 * Allocation-free extension-field arithmetic for the hot loops over plane-layout tables
 * (`ExtVector` layout: coordinate k of element i at word k·stride + i).
 *
 * These are the same formulas as `extMul` in src/field/extension.ts (K = F[X]/(X^4 − 3),
 * compat-v1 §2) written on unpacked coordinates so inner loops do not allocate tuples.
 * Differential tests compare them with the tuple functions.
 */
import { P, add, mul } from "../field/koalabear.js";

/** 3·x mod p for canonical x. */
export function times3(x: number): number {
  let t = x + x + x;
  if (t >= P) t -= P;
  if (t >= P) t -= P;
  return t;
}

/** Writes a·b into out[o], out[o + stride], out[o + 2·stride], out[o + 3·stride]. */
export function extMulTo(
  out: Uint32Array, o: number, stride: number,
  a0: number, a1: number, a2: number, a3: number,
  b0: number, b1: number, b2: number, b3: number,
): void {
  out[o] = add(mul(a0, b0), times3(add(add(mul(a1, b3), mul(a2, b2)), mul(a3, b1))));
  out[o + stride] = add(add(mul(a0, b1), mul(a1, b0)), times3(add(mul(a2, b3), mul(a3, b2))));
  out[o + 2 * stride] = add(add(add(mul(a0, b2), mul(a1, b1)), mul(a2, b0)), times3(mul(a3, b3)));
  out[o + 3 * stride] = add(add(add(mul(a0, b3), mul(a1, b2)), mul(a2, b1)), mul(a3, b0));
}

/** Adds a·b into out[o + k·stride] (k = 0..3). */
export function extMulAddTo(
  out: Uint32Array, o: number, stride: number,
  a0: number, a1: number, a2: number, a3: number,
  b0: number, b1: number, b2: number, b3: number,
): void {
  out[o] = add(out[o]!, add(mul(a0, b0), times3(add(add(mul(a1, b3), mul(a2, b2)), mul(a3, b1)))));
  const o1 = o + stride;
  out[o1] = add(out[o1]!, add(add(mul(a0, b1), mul(a1, b0)), times3(add(mul(a2, b3), mul(a3, b2)))));
  const o2 = o1 + stride;
  out[o2] = add(out[o2]!, add(add(add(mul(a0, b2), mul(a1, b1)), mul(a2, b0)), times3(mul(a3, b3))));
  const o3 = o2 + stride;
  out[o3] = add(out[o3]!, add(add(add(mul(a0, b3), mul(a1, b2)), mul(a2, b1)), mul(a3, b0)));
}

/** Adds s·b (s a base scalar) into out[o + k·stride] (k = 0..3). */
export function extScaleAddTo(out: Uint32Array, o: number, stride: number, s: number, b0: number, b1: number, b2: number, b3: number): void {
  out[o] = add(out[o]!, mul(s, b0));
  out[o + stride] = add(out[o + stride]!, mul(s, b1));
  out[o + 2 * stride] = add(out[o + 2 * stride]!, mul(s, b2));
  out[o + 3 * stride] = add(out[o + 3 * stride]!, mul(s, b3));
}
