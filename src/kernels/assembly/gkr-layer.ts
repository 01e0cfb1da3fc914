// GKR layer sumcheck kernels (compat-v1 §10.4 recommended two-phase oracle), driven by
// src/gkr/wasm-oracle.ts. Every table lives in the imported memory in Montgomery form; challenges
// are passed canonical; results leave canonical.
//
// Phase 1 (x rounds) keeps three plane-layout tables of length L: A (lin + booking table), Pw (the
// Pow3 table, only when the layer has Pow3 gates) and V (the layer-below vector: the base table Vb
// before the first challenge, the extension table Vx after it). The round value at node T is
// Σ_{i<L/2} V_T·(A_T + Pw_T·V_T²), t_T = t[i] + T·(t[i+L/2] − t[i]), at T = 0..4 (T = 0..2 without
// Pow3 gates). `gkr_round` binds the previous challenge (fold of every table) and evaluates the
// next round in the same pass over the tables, then interpolates the evaluations to coefficients.
// Phase 2 of layers with Mul gates reuses it with A = mulx, no Pw and V = V(y) (RAW sums).
//
// Layer descriptor (8 words, see src/gkr/wasm-image.ts): linPtr, nLin, mulPtr, nMul, powPtr, nPow,
// constPtr, nConst. Records: Lin/Pow3 (out, in1, coeff), Mul (out, in1, in2, coeff), constants
// (wire, value); coefficients and values in Montgomery form. Wire numbers are masked with the table
// size minus one, so a malformed record can never address memory outside its table.
//
// Output region `out` (GKR_OUT_WORDS words): bytes [0, 320) accumulators, results from byte 320.
import {
  P, R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP,
  addS, fromMontS, montMulS, montReduceWideS, subS, toMontS, vAdd, vMontMul, vShoupMul, vSub, vTriple,
} from "./field";
import { accumulate, dot2, dot3, dot4, extMulAoS, lane0, lane1, lane2, lane3, ld, mul0, mul1, mul2, mul3, st } from "./gkr-ext";
import { fold_base_ext, fold_ext } from "./fold";

/** Bind the previous challenge before evaluating (the table length halves). */
const F_FOLD: u32 = 1;
/** The layer has Pow3 gates: Pw is live and the round has degree 4 (five evaluations). */
const F_POW: u32 = 2;
/** V is still the base table Vb (no challenge bound into it yet). */
const F_VBASE: u32 = 4;
/** Write the evaluations g(0..m) instead of the interpolated coefficients. */
const F_RAW: u32 = 8;
/**
 * With F_FOLD: the result words hold the previous round's coefficients (this kernel's last
 * output); g(1) is then g_prev(r) − g(0) instead of a sum over the tables (the sumcheck identity
 * g_j(0) + g_j(1) = g_{j−1}(r_{j−1}), exact for any tables).
 */
const F_CLAIM: u32 = 16;

const OUT_RES: usize = 320;
const OUT_WORDS: u32 = 128;

/** 1/2, 1/12 and 1/24 mod p. */
const INV2: u64 = 1065353217;
const INV12: u64 = 1242912086;
const INV24: u64 = 621456043;

/** Words of the output region the kernels of this file expect. */
export function gkr_out_words(): u32 {
  return OUT_WORDS;
}

// ------------------------------------------------------------------------------------ helpers

// @ts-ignore: decorator
@inline function toMontV(x: v128): v128 {
  return vShoupMul(x, i32x4.splat(R_MOD_P), i32x4.splat(R_MOD_P_SHOUP));
}

// @ts-ignore: decorator
@inline function fromMontV(x: v128): v128 {
  return vShoupMul(x, i32x4.splat(R_INV), i32x4.splat(R_INV_SHOUP));
}

function zeroWords(dst: usize, words: u32): void {
  const z = i32x4.splat(0);
  const w4 = words & ~3;
  let i: u32 = 0;
  for (; i < w4; i += 4) v128.store(dst + (<usize>i << 2), z);
  for (; i < words; i++) store<u32>(dst + (<usize>i << 2), 0);
}

/** Interleaved (n elements × 4 words) to plane layout (4 planes of n words). */
function transpose(dst: usize, src: usize, n: u32): void {
  const pb = <usize>n << 2;
  if (n >= 4) {
    for (let i: u32 = 0; i < n; i += 4) {
      const s = src + (<usize>i << 4);
      const e0 = v128.load(s), e1 = v128.load(s, 16), e2 = v128.load(s, 32), e3 = v128.load(s, 48);
      const t0 = i32x4.shuffle(e0, e1, 0, 4, 1, 5);
      const t1 = i32x4.shuffle(e2, e3, 0, 4, 1, 5);
      const t2 = i32x4.shuffle(e0, e1, 2, 6, 3, 7);
      const t3 = i32x4.shuffle(e2, e3, 2, 6, 3, 7);
      const d = dst + (<usize>i << 2);
      v128.store(d, i32x4.shuffle(t0, t1, 0, 1, 4, 5));
      v128.store(d + pb, i32x4.shuffle(t0, t1, 2, 3, 6, 7));
      v128.store(d + 2 * pb, i32x4.shuffle(t2, t3, 0, 1, 4, 5));
      v128.store(d + 3 * pb, i32x4.shuffle(t2, t3, 2, 3, 6, 7));
    }
  } else {
    for (let i: u32 = 0; i < n; i++) {
      for (let k: u32 = 0; k < 4; k++) {
        store<u32>(dst + <usize>k * pb + (<usize>i << 2), load<u32>(src + (<usize>i << 4) + (<usize>k << 2)));
      }
    }
  }
}

