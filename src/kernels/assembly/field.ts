// KoalaBear arithmetic for the kernels: p = 2^31 − 2^24 + 1, Montgomery radix R = 2^32.
//
// Representations
// - Montgomery form of x is x·R mod p. mont(a, b) = a·b·R^−1 mod p, so mont(aR, bR) = (ab)R and
//   mont(aR, b) = ab: a Montgomery product with one canonical operand yields a canonical value.
// - Shoup form of a constant b is (b, b′) with b′ = ⌊b·2^32 / p⌋; shoup(a, b) = a·b mod p for any
//   32-bit a, so multiplying by a plain constant preserves the representation of a.
// - Every helper returns a value in [0, p) when its inputs are in [0, p).
//
// SIMD helpers work on four u32 lanes (i32x4); 64-bit products come from i64x2.extmul.

/** The modulus. */
export const P: u32 = 0x7f000001;
/** p^−1 mod 2^32. */
export const MU: u32 = 0x81000001;
/** R mod p = 2^32 mod p. */
export const R_MOD_P: u32 = 33554430;
/** ⌊(R mod p)·2^32 / p⌋. */
export const R_MOD_P_SHOUP: u32 = 67637276;
/** R^−1 mod p. */
export const R_INV: u32 = 1057030144;
/** ⌊R^−1·2^32 / p⌋. */
export const R_INV_SHOUP: u32 = 2130706431;

// ---------------------------------------------------------------- scalar

/** a + b mod p. */
// @ts-ignore: decorator
@inline export function addS(a: u32, b: u32): u32 {
  const s = a + b;
  return s >= P ? s - P : s;
}

/** a − b mod p. */
// @ts-ignore: decorator
@inline export function subS(a: u32, b: u32): u32 {
  const d = a - b;
  return a < b ? d + P : d;
}

/** Montgomery product a·b·R^−1 mod p (requires a·b < 2^32·p, e.g. both below p). */
// @ts-ignore: decorator
@inline export function montMulS(a: u32, b: u32): u32 {
  const x = <u64>a * <u64>b;
  const q = <u32>x * MU;
  const xh = <u32>(x >> 32);
  const qh = <u32>((<u64>q * <u64>P) >> 32);
  return xh >= qh ? xh - qh : xh - qh + P;
}

/** Montgomery reduction x·R^−1 mod p of a 64-bit x < 4p² (the result is fully reduced). */
// @ts-ignore: decorator
@inline export function montReduceWideS(x: u64): u32 {
  const q = <u32>x * MU;
  const xh = <u32>(x >> 32);
  const qh = <u32>((<u64>q * <u64>P) >> 32);
  let r = xh - qh;
  if (xh < qh) r += P;
  return r >= P ? r - P : r;
}

/** The Shoup companion ⌊b·2^32 / p⌋ of a canonical constant b. */
// @ts-ignore: decorator
@inline export function shoupOf(b: u32): u32 {
  return <u32>((<u64>b << 32) / <u64>P);
}

/** a·b mod p for any 32-bit a and a canonical constant b with companion bs = shoupOf(b). */
// @ts-ignore: decorator
@inline export function shoupMulS(a: u32, b: u32, bs: u32): u32 {
  const q = <u32>((<u64>a * <u64>bs) >> 32);
  const r = a * b - q * P;
  return r >= P ? r - P : r;
}

/** Canonical x (any u32 is reduced) to Montgomery form x·R mod p. */
// @ts-ignore: decorator
@inline export function toMontS(x: u32): u32 {
  return shoupMulS(x, R_MOD_P, R_MOD_P_SHOUP);
}

/** Montgomery form back to canonical. */
// @ts-ignore: decorator
@inline export function fromMontS(x: u32): u32 {
  return shoupMulS(x, R_INV, R_INV_SHOUP);
}

// ---------------------------------------------------------------- SIMD, four lanes

/** p in every lane. */
// @ts-ignore: decorator
@inline export function vP(): v128 {
  return i32x4.splat(P);
}

