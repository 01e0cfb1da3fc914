// Conversions between canonical and Montgomery form, and the canonical-range check.
// Pointers are byte offsets into the imported memory; n counts u32 elements; dst may equal src.
import { P, R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP, toMontS, fromMontS, vShoupMul } from "./field";

/** dst[i] = src[i]·R mod p (src values are reduced mod p first, so any u32 is accepted). */
export function to_mont(dst: usize, src: usize, n: u32): void {
  const b = i32x4.splat(R_MOD_P);
  const bs = i32x4.splat(R_MOD_P_SHOUP);
  const n4 = n & ~3;
  let i: u32 = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    v128.store(dst + o, vShoupMul(v128.load(src + o), b, bs));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<u32>(dst + o, toMontS(load<u32>(src + o)));
  }
}

/** dst[i] = src[i]·R^−1 mod p (Montgomery form back to canonical). */
export function from_mont(dst: usize, src: usize, n: u32): void {
  const b = i32x4.splat(R_INV);
  const bs = i32x4.splat(R_INV_SHOUP);
  const n4 = n & ~3;
  let i: u32 = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    v128.store(dst + o, vShoupMul(v128.load(src + o), b, bs));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<u32>(dst + o, fromMontS(load<u32>(src + o)));
  }
}

/** Index of the first element ≥ p, or −1 when all n elements are canonical. */
export function first_noncanonical(src: usize, n: u32): i32 {
  const vp = i32x4.splat(P);
  const n4 = n & ~3;
  let i: u32 = 0;
  for (; i < n4; i += 4) {
    if (v128.any_true(i32x4.ge_u(v128.load(src + (<usize>i << 2)), vp))) break;
  }
  for (; i < n; i++) {
    if (load<u32>(src + (<usize>i << 2)) >= P) return <i32>i;
  }
  return -1;
}