// ------------------------------------------------------------------------------------ eq tables

/**
 * dst (interleaved, 2^nbits elements) ← scale·eq(point, b) for b < 2^nbits, MSB-first points
 * (compat-v1 §10.1). `point` holds nbits canonical extension coordinates (4 words each) followed
 * by the canonical scale. Each level doubles the table in place, descending: entry b gives
 * 2b+1 = e·z_j and 2b = e − e·z_j.
 */
export function gkr_eq(dst: usize, point: usize, nbits: u32): void {
  v128.store(dst, toMontV(v128.load(point + (<usize>nbits << 4))));
  let size: u32 = 1;
  for (let j: u32 = 0; j < nbits; j++) {
    const z = toMontV(v128.load(point + (<usize>j << 4)));
    const t = vTriple(z);
    const c1 = i32x4.shuffle(t, z, 3, 4, 5, 6);
    const c2 = i32x4.shuffle(t, z, 2, 3, 4, 5);
    const c3 = i32x4.shuffle(t, z, 1, 2, 3, 4);
    for (let b = <i32>size - 1; b >= 0; b--) {
      const e = v128.load(dst + (<usize>b << 4));
      const hi = dot4(lane0(e), z, lane1(e), c1, lane2(e), c2, lane3(e), c3);
      const at = dst + (<usize>b << 5);
      v128.store(at, vSub(e, hi));
      v128.store(at, hi, 16);
    }
    size <<= 1;
  }
}

/**
 * Claim weights w[o] = Σ_k c_k·eq(z_k, o), o < 2^nbits, interleaved (compat-v1 §10.4). `claims`
 * holds nclaims blocks of nbits + 1 extension words (the point, then c_k), canonical; `tmp` has
 * room for one table.
 */
export function gkr_weights(dst: usize, tmp: usize, claims: usize, nclaims: u32, nbits: u32): void {
  const n: u32 = 1 << nbits;
  if (nclaims == 0) {
    zeroWords(dst, n << 2);
    return;
  }
  const stride = <usize>(nbits + 1) << 4;
  gkr_eq(dst, claims, nbits);
  for (let k: u32 = 1; k < nclaims; k++) {
    gkr_eq(tmp, claims + <usize>k * stride, nbits);
    for (let i: u32 = 0; i < n; i++) {
      const o = <usize>i << 4;
      v128.store(dst + o, vAdd(v128.load(dst + o), v128.load(tmp + o)));
    }
  }
}

// ------------------------------------------------------------------------------------ phase 1 tables

/**
 * Fills the phase-1 tables from the gate list: A[in1] += coeff·w[out] (Lin),
 * A[in1] += coeff·V[in2]·w[out] (Mul), Pw[in1] += coeff·w[out] (Pow3), scattered into the
 * interleaved scratch tables Aaos/Paos, then transposed into the plane tables A/Pw (length n).
 * Pw/Paos are touched only when the layer has Pow3 gates.
 */
export function gkr_fill(desc: usize, W: usize, Vb: usize, Aaos: usize, Paos: usize, A: usize, Pw: usize, n: u32, nOut: u32): void {
  const mi = n - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  zeroWords(Aaos, n << 2);
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
    accumulate(Aaos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(load<u32>(rec, 8))));
  }
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
    const c = montMulS(load<u32>(rec, 12), load<u32>(Vb + (<usize>(load<u32>(rec, 8) & mi) << 2)));
    accumulate(Aaos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(c)));
  }
  transpose(A, Aaos, n);
  if (nPow > 0) {
    zeroWords(Paos, n << 2);
    for (let g: u32 = 0; g < nPow; g++) {
      const rec = powPtr + <usize>g * 12;
      const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
      accumulate(Paos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(load<u32>(rec, 8))));
    }
    transpose(Pw, Paos, n);
  }
}

// ------------------------------------------------------------------------------------ round blocks

/**
 * Binds challenge r (Montgomery splats q, triples u) into an extension table of length 4Q (plane
 * bytes lb = 16Q), for the elements at o and o + qb (qb = 4Q): new[i] = t[i] + r·(t[i+2Q] − t[i]),
 * new[i+Q] = t[i+Q] + r·(t[i+3Q] − t[i+Q]), written compactly (plane bytes lb/2). Every word this
 * writes was read by this block (see src/kernels/README.md, in-place folds), and every load
 * precedes every store.
 */
