// Extension-field building blocks of the GKR layer kernels (gkr-layer.ts), K = F_p[X]/(X^4 − 3)
// (compat-v1 §2), every value in Montgomery form.
//
// Two layouts:
// - planes (SoA): four v128 hold coefficient k of four consecutive elements (lane = element);
//   the product of two such vectors is written coefficient by coefficient with `dot4`.
// - interleaved (AoS): one v128 holds the four coefficients of one element (lane = coefficient);
//   used where elements are addressed one at a time (weights, gate scatter).
//
// Every product sum below has at most four terms, each a product of two values < p, so it stays
// below 4p² < 2^64 and is reduced once (vMontReduceWide).
import { vAdd, vMontReduceWide, vTriple, wideHi, wideLo } from "./field";

/** Lane-wise Σ a_j·b_j·R^−1 mod p over four pairs (each factor < p). */
// @ts-ignore: decorator
@inline export function dot4(a0: v128, b0: v128, a1: v128, b1: v128, a2: v128, b2: v128, a3: v128, b3: v128): v128 {
  return vMontReduceWide(
    i64x2.add(i64x2.add(wideLo(a0, b0), wideLo(a1, b1)), i64x2.add(wideLo(a2, b2), wideLo(a3, b3))),
    i64x2.add(i64x2.add(wideHi(a0, b0), wideHi(a1, b1)), i64x2.add(wideHi(a2, b2), wideHi(a3, b3))),
  );
}

/** Lane-wise Σ a_j·b_j·R^−1 mod p over three pairs. */
// @ts-ignore: decorator
@inline export function dot3(a0: v128, b0: v128, a1: v128, b1: v128, a2: v128, b2: v128): v128 {
  return vMontReduceWide(
    i64x2.add(i64x2.add(wideLo(a0, b0), wideLo(a1, b1)), wideLo(a2, b2)),
    i64x2.add(i64x2.add(wideHi(a0, b0), wideHi(a1, b1)), wideHi(a2, b2)),
  );
}

/** Lane-wise (a0·b0 + a1·b1)·R^−1 mod p. */
// @ts-ignore: decorator
@inline export function dot2(a0: v128, b0: v128, a1: v128, b1: v128): v128 {
  return vMontReduceWide(
    i64x2.add(wideLo(a0, b0), wideLo(a1, b1)),
    i64x2.add(wideHi(a0, b0), wideHi(a1, b1)),
  );
}

// Plane-layout product s·x with the triples w_k = 3·x_k given (k = 1..3):
//   (s·x)_0 = s0x0 + 3(s1x3 + s2x2 + s3x1)
//   (s·x)_1 = s0x1 + s1x0 + 3(s2x3 + s3x2)
//   (s·x)_2 = s0x2 + s1x1 + s2x0 + 3·s3x3
//   (s·x)_3 = s0x3 + s1x2 + s2x1 + s3x0

// @ts-ignore: decorator
@inline export function mul0(s0: v128, s1: v128, s2: v128, s3: v128, x0: v128, w1: v128, w2: v128, w3: v128): v128 {
  return dot4(s0, x0, s1, w3, s2, w2, s3, w1);
}
// @ts-ignore: decorator
@inline export function mul1(s0: v128, s1: v128, s2: v128, s3: v128, x0: v128, x1: v128, w2: v128, w3: v128): v128 {
  return dot4(s0, x1, s1, x0, s2, w3, s3, w2);
}
// @ts-ignore: decorator
@inline export function mul2(s0: v128, s1: v128, s2: v128, s3: v128, x0: v128, x1: v128, x2: v128, w3: v128): v128 {
  return dot4(s0, x2, s1, x1, s2, x0, s3, w3);
}
// @ts-ignore: decorator
@inline export function mul3(s0: v128, s1: v128, s2: v128, s3: v128, x0: v128, x1: v128, x2: v128, x3: v128): v128 {
  return dot4(s0, x3, s1, x2, s2, x1, s3, x0);
}

/** Broadcasts of lane j of an interleaved element. */
// @ts-ignore: decorator
@inline export function lane0(a: v128): v128 {
  return i32x4.shuffle(a, a, 0, 0, 0, 0);
}
// @ts-ignore: decorator
@inline export function lane1(a: v128): v128 {
  return i32x4.shuffle(a, a, 1, 1, 1, 1);
}
// @ts-ignore: decorator
@inline export function lane2(a: v128): v128 {
  return i32x4.shuffle(a, a, 2, 2, 2, 2);
}
// @ts-ignore: decorator
@inline export function lane3(a: v128): v128 {
  return i32x4.shuffle(a, a, 3, 3, 3, 3);
}

/**
 * Interleaved product a·b of one extension element by another: lane k of the result is
 * Σ_j a_j·col_j[k] with the columns col0 = b, col1 = (3b3, b0, b1, b2), col2 = (3b2, 3b3, b0, b1),
 * col3 = (3b1, 3b2, 3b3, b0) of multiplication by b.
 */
// @ts-ignore: decorator
@inline export function extMulAoS(a: v128, b: v128): v128 {
  const t = vTriple(b);
  return dot4(
    lane0(a), b,
    lane1(a), i32x4.shuffle(t, b, 3, 4, 5, 6),
    lane2(a), i32x4.shuffle(t, b, 2, 3, 4, 5),
    lane3(a), i32x4.shuffle(t, b, 1, 2, 3, 4),
  );
}

/** Adds v into the v128 at ptr (lane-wise mod p). */
// @ts-ignore: decorator
@inline export function accumulate(ptr: usize, v: v128): void {
  v128.store(ptr, vAdd(v128.load(ptr), v));
}

/** Loads four lanes (wide) or one lane into lane 0 with the others zero (narrow). */
// @ts-ignore: decorator
@inline export function ld(wide: bool, ptr: usize): v128 {
  return wide ? v128.load(ptr) : v128.load32_zero(ptr);
}

/** Stores four lanes (wide) or lane 0 only (narrow). */
// @ts-ignore: decorator
@inline export function st(wide: bool, ptr: usize, v: v128): void {
  if (wide) v128.store(ptr, v);
  else v128.store32_lane(ptr, v, 0);
}
