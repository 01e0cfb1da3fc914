// Extension-field K = F_p[X]/(X^4 − 3) vector kernels over plane layout: an extension vector of n
// elements is 4n u32 words, coefficient plane k at byte offset 4·k·n (see src/field/ext-vector.ts).
// Products are Montgomery products coefficient-wise (see field.ts): with both operands in Montgomery
// form the result is in Montgomery form; with one canonical operand it is canonical.
import { addS, montReduceWideS, vMontReduceWide, vTriple, wideHi, wideLo } from "./field";

// @ts-ignore: decorator
@inline function triple(a: u32): u32 {
  return addS(addS(a, a), a);
}

/**
 * dst[i] = a[i]·b[i] in K for i < n, all three in plane layout with n elements.
 * Each output coefficient is a sum of four 64-bit products (< 4p² < 2^64) reduced once.
 * dst may equal a or b.
 */
export function ext_mul(dst: usize, a: usize, b: usize, n: u32): void {
  const stride = <usize>n << 2;
  const n4 = n & ~3;
  let i: u32 = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    const a0 = v128.load(a + o), a1 = v128.load(a + stride + o);
    const a2 = v128.load(a + 2 * stride + o), a3 = v128.load(a + 3 * stride + o);
    const b0 = v128.load(b + o), b1 = v128.load(b + stride + o);
    const b2 = v128.load(b + 2 * stride + o), b3 = v128.load(b + 3 * stride + o);
    const w1 = vTriple(a1), w2 = vTriple(a2), w3 = vTriple(a3);
    // r0 = a0b0 + 3(a1b3 + a2b2 + a3b1)
    const r0 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(a0, b0), wideLo(w1, b3)), i64x2.add(wideLo(w2, b2), wideLo(w3, b1))),
      i64x2.add(i64x2.add(wideHi(a0, b0), wideHi(w1, b3)), i64x2.add(wideHi(w2, b2), wideHi(w3, b1))),
    );
    // r1 = a0b1 + a1b0 + 3(a2b3 + a3b2)
    const r1 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(a0, b1), wideLo(a1, b0)), i64x2.add(wideLo(w2, b3), wideLo(w3, b2))),
      i64x2.add(i64x2.add(wideHi(a0, b1), wideHi(a1, b0)), i64x2.add(wideHi(w2, b3), wideHi(w3, b2))),
    );
    // r2 = a0b2 + a1b1 + a2b0 + 3·a3b3
    const r2 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(a0, b2), wideLo(a1, b1)), i64x2.add(wideLo(a2, b0), wideLo(w3, b3))),
      i64x2.add(i64x2.add(wideHi(a0, b2), wideHi(a1, b1)), i64x2.add(wideHi(a2, b0), wideHi(w3, b3))),
    );
    // r3 = a0b3 + a1b2 + a2b1 + a3b0
    const r3 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(a0, b3), wideLo(a1, b2)), i64x2.add(wideLo(a2, b1), wideLo(a3, b0))),
      i64x2.add(i64x2.add(wideHi(a0, b3), wideHi(a1, b2)), i64x2.add(wideHi(a2, b1), wideHi(a3, b0))),
    );
    v128.store(dst + o, r0);
    v128.store(dst + stride + o, r1);
    v128.store(dst + 2 * stride + o, r2);
    v128.store(dst + 3 * stride + o, r3);
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    const a0 = <u64>load<u32>(a + o), a1 = load<u32>(a + stride + o);
    const a2 = load<u32>(a + 2 * stride + o), a3 = load<u32>(a + 3 * stride + o);
    const b0 = <u64>load<u32>(b + o), b1 = <u64>load<u32>(b + stride + o);
    const b2 = <u64>load<u32>(b + 2 * stride + o), b3 = <u64>load<u32>(b + 3 * stride + o);
    const w1 = <u64>triple(a1), w2 = <u64>triple(a2), w3 = <u64>triple(a3);
    const r0 = montReduceWideS(a0 * b0 + w1 * b3 + w2 * b2 + w3 * b1);
    const r1 = montReduceWideS(a0 * b1 + <u64>a1 * b0 + w2 * b3 + w3 * b2);
    const r2 = montReduceWideS(a0 * b2 + <u64>a1 * b1 + <u64>a2 * b0 + w3 * b3);
    const r3 = montReduceWideS(a0 * b3 + <u64>a1 * b2 + <u64>a2 * b1 + <u64>a3 * b0);
    store<u32>(dst + o, r0);
    store<u32>(dst + stride + o, r1);
    store<u32>(dst + 2 * stride + o, r2);
    store<u32>(dst + 3 * stride + o, r3);
  }
}
