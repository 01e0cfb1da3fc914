// Base-field vector kernels. Products are Montgomery products (see field.ts): with both operands in
// Montgomery form the result is in Montgomery form; with one canonical operand it is canonical.
import { P, montMulS, vMontMul, wideLo, wideHi } from "./field";

/** dst[i] = a[i]·b[i]·R^−1 mod p for i < n. dst may equal a or b. */
export function base_mul(dst: usize, a: usize, b: usize, n: u32): void {
  const n4 = n & ~3;
  let i: u32 = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    v128.store(dst + o, vMontMul(v128.load(a + o), v128.load(b + o)));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<u32>(dst + o, montMulS(load<u32>(a + o), load<u32>(b + o)));
  }
}

// Folds a 64-bit accumulator lane x < 2^64 to x_lo + x_hi·(2^32 mod p) < 2^58 (same residue mod p).
// 2^32 mod p = 2^25 − 2.
// @ts-ignore: decorator
@inline function shrink(x: v128): v128 {
  const hi = i64x2.shr_u(x, 32);
  const lo = v128.and(x, i64x2.splat(0xffffffff));
  return i64x2.add(lo, i64x2.sub(i64x2.shl(hi, 25), i64x2.shl(hi, 1)));
}

/** Σ a[i]·b[i]·R^−1 mod p over i < n (a Montgomery product summed). */
export function inner_product(a: usize, b: usize, n: u32): u32 {
  // Two accumulators per lane pair; each stays below 2^58 after shrink, and three products
  // (each < p² < 2^62) are added between shrinks: 2^58 + 3·2^62 < 2^64.
  let acc0 = i64x2.splat(0);
  let acc1 = i64x2.splat(0);
  const n12 = n - n % 12;
  let i: u32 = 0;
  for (; i < n12; i += 12) {
    const o = <usize>i << 2;
    const a0 = v128.load(a + o), b0 = v128.load(b + o);
    const a1 = v128.load(a + o, 16), b1 = v128.load(b + o, 16);
    const a2 = v128.load(a + o, 32), b2 = v128.load(b + o, 32);
    acc0 = i64x2.add(acc0, i64x2.add(wideLo(a0, b0), i64x2.add(wideLo(a1, b1), wideLo(a2, b2))));
    acc1 = i64x2.add(acc1, i64x2.add(wideHi(a0, b0), i64x2.add(wideHi(a1, b1), wideHi(a2, b2))));
    acc0 = shrink(acc0);
    acc1 = shrink(acc1);
  }
  // Four lanes below 2^58 each: their sum is below 2^60.
  let total: u64 =
    <u64>i64x2.extract_lane(acc0, 0) + <u64>i64x2.extract_lane(acc0, 1) +
    <u64>i64x2.extract_lane(acc1, 0) + <u64>i64x2.extract_lane(acc1, 1);
  total %= <u64>P;
  for (; i < n; i++) {
    const o = <usize>i << 2;
    total += <u64>load<u32>(a + o) * <u64>load<u32>(b + o);
    total %= <u64>P;
  }
  return montMulS(<u32>total, 1);
}