/** Lane-wise a + b mod p. */
// @ts-ignore: decorator
@inline export function vAdd(a: v128, b: v128): v128 {
  const s = i32x4.add(a, b);
  return i32x4.min_u(s, i32x4.sub(s, vP()));
}

/** Lane-wise a − b mod p. */
// @ts-ignore: decorator
@inline export function vSub(a: v128, b: v128): v128 {
  const d = i32x4.sub(a, b);
  return i32x4.min_u(d, i32x4.add(d, vP()));
}

/** Lane-wise 2a mod p. */
// @ts-ignore: decorator
@inline export function vDouble(a: v128): v128 {
  return vAdd(a, a);
}

/** Lane-wise 3a mod p. */
// @ts-ignore: decorator
@inline export function vTriple(a: v128): v128 {
  return vAdd(vAdd(a, a), a);
}

/** High 32 bits of four 64-bit lanes given as (lanes 0–1, lanes 2–3). */
// @ts-ignore: decorator
@inline export function vHigh(lo: v128, hi: v128): v128 {
  return i32x4.shuffle(lo, hi, 1, 3, 5, 7);
}

/** Low 32 bits of four 64-bit lanes given as (lanes 0–1, lanes 2–3). */
// @ts-ignore: decorator
@inline export function vLow(lo: v128, hi: v128): v128 {
  return i32x4.shuffle(lo, hi, 0, 2, 4, 6);
}

/** Lane-wise Montgomery product a·b·R^−1 mod p (a·b < 2^32·p per lane). */
// @ts-ignore: decorator
@inline export function vMontMul(a: v128, b: v128): v128 {
  const q = i32x4.mul(i32x4.mul(a, b), i32x4.splat(MU));
  const xh = vHigh(i64x2.extmul_low_i32x4_u(a, b), i64x2.extmul_high_i32x4_u(a, b));
  const qh = vHigh(i64x2.extmul_low_i32x4_u(q, vP()), i64x2.extmul_high_i32x4_u(q, vP()));
  const r = i32x4.sub(xh, qh);
  return i32x4.min_u(r, i32x4.add(r, vP()));
}

/**
 * Montgomery reduction of four 64-bit sums x < 4p² given as (lanes 0–1, lanes 2–3):
 * x·R^−1 mod p, fully reduced.
 */
// @ts-ignore: decorator
@inline export function vMontReduceWide(lo: v128, hi: v128): v128 {
  const q = i32x4.mul(vLow(lo, hi), i32x4.splat(MU));
  const xh = vHigh(lo, hi);
  const qh = vHigh(i64x2.extmul_low_i32x4_u(q, vP()), i64x2.extmul_high_i32x4_u(q, vP()));
  let r = i32x4.sub(xh, qh);
  r = i32x4.add(r, v128.and(i32x4.lt_u(xh, qh), vP()));
  return i32x4.min_u(r, i32x4.sub(r, vP()));
}

/** Lane-wise a·b mod p for any 32-bit lanes a and a splat constant b with splat companion bs. */
// @ts-ignore: decorator
@inline export function vShoupMul(a: v128, b: v128, bs: v128): v128 {
  const q = vHigh(i64x2.extmul_low_i32x4_u(a, bs), i64x2.extmul_high_i32x4_u(a, bs));
  const r = i32x4.sub(i32x4.mul(a, b), i32x4.mul(q, vP()));
  return i32x4.min_u(r, i32x4.sub(r, vP()));
}

/** Products of lanes 0–1 as two u64. */
// @ts-ignore: decorator
@inline export function wideLo(a: v128, b: v128): v128 {
  return i64x2.extmul_low_i32x4_u(a, b);
}

/** Products of lanes 2–3 as two u64. */
// @ts-ignore: decorator
@inline export function wideHi(a: v128, b: v128): v128 {
  return i64x2.extmul_high_i32x4_u(a, b);
}