// @ts-ignore: decorator
@inline function foldExtBlock(
  wide: bool, T: usize, lb: usize, o: usize, qb: usize,
  q0: v128, q1: v128, q2: v128, q3: v128, u1: v128, u2: v128, u3: v128,
): void {
  const b0 = T + o, b1 = b0 + lb, b2 = b1 + lb, b3 = b2 + lb;
  const l0 = ld(wide, b0), m0 = ld(wide, b0 + qb), h0 = ld(wide, b0 + 2 * qb), n0 = ld(wide, b0 + 3 * qb);
  const l1 = ld(wide, b1), m1 = ld(wide, b1 + qb), h1 = ld(wide, b1 + 2 * qb), n1 = ld(wide, b1 + 3 * qb);
  const l2 = ld(wide, b2), m2 = ld(wide, b2 + qb), h2 = ld(wide, b2 + 2 * qb), n2 = ld(wide, b2 + 3 * qb);
  const l3 = ld(wide, b3), m3 = ld(wide, b3 + qb), h3 = ld(wide, b3 + 2 * qb), n3 = ld(wide, b3 + 3 * qb);
  const d0 = vSub(h0, l0), d1 = vSub(h1, l1), d2 = vSub(h2, l2), d3 = vSub(h3, l3);
  const e0 = vSub(n0, m0), e1 = vSub(n1, m1), e2 = vSub(n2, m2), e3 = vSub(n3, m3);
  const x0 = vAdd(l0, mul0(d0, d1, d2, d3, q0, u1, u2, u3));
  const x1 = vAdd(l1, mul1(d0, d1, d2, d3, q0, q1, u2, u3));
  const x2 = vAdd(l2, mul2(d0, d1, d2, d3, q0, q1, q2, u3));
  const x3 = vAdd(l3, mul3(d0, d1, d2, d3, q0, q1, q2, q3));
  const y0 = vAdd(m0, mul0(e0, e1, e2, e3, q0, u1, u2, u3));
  const y1 = vAdd(m1, mul1(e0, e1, e2, e3, q0, q1, u2, u3));
  const y2 = vAdd(m2, mul2(e0, e1, e2, e3, q0, q1, q2, u3));
  const y3 = vAdd(m3, mul3(e0, e1, e2, e3, q0, q1, q2, q3));
  const hb = lb >> 1;
  const c0 = T + o, c1 = c0 + hb, c2 = c1 + hb, c3 = c2 + hb;
  st(wide, c0, x0); st(wide, c0 + qb, y0);
  st(wide, c1, x1); st(wide, c1 + qb, y1);
  st(wide, c2, x2); st(wide, c2 + qb, y2);
  st(wide, c3, x3); st(wide, c3 + qb, y3);
}

/** `foldExtBlock` for a table that is mostly zero: an all-zero block only moves zeros. */
// @ts-ignore: decorator
@inline function foldSparseBlock(
  wide: bool, T: usize, lb: usize, o: usize, qb: usize,
  q0: v128, q1: v128, q2: v128, q3: v128, u1: v128, u2: v128, u3: v128,
): void {
  const b0 = T + o, b1 = b0 + lb, b2 = b1 + lb, b3 = b2 + lb;
  const z0 = v128.or(v128.or(ld(wide, b0), ld(wide, b0 + qb)), v128.or(ld(wide, b0 + 2 * qb), ld(wide, b0 + 3 * qb)));
  const z1 = v128.or(v128.or(ld(wide, b1), ld(wide, b1 + qb)), v128.or(ld(wide, b1 + 2 * qb), ld(wide, b1 + 3 * qb)));
  const z2 = v128.or(v128.or(ld(wide, b2), ld(wide, b2 + qb)), v128.or(ld(wide, b2 + 2 * qb), ld(wide, b2 + 3 * qb)));
  const z3 = v128.or(v128.or(ld(wide, b3), ld(wide, b3 + qb)), v128.or(ld(wide, b3 + 2 * qb), ld(wide, b3 + 3 * qb)));
  if (v128.any_true(v128.or(v128.or(z0, z1), v128.or(z2, z3)))) {
    foldExtBlock(wide, T, lb, o, qb, q0, q1, q2, q3, u1, u2, u3);
  } else {
    const zero = i32x4.splat(0);
    const hb = lb >> 1;
    const c0 = T + o, c1 = c0 + hb, c2 = c1 + hb, c3 = c2 + hb;
    st(wide, c0, zero); st(wide, c0 + qb, zero);
    st(wide, c1, zero); st(wide, c1 + qb, zero);
    st(wide, c2, zero); st(wide, c2 + qb, zero);
    st(wide, c3, zero); st(wide, c3 + qb, zero);
  }
}

