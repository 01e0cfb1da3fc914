// Sumcheck bind/fold of the most significant variable (compat-v1 §10.1 fold form):
//   out[j] = t[j] + r·(t[j+h] − t[j])   for j < h, len(t) = 2h.
// The challenge r is passed canonical and used as a plain multiplier, so every fold preserves the
// representation of t: Montgomery tables stay Montgomery, canonical tables stay canonical.
// Extension vectors use plane layout (see ext.ts). In every kernel dst may equal src: output word
// j of each plane only overwrites input words that block j has already read.
import {
  addS, montReduceWideS, shoupMulS, shoupOf, subS, toMontS,
  vAdd, vMontReduceWide, vShoupMul, vSub, wideHi, wideLo,
} from "./field";

// @ts-ignore: decorator
@inline function triple(a: u32): u32 {
  return addS(addS(a, a), a);
}

/** Base table, base challenge: dst[j] = src[j] + r·(src[h+j] − src[j]) for j < h. */
export function fold_base(dst: usize, src: usize, h: u32, r: u32): void {
  const rs = shoupOf(r);
  const vr = i32x4.splat(r), vrs = i32x4.splat(rs);
  const half = <usize>h << 2;
  const h4 = h & ~3;
  let j: u32 = 0;
  for (; j < h4; j += 4) {
    const o = <usize>j << 2;
    const lo = v128.load(src + o);
    const hi = v128.load(src + half + o);
    v128.store(dst + o, vAdd(lo, vShoupMul(vSub(hi, lo), vr, vrs)));
  }
  for (; j < h; j++) {
    const o = <usize>j << 2;
    const lo = load<u32>(src + o);
    const hi = load<u32>(src + half + o);
    store<u32>(dst + o, addS(lo, shoupMulS(subS(hi, lo), r, rs)));
  }
}

/**
 * Base table, extension challenge r = (r0, r1, r2, r3): the output is an extension vector of h
 * elements (4h words, plane layout): with d = src[h+j] − src[j],
 * dst = (src[j] + r0·d, r1·d, r2·d, r3·d).
 */
export function fold_base_ext(dst: usize, src: usize, h: u32, r0: u32, r1: u32, r2: u32, r3: u32): void {
  const s0 = shoupOf(r0), s1 = shoupOf(r1), s2 = shoupOf(r2), s3 = shoupOf(r3);
  const v0 = i32x4.splat(r0), v1 = i32x4.splat(r1), v2 = i32x4.splat(r2), v3 = i32x4.splat(r3);
  const w0 = i32x4.splat(s0), w1 = i32x4.splat(s1), w2 = i32x4.splat(s2), w3 = i32x4.splat(s3);
  const half = <usize>h << 2;
  const h4 = h & ~3;
  let j: u32 = 0;
  for (; j < h4; j += 4) {
    const o = <usize>j << 2;
    const lo = v128.load(src + o);
    const d = vSub(v128.load(src + half + o), lo);
    const c0 = vAdd(lo, vShoupMul(d, v0, w0));
    const c1 = vShoupMul(d, v1, w1);
    const c2 = vShoupMul(d, v2, w2);
    const c3 = vShoupMul(d, v3, w3);
    v128.store(dst + o, c0);
    v128.store(dst + half + o, c1);
    v128.store(dst + 2 * half + o, c2);
    v128.store(dst + 3 * half + o, c3);
  }
  for (; j < h; j++) {
    const o = <usize>j << 2;
    const lo = load<u32>(src + o);
    const d = subS(load<u32>(src + half + o), lo);
    const c0 = addS(lo, shoupMulS(d, r0, s0));
    const c1 = shoupMulS(d, r1, s1);
    const c2 = shoupMulS(d, r2, s2);
    const c3 = shoupMulS(d, r3, s3);
    store<u32>(dst + o, c0);
    store<u32>(dst + half + o, c1);
    store<u32>(dst + 2 * half + o, c2);
    store<u32>(dst + 3 * half + o, c3);
  }
}

/**
 * Extension table (2h elements, plane layout), extension challenge r: the output is an extension
 * vector of h elements. r·d is computed with r in Montgomery form (converted here), each output
 * coefficient a sum of four 64-bit products reduced once, so d keeps its representation.
 */