/**
 * Binds r into the base table Vb of length 4Q: the extension table Vx (plane bytes 2qb) gets
 * (t[i] + r0·d, r1·d, r2·d, r3·d) with d = t[i+2Q] − t[i] at i and likewise at i + Q.
 */
// @ts-ignore: decorator
@inline function foldBaseBlock(wide: bool, Vx: usize, Vb: usize, o: usize, qb: usize, q0: v128, q1: v128, q2: v128, q3: v128): void {
  const s = Vb + o;
  const l = ld(wide, s), m = ld(wide, s + qb), h = ld(wide, s + 2 * qb), n = ld(wide, s + 3 * qb);
  const d = vSub(h, l), e = vSub(n, m);
  const hb = qb << 1;
  const c0 = Vx + o, c1 = c0 + hb, c2 = c1 + hb, c3 = c2 + hb;
  st(wide, c0, vAdd(l, vMontMul(d, q0))); st(wide, c0 + qb, vAdd(m, vMontMul(e, q0)));
  st(wide, c1, vMontMul(d, q1)); st(wide, c1 + qb, vMontMul(e, q1));
  st(wide, c2, vMontMul(d, q2)); st(wide, c2 + qb, vMontMul(e, q2));
  st(wide, c3, vMontMul(d, q3)); st(wide, c3 + qb, vMontMul(e, q3));
}

/**
 * Adds the pair (i, i + h) (h = hb/4) of the plane tables A, Pw, V (plane bytes sb) to the
 * accumulators at acc (64 bytes per node T, 16 per coefficient): Σ V_T·(A_T + Pw_T·V_T²) with
 * Pow3 (T = 0..4), Σ V_T·A_T without (T = 0..2). With vbase, V is the single base plane.
 */
// @ts-ignore: decorator
@inline function evalBlock(wide: bool, pow: bool, vbase: bool, skip1: bool, A: usize, Pw: usize, V: usize, sb: usize, o: usize, hb: usize, acc: usize): void {
  const ab0 = A + o, ab1 = ab0 + sb, ab2 = ab1 + sb, ab3 = ab2 + sb;
  let a0 = ld(wide, ab0), a1 = ld(wide, ab1), a2 = ld(wide, ab2), a3 = ld(wide, ab3);
  const da0 = vSub(ld(wide, ab0 + hb), a0), da1 = vSub(ld(wide, ab1 + hb), a1);
  const da2 = vSub(ld(wide, ab2 + hb), a2), da3 = vSub(ld(wide, ab3 + hb), a3);
  let p0 = i32x4.splat(0), p1 = p0, p2 = p0, p3 = p0;
  let dp0 = p0, dp1 = p0, dp2 = p0, dp3 = p0;
  // The Pow3 table is often sparse (partial Poseidon2 rounds): a block whose Pw pairs are all
  // zero contributes only Σ V_T·A_T (still at every node of the degree-4 round).
  let usePow = false;
  if (pow) {
    const pb0 = Pw + o, pb1 = pb0 + sb, pb2 = pb1 + sb, pb3 = pb2 + sb;
    p0 = ld(wide, pb0); p1 = ld(wide, pb1); p2 = ld(wide, pb2); p3 = ld(wide, pb3);
    const h0 = ld(wide, pb0 + hb), h1 = ld(wide, pb1 + hb), h2 = ld(wide, pb2 + hb), h3 = ld(wide, pb3 + hb);
    usePow = v128.any_true(v128.or(v128.or(v128.or(p0, p1), v128.or(p2, p3)), v128.or(v128.or(h0, h1), v128.or(h2, h3))));
    dp0 = vSub(h0, p0); dp1 = vSub(h1, p1); dp2 = vSub(h2, p2); dp3 = vSub(h3, p3);
  }
  const np: u32 = pow ? 5 : 3;
  if (vbase) {
    let x = ld(wide, V + o);
    const dx = vSub(ld(wide, V + o + hb), x);
    for (let t: u32 = 0; t < np; t++) {
      const at = acc + (<usize>t << 6);
      if (!skip1 || t != 1) {
        let s0 = a0, s1 = a1, s2 = a2, s3 = a3;
        if (usePow) {
          const sq = vMontMul(x, x);
          s0 = vAdd(s0, vMontMul(p0, sq));
          s1 = vAdd(s1, vMontMul(p1, sq));
          s2 = vAdd(s2, vMontMul(p2, sq));
          s3 = vAdd(s3, vMontMul(p3, sq));
        }
        accumulate(at, vMontMul(s0, x));
        accumulate(at + 16, vMontMul(s1, x));
        accumulate(at + 32, vMontMul(s2, x));
        accumulate(at + 48, vMontMul(s3, x));
      }
      if (usePow) {
        p0 = vAdd(p0, dp0); p1 = vAdd(p1, dp1); p2 = vAdd(p2, dp2); p3 = vAdd(p3, dp3);
      }
      x = vAdd(x, dx);
      a0 = vAdd(a0, da0); a1 = vAdd(a1, da1); a2 = vAdd(a2, da2); a3 = vAdd(a3, da3);
    }
  } else {
    const vb0 = V + o, vb1 = vb0 + sb, vb2 = vb1 + sb, vb3 = vb2 + sb;
    let x0 = ld(wide, vb0), x1 = ld(wide, vb1), x2 = ld(wide, vb2), x3 = ld(wide, vb3);
    const dx0 = vSub(ld(wide, vb0 + hb), x0), dx1 = vSub(ld(wide, vb1 + hb), x1);
    const dx2 = vSub(ld(wide, vb2 + hb), x2), dx3 = vSub(ld(wide, vb3 + hb), x3);
    for (let t: u32 = 0; t < np; t++) {
      const at = acc + (<usize>t << 6);
      if (!skip1 || t != 1) {
        const w1 = vTriple(x1), w2 = vTriple(x2), w3 = vTriple(x3);
        let s0 = a0, s1 = a1, s2 = a2, s3 = a3;
        if (usePow) {
          // V_T² (10 products), then Pw_T·V_T².
          const e0 = vAdd(x0, x0), e1 = vAdd(x1, x1), w2d = vAdd(w2, w2);
          const g0 = dot3(x0, x0, e1, w3, w2, x2);
          const g1 = dot2(e0, x1, w2d, x3);
          const g2 = dot3(e0, x2, x1, x1, w3, x3);
          const g3 = dot2(e0, x3, e1, x2);
          const v1 = vTriple(g1), v2 = vTriple(g2), v3 = vTriple(g3);
          s0 = vAdd(s0, mul0(p0, p1, p2, p3, g0, v1, v2, v3));
          s1 = vAdd(s1, mul1(p0, p1, p2, p3, g0, g1, v2, v3));
          s2 = vAdd(s2, mul2(p0, p1, p2, p3, g0, g1, g2, v3));
          s3 = vAdd(s3, mul3(p0, p1, p2, p3, g0, g1, g2, g3));
        }
        accumulate(at, mul0(s0, s1, s2, s3, x0, w1, w2, w3));
        accumulate(at + 16, mul1(s0, s1, s2, s3, x0, x1, w2, w3));
        accumulate(at + 32, mul2(s0, s1, s2, s3, x0, x1, x2, w3));
        accumulate(at + 48, mul3(s0, s1, s2, s3, x0, x1, x2, x3));
      }
      if (usePow) {
        p0 = vAdd(p0, dp0); p1 = vAdd(p1, dp1); p2 = vAdd(p2, dp2); p3 = vAdd(p3, dp3);
      }
      x0 = vAdd(x0, dx0); x1 = vAdd(x1, dx1); x2 = vAdd(x2, dx2); x3 = vAdd(x3, dx3);
      a0 = vAdd(a0, da0); a1 = vAdd(a1, da1); a2 = vAdd(a2, da2); a3 = vAdd(a3, da3);
    }
  }
}

// @ts-ignore: decorator
@inline function evalLoop(pow: bool, vbase: bool, A: usize, Pw: usize, V: usize, len: u32, acc: usize): void {
  const h = len >> 1;
  const sb = <usize>len << 2, hb = <usize>h << 2;
  if (h >= 4) {
    for (let i: u32 = 0; i < h; i += 4) evalBlock(true, pow, vbase, false, A, Pw, V, sb, <usize>i << 2, hb, acc);
  } else {
    for (let i: u32 = 0; i < h; i++) evalBlock(false, pow, vbase, false, A, Pw, V, sb, <usize>i << 2, hb, acc);
  }
}

// @ts-ignore: decorator
@inline function foldEvalBlock(
  wide: bool, pow: bool, vbase: bool, skip1: bool, A: usize, Pw: usize, Vx: usize, Vb: usize, lb: usize, o: usize, qb: usize,
  q0: v128, q1: v128, q2: v128, q3: v128, u1: v128, u2: v128, u3: v128, acc: usize,
): void {
  foldExtBlock(wide, A, lb, o, qb, q0, q1, q2, q3, u1, u2, u3);
  if (pow) foldSparseBlock(wide, Pw, lb, o, qb, q0, q1, q2, q3, u1, u2, u3);
  if (vbase) foldBaseBlock(wide, Vx, Vb, o, qb, q0, q1, q2, q3);
  else foldExtBlock(wide, Vx, lb, o, qb, q0, q1, q2, q3, u1, u2, u3);
  evalBlock(wide, pow, false, skip1, A, Pw, Vx, qb << 1, o, qb, acc);
}