export function fold_ext(dst: usize, src: usize, h: u32, r0: u32, r1: u32, r2: u32, r3: u32): void {
  const m0 = toMontS(r0), m1 = toMontS(r1), m2 = toMontS(r2), m3 = toMontS(r3);
  const t1 = triple(m1), t2 = triple(m2), t3 = triple(m3);
  const q0 = i32x4.splat(m0), q1 = i32x4.splat(m1), q2 = i32x4.splat(m2), q3 = i32x4.splat(m3);
  const u1 = i32x4.splat(t1), u2 = i32x4.splat(t2), u3 = i32x4.splat(t3);
  const half = <usize>h << 2; // bytes per output plane; also the offset of t[h] inside an input plane
  const inStride = half << 1; // bytes per input plane
  const h4 = h & ~3;
  let j: u32 = 0;
  for (; j < h4; j += 4) {
    const o = <usize>j << 2;
    const l0 = v128.load(src + o), l1 = v128.load(src + inStride + o);
    const l2 = v128.load(src + 2 * inStride + o), l3 = v128.load(src + 3 * inStride + o);
    const d0 = vSub(v128.load(src + half + o), l0);
    const d1 = vSub(v128.load(src + inStride + half + o), l1);
    const d2 = vSub(v128.load(src + 2 * inStride + half + o), l2);
    const d3 = vSub(v128.load(src + 3 * inStride + half + o), l3);
    // (d·r)_0 = d0r0 + 3(d1r3 + d2r2 + d3r1), and so on (compat-v1 §2 with a = d, b = r).
    const e0 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(d0, q0), wideLo(d1, u3)), i64x2.add(wideLo(d2, u2), wideLo(d3, u1))),
      i64x2.add(i64x2.add(wideHi(d0, q0), wideHi(d1, u3)), i64x2.add(wideHi(d2, u2), wideHi(d3, u1))),
    );
    const e1 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(d0, q1), wideLo(d1, q0)), i64x2.add(wideLo(d2, u3), wideLo(d3, u2))),
      i64x2.add(i64x2.add(wideHi(d0, q1), wideHi(d1, q0)), i64x2.add(wideHi(d2, u3), wideHi(d3, u2))),
    );
    const e2 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(d0, q2), wideLo(d1, q1)), i64x2.add(wideLo(d2, q0), wideLo(d3, u3))),
      i64x2.add(i64x2.add(wideHi(d0, q2), wideHi(d1, q1)), i64x2.add(wideHi(d2, q0), wideHi(d3, u3))),
    );
    const e3 = vMontReduceWide(
      i64x2.add(i64x2.add(wideLo(d0, q3), wideLo(d1, q2)), i64x2.add(wideLo(d2, q1), wideLo(d3, q0))),
      i64x2.add(i64x2.add(wideHi(d0, q3), wideHi(d1, q2)), i64x2.add(wideHi(d2, q1), wideHi(d3, q0))),
    );
    v128.store(dst + o, vAdd(l0, e0));
    v128.store(dst + half + o, vAdd(l1, e1));
    v128.store(dst + 2 * half + o, vAdd(l2, e2));
    v128.store(dst + 3 * half + o, vAdd(l3, e3));
  }
  for (; j < h; j++) {
    const o = <usize>j << 2;
    const l0 = load<u32>(src + o), l1 = load<u32>(src + inStride + o);
    const l2 = load<u32>(src + 2 * inStride + o), l3 = load<u32>(src + 3 * inStride + o);
    const d0 = <u64>subS(load<u32>(src + half + o), l0);
    const d1 = <u64>subS(load<u32>(src + inStride + half + o), l1);
    const d2 = <u64>subS(load<u32>(src + 2 * inStride + half + o), l2);
    const d3 = <u64>subS(load<u32>(src + 3 * inStride + half + o), l3);
    const e0 = montReduceWideS(d0 * m0 + d1 * t3 + d2 * t2 + d3 * t1);
    const e1 = montReduceWideS(d0 * m1 + d1 * m0 + d2 * t3 + d3 * t2);
    const e2 = montReduceWideS(d0 * m2 + d1 * m1 + d2 * m0 + d3 * t3);
    const e3 = montReduceWideS(d0 * m3 + d1 * m2 + d2 * m1 + d3 * m0);
    store<u32>(dst + o, addS(l0, e0));
    store<u32>(dst + half + o, addS(l1, e1));
    store<u32>(dst + 2 * half + o, addS(l2, e2));
    store<u32>(dst + 3 * half + o, addS(l3, e3));
  }
}