// @ts-ignore: decorator
@inline function foldEvalLoop(
  pow: bool, vbase: bool, skip1: bool, A: usize, Pw: usize, Vx: usize, Vb: usize, len: u32,
  q0: v128, q1: v128, q2: v128, q3: v128, u1: v128, u2: v128, u3: v128, acc: usize,
): void {
  const Q = len >> 2;
  const lb = <usize>len << 2, qb = <usize>Q << 2;
  if (Q >= 4) {
    for (let i: u32 = 0; i < Q; i += 4) foldEvalBlock(true, pow, vbase, skip1, A, Pw, Vx, Vb, lb, <usize>i << 2, qb, q0, q1, q2, q3, u1, u2, u3, acc);
  } else {
    for (let i: u32 = 0; i < Q; i++) foldEvalBlock(false, pow, vbase, skip1, A, Pw, Vx, Vb, lb, <usize>i << 2, qb, q0, q1, q2, q3, u1, u2, u3, acc);
  }
}

/** Byte offset (from the results) of the claim g_prev(r) written by `previousAt`. */
const OUT_CLAIM: usize = 96;

/**
 * g_prev(r) from the previous coefficients a_0..a_m at the result words (canonical) by Horner's
 * rule, written canonical at results + OUT_CLAIM. r·c uses r in Montgomery form, so the products
 * of canonical c stay canonical.
 */
function previousAt(out: usize, pow: bool, r0: u32, r1: u32, r2: u32, r3: u32): void {
  const res = out + OUT_RES;
  const m0 = <u64>toMontS(r0), m1 = <u64>toMontS(r1), m2 = <u64>toMontS(r2), m3 = <u64>toMontS(r3);
  const t1 = <u64>addS(addS(<u32>m1, <u32>m1), <u32>m1);
  const t2 = <u64>addS(addS(<u32>m2, <u32>m2), <u32>m2);
  const t3 = <u64>addS(addS(<u32>m3, <u32>m3), <u32>m3);
  let j: i32 = pow ? 4 : 2;
  let at = res + (<usize>j << 4);
  let c0 = <u64>load<u32>(at), c1 = <u64>load<u32>(at, 4), c2 = <u64>load<u32>(at, 8), c3 = <u64>load<u32>(at, 12);
  for (j--; j >= 0; j--) {
    at = res + (<usize>j << 4);
    const n0 = addS(montReduceWideS(c0 * m0 + c1 * t3 + c2 * t2 + c3 * t1), load<u32>(at));
    const n1 = addS(montReduceWideS(c0 * m1 + c1 * m0 + c2 * t3 + c3 * t2), load<u32>(at, 4));
    const n2 = addS(montReduceWideS(c0 * m2 + c1 * m1 + c2 * m0 + c3 * t3), load<u32>(at, 8));
    const n3 = addS(montReduceWideS(c0 * m3 + c1 * m2 + c2 * m1 + c3 * m0), load<u32>(at, 12));
    c0 = <u64>n0; c1 = <u64>n1; c2 = <u64>n2; c3 = <u64>n3;
  }
  store<u32>(res + OUT_CLAIM, <u32>c0);
  store<u32>(res + OUT_CLAIM, <u32>c1, 4);
  store<u32>(res + OUT_CLAIM, <u32>c2, 8);
  store<u32>(res + OUT_CLAIM, <u32>c3, 12);
}

/** g(T)[k] for the accumulator of node t, coefficient k: lane sum, canonical. */
// @ts-ignore: decorator
@inline function accValue(acc: usize, t: u32, k: u32): u64 {
  const v = v128.load(acc + (<usize>t << 6) + (<usize>k << 4));
  const s = (<u64>i32x4.extract_lane(v, 0) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 1) & 0xffffffff)
    + (<u64>i32x4.extract_lane(v, 2) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 3) & 0xffffffff);
  return <u64>fromMontS(<u32>(s % <u64>P));
}

/**
 * Writes the round message from the accumulators: with F_RAW the evaluations g(0..m) (word
 * 4T + k), else the ascending coefficients a_0..a_m of the interpolating polynomial (word 4j + k),
 * canonical, m = 4 with Pow3 and 2 without. Interpolation over T = 0..4 (inverse Vandermonde):
 *   a1 = (−25g0 + 48g1 − 36g2 + 16g3 − 3g4)/12, a2 = (35g0 − 104g1 + 114g2 − 56g3 + 11g4)/24,
 *   a3 = (−5g0 + 18g1 − 24g2 + 14g3 − 3g4)/12, a4 = (g0 − 4g1 + 6g2 − 4g3 + g4)/24;
 * over T = 0..2: a1 = (−3g0 + 4g1 − g2)/2, a2 = (g0 − 2g1 + g2)/2.
 */
function finishRound(out: usize, pow: bool, raw: bool, claim: bool): void {
  const res = out + OUT_RES;
  const p = <u64>P;
  for (let k: u32 = 0; k < 4; k++) {
    const g0 = accValue(out, 0, k), g2 = accValue(out, 2, k);
    const g1 = claim ? <u64>subS(load<u32>(res + OUT_CLAIM + (<usize>k << 2)), <u32>g0) : accValue(out, 1, k);
    if (pow) {
      const g3 = accValue(out, 3, k), g4 = accValue(out, 4, k);
      if (raw) {
        store<u32>(res + (<usize>(0 + k) << 2), <u32>g0);
        store<u32>(res + (<usize>(4 + k) << 2), <u32>g1);
        store<u32>(res + (<usize>(8 + k) << 2), <u32>g2);
        store<u32>(res + (<usize>(12 + k) << 2), <u32>g3);
        store<u32>(res + (<usize>(16 + k) << 2), <u32>g4);
      } else {
        const a1 = ((48 * g1 + 16 * g3 + 64 * p - 25 * g0 - 36 * g2 - 3 * g4) % p) * INV12 % p;
        const a2 = ((35 * g0 + 114 * g2 + 11 * g4 + 160 * p - 104 * g1 - 56 * g3) % p) * INV24 % p;
        const a3 = ((18 * g1 + 14 * g3 + 32 * p - 5 * g0 - 24 * g2 - 3 * g4) % p) * INV12 % p;
        const a4 = ((g0 + 6 * g2 + g4 + 8 * p - 4 * g1 - 4 * g3) % p) * INV24 % p;
        store<u32>(res + (<usize>(0 + k) << 2), <u32>g0);
        store<u32>(res + (<usize>(4 + k) << 2), <u32>a1);
        store<u32>(res + (<usize>(8 + k) << 2), <u32>a2);
        store<u32>(res + (<usize>(12 + k) << 2), <u32>a3);
        store<u32>(res + (<usize>(16 + k) << 2), <u32>a4);
      }
    } else if (raw) {
      store<u32>(res + (<usize>(0 + k) << 2), <u32>g0);
      store<u32>(res + (<usize>(4 + k) << 2), <u32>g1);
      store<u32>(res + (<usize>(8 + k) << 2), <u32>g2);
    } else {
      const a1 = ((4 * g1 + 4 * p - 3 * g0 - g2) % p) * INV2 % p;
      const a2 = ((g0 + g2 + 2 * p - 2 * g1) % p) * INV2 % p;
      store<u32>(res + (<usize>(0 + k) << 2), <u32>g0);
      store<u32>(res + (<usize>(4 + k) << 2), <u32>a1);
      store<u32>(res + (<usize>(8 + k) << 2), <u32>a2);
      store<u32>(res + (<usize>(12 + k) << 2), 0);
      store<u32>(res + (<usize>(16 + k) << 2), 0);
    }
  }
}

/**
 * One sumcheck round over the phase tables (see the file comment). Tables: A and Pw extension
 * (plane layout, length len), V either the base table Vb (F_VBASE) or the extension table Vx.
 * - Without F_FOLD: evaluates the round over the pairs (i, i + len/2).
 * - With F_FOLD: binds r = (r0..r3) (canonical) into every table first (len → len/2; with F_VBASE
 *   Vb is folded into Vx, which needs 2·len words), then evaluates the new tables. When the new
 *   length is 1 nothing is evaluated and the bound values A(r), Pw(r), V(r) are written canonical
 *   to result words 0..11.
 * Results start at byte 320 of `out` (see `finishRound`).
 */
export function gkr_round(A: usize, Pw: usize, Vx: usize, Vb: usize, len: u32, r0: u32, r1: u32, r2: u32, r3: u32, flags: u32, out: usize): void {
  const pow = (flags & F_POW) != 0, vbase = (flags & F_VBASE) != 0, raw = (flags & F_RAW) != 0;
  if ((flags & F_FOLD) != 0 && len == 2) {
    fold_ext(A, A, 1, r0, r1, r2, r3);
    if (pow) fold_ext(Pw, Pw, 1, r0, r1, r2, r3);
    if (vbase) fold_base_ext(Vx, Vb, 1, r0, r1, r2, r3);
    else fold_ext(Vx, Vx, 1, r0, r1, r2, r3);
    const res = out + OUT_RES;
    v128.store(res, fromMontV(v128.load(A)));
    v128.store(res, pow ? fromMontV(v128.load(Pw)) : i32x4.splat(0), 16);
    v128.store(res, fromMontV(v128.load(Vx)), 32);
    return;
  }
  const claim = (flags & F_FOLD) != 0 && (flags & F_CLAIM) != 0 && !raw;
  if (claim) previousAt(out, pow, r0, r1, r2, r3);
  zeroWords(out, 80);
  if ((flags & F_FOLD) != 0) {
    const m0 = toMontS(r0), m1 = toMontS(r1), m2 = toMontS(r2), m3 = toMontS(r3);
    const q0 = i32x4.splat(m0), q1 = i32x4.splat(m1), q2 = i32x4.splat(m2), q3 = i32x4.splat(m3);
    const u1 = vTriple(q1), u2 = vTriple(q2), u3 = vTriple(q3);
    if (pow) {
      if (claim) {
        if (vbase) foldEvalLoop(true, true, true, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
        else foldEvalLoop(true, false, true, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
      } else {
        if (vbase) foldEvalLoop(true, true, false, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
        else foldEvalLoop(true, false, false, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
      }
    } else if (claim) {
      if (vbase) foldEvalLoop(false, true, true, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
      else foldEvalLoop(false, false, true, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
    } else {
      if (vbase) foldEvalLoop(false, true, false, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
      else foldEvalLoop(false, false, false, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
    }
  } else if (pow) {
    if (vbase) evalLoop(true, true, A, Pw, Vb, len, out);
    else evalLoop(true, false, A, Pw, Vx, len, out);
  } else {
    if (vbase) evalLoop(false, true, A, Pw, Vb, len, out);
    else evalLoop(false, false, A, Pw, Vx, len, out);
  }
  finishRound(out, pow, raw, claim);
}

// ------------------------------------------------------------------------------------ phase 2

/**
 * Start of phase 2 for a layer with Mul gates, with eqx = eq(x*, ·) (interleaved, length n):
 * L* = Σ_Lin coeff·w[out]·eqx[in1] and P* = Σ_Pow3 coeff·w[out]·eqx[in1] (result words 0..7,
 * canonical), and the plane table M[y] = Σ_{Mul, in2 = y} coeff·w[out]·eqx[in1] (via Maos).
 */
export function gkr_phase2_start(desc: usize, W: usize, eqx: usize, Maos: usize, M: usize, n: u32, nOut: u32, out: usize): void {
  const mi = n - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  let lin = i32x4.splat(0), pw = lin;
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 8)));
    lin = vAdd(lin, extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  for (let g: u32 = 0; g < nPow; g++) {
    const rec = powPtr + <usize>g * 12;
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 8)));
    pw = vAdd(pw, extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  zeroWords(Maos, n << 2);
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 12)));
    accumulate(Maos + (<usize>(load<u32>(rec, 8) & mi) << 4), extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  transpose(M, Maos, n);
  const res = out + OUT_RES;
  v128.store(res, fromMontV(lin));
  v128.store(res, fromMontV(pw), 16);
}

/**
 * MLE of the base table Vb (Montgomery, 2^nbits words) at `point` (nbits canonical extension
 * coordinates, MSB first), by folding into tmp (2^(nbits+1) words); result words 0..3 canonical.
 */
export function gkr_mle_base(Vb: usize, tmp: usize, point: usize, nbits: u32, out: usize): void {
  const res = out + OUT_RES;
  if (nbits == 0) {
    v128.store(res, i32x4.replace_lane(i32x4.splat(0), 0, fromMontS(load<u32>(Vb))));
    return;
  }
  let h: u32 = 1 << (nbits - 1);
  fold_base_ext(tmp, Vb, h, load<u32>(point), load<u32>(point, 4), load<u32>(point, 8), load<u32>(point, 12));
  for (let j: u32 = 1; j < nbits; j++) {
    h >>= 1;
    const c = point + (<usize>j << 4);
    fold_ext(tmp, tmp, h, load<u32>(c), load<u32>(c, 4), load<u32>(c, 8), load<u32>(c, 12));
  }
  v128.store(res, fromMontV(v128.load(tmp)));
}

// ------------------------------------------------------------------------------------ witness

/** out[o] += v (mod p). */
// @ts-ignore: decorator
@inline function addAt(out: usize, o: u32, v: u32): void {
  const at = out + (<usize>o << 2);
  const s = load<u32>(at) + v;
  store<u32>(at, s >= P ? s - P : s);
}

/**
 * Evaluates one layer (compat-v1 §7) in Montgomery form: out (nOut words) ← Σ consts +
 * Σ_Lin coeff·V[in1] + Σ_Mul coeff·V[in1]·V[in2] + Σ_Pow3 coeff·V[in1]³, V = below (nIn words).
 * Consecutive gates of one kind with the same output are summed in a register and added to
 * memory once per run.
 */
export function gkr_eval_layer(desc: usize, below: usize, out: usize, nIn: u32, nOut: u32): void {
  const mi = nIn - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  const constPtr = <usize>load<u32>(desc, 24), nConst = load<u32>(desc, 28);
  zeroWords(out, nOut);
  for (let c: u32 = 0; c < nConst; c++) {
    const rec = constPtr + (<usize>c << 3);
    addAt(out, load<u32>(rec) & mo, load<u32>(rec, 4));
  }
  let cur: u32 = 0, acc: u32 = 0;
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const o = load<u32>(rec) & mo;
    const v = montMulS(load<u32>(rec, 8), load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2)));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const o = load<u32>(rec) & mo;
    const a = load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2));
    const b = load<u32>(below + (<usize>(load<u32>(rec, 8) & mi) << 2));
    const v = montMulS(load<u32>(rec, 12), montMulS(a, b));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  for (let g: u32 = 0; g < nPow; g++) {
    const rec = powPtr + <usize>g * 12;
    const o = load<u32>(rec) & mo;
    const a = load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2));
    const v = montMulS(load<u32>(rec, 8), montMulS(montMulS(a, a), a));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  addAt(out, cur, acc);
}
