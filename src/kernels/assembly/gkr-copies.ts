// Data-parallel GKR kernels (profile v2 aggregates, docs/profile-v2.md §6.2), driven by
// src/gkr/structured/dp-wasm.ts: passes over the K layer-below vectors of K copies of one layer
// (copy c at words c·n .. c·n + n − 1) that never touch the copies' gates. Every value is in
// Montgomery form unless stated; extension tables in plane layout (4 planes, stride = length),
// extension scalars interleaved (4 words). TypeScript reference: src/gkr/structured/dp-oracle.ts
// (`tsCopiesBackend`).
import { P, addS, fromMontS, montMulS, montReduceWideS, vAdd, vDouble, vMontMul, vTriple } from "./field";
import { dot4, mul0, mul1, mul2, mul3 } from "./gkr-ext";
import { zeroWords } from "./gkr-tables";

// @ts-ignore: decorator
@inline function hsum(v: v128): u32 {
  const s = (<u64>i32x4.extract_lane(v, 0) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 1) & 0xffffffff)
    + (<u64>i32x4.extract_lane(v, 2) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 3) & 0xffffffff);
  return <u32>(s % <u64>P);
}

/**
 * out[t·K + c] (interleaved, canonical) = Σ_{x<n} V_c(x)·T_t(x) for t < nt, c < K: V base
 * (K·n words), T_t extension tables of n elements back to back (4n words each).
 */
export function dp_dots(V: usize, K: u32, n: u32, T: usize, nt: u32, out: usize): void {
  const pb = <usize>n << 2;
  const n16 = n & ~15;
  for (let t: u32 = 0; t < nt; t++) {
    const tb = T + <usize>t * 4 * pb;
    for (let c: u32 = 0; c < K; c++) {
      const vb = V + <usize>c * pb;
      let acc0 = i32x4.splat(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      let x: u32 = 0;
      for (; x < n16; x += 16) {
        const o = <usize>x << 2;
        const v0 = v128.load(vb + o), v1 = v128.load(vb + o, 16), v2 = v128.load(vb + o, 32), v3 = v128.load(vb + o, 48);
        const p0 = tb + o, p1 = p0 + pb, p2 = p1 + pb, p3 = p2 + pb;
        acc0 = vAdd(acc0, dot4(v0, v128.load(p0), v1, v128.load(p0, 16), v2, v128.load(p0, 32), v3, v128.load(p0, 48)));
        acc1 = vAdd(acc1, dot4(v0, v128.load(p1), v1, v128.load(p1, 16), v2, v128.load(p1, 32), v3, v128.load(p1, 48)));
        acc2 = vAdd(acc2, dot4(v0, v128.load(p2), v1, v128.load(p2, 16), v2, v128.load(p2, 32), v3, v128.load(p2, 48)));
        acc3 = vAdd(acc3, dot4(v0, v128.load(p3), v1, v128.load(p3, 16), v2, v128.load(p3, 32), v3, v128.load(p3, 48)));
      }
      let s0 = hsum(acc0), s1 = hsum(acc1), s2 = hsum(acc2), s3 = hsum(acc3);
      for (; x < n; x++) {
        const o = <usize>x << 2;
        const v = load<u32>(vb + o);
        s0 = addS(s0, montMulS(v, load<u32>(tb + o)));
        s1 = addS(s1, montMulS(v, load<u32>(tb + pb + o)));
        s2 = addS(s2, montMulS(v, load<u32>(tb + 2 * pb + o)));
        s3 = addS(s3, montMulS(v, load<u32>(tb + 3 * pb + o)));
      }
      const at = out + ((<usize>t * <usize>K + <usize>c) << 4);
      store<u32>(at, fromMontS(s0));
      store<u32>(at, fromMontS(s1), 4);
      store<u32>(at, fromMontS(s2), 8);
      store<u32>(at, fromMontS(s3), 12);
    }
  }
}

/** dst (planes of n) = Σ_{c<K} e[c]·V_c, e interleaved (K elements). */
export function dp_combine(V: usize, K: u32, n: u32, e: usize, dst: usize): void {
  const pb = <usize>n << 2;
  const z = i32x4.splat(0);
  const words = n << 2;
  const w4 = words & ~3;
  let i: u32 = 0;
  for (; i < w4; i += 4) v128.store(dst + (<usize>i << 2), z);
  for (; i < words; i++) store<u32>(dst + (<usize>i << 2), 0);
  const n4 = n & ~3;
  const K4 = K & ~3;
  let c: u32 = 0;
  for (; c < K4; c += 4) {
    const r0 = V + <usize>c * pb, r1 = r0 + pb, r2 = r1 + pb, r3 = r2 + pb;
    const ea = e + (<usize>c << 4);
    for (let k: u32 = 0; k < 4; k++) {
      const kb = <usize>k << 2;
      const e0 = load<u32>(ea + kb), e1 = load<u32>(ea + 16 + kb), e2 = load<u32>(ea + 32 + kb), e3 = load<u32>(ea + 48 + kb);
      const s0 = i32x4.splat(e0), s1 = i32x4.splat(e1), s2 = i32x4.splat(e2), s3 = i32x4.splat(e3);
      const d = dst + <usize>k * pb;
      let x: u32 = 0;
      for (; x < n4; x += 4) {
        const o = <usize>x << 2;
        v128.store(d + o, vAdd(v128.load(d + o), dot4(v128.load(r0 + o), s0, v128.load(r1 + o), s1, v128.load(r2 + o), s2, v128.load(r3 + o), s3)));
      }
      for (; x < n; x++) {
        const o = <usize>x << 2;
        const sum = <u64>load<u32>(r0 + o) * e0 + <u64>load<u32>(r1 + o) * e1 + <u64>load<u32>(r2 + o) * e2 + <u64>load<u32>(r3 + o) * e3;
        store<u32>(d + o, addS(load<u32>(d + o), montReduceWideS(sum)));
      }
    }
  }
  for (; c < K; c++) {
    const r = V + <usize>c * pb;
    const ea = e + (<usize>c << 4);
    for (let k: u32 = 0; k < 4; k++) {
      const ek = load<u32>(ea + (<usize>k << 2));
      const s = i32x4.splat(ek);
      const d = dst + <usize>k * pb;
      let x: u32 = 0;
      for (; x < n4; x += 4) {
        const o = <usize>x << 2;
        v128.store(d + o, vAdd(v128.load(d + o), vMontMul(v128.load(r + o), s)));
      }
      for (; x < n; x++) {
        const o = <usize>x << 2;
        store<u32>(d + o, addS(load<u32>(d + o), montMulS(load<u32>(r + o), ek)));
      }
    }
  }
}

/** dst[c·mp + j] = V[c·n + lanes[j]] for j < m, 0 for m ≤ j < mp (base values, any form). */
export function dp_gather(dst: usize, V: usize, K: u32, n: u32, lanes: usize, m: u32, mp: u32): void {
  for (let c: u32 = 0; c < K; c++) {
    const src = V + (<usize>c * <usize>n << 2);
    const d = dst + (<usize>c * <usize>mp << 2);
    let j: u32 = 0;
    for (; j < m; j++) store<u32>(d + (<usize>j << 2), load<u32>(src + (<usize>load<u32>(lanes + (<usize>j << 2)) << 2)));
    for (; j < mp; j++) store<u32>(d + (<usize>j << 2), 0);
  }
}

/**
 * dst (planes of K·mp, index c·mp + j) = Σ_{q<nq} E_q[c]·T_q[j]: E interleaved (E_q[c] at element
 * q·K + c), T_q planes of mp elements back to back (4·mp words each); mp a multiple of 4.
 */
export function dp_outer(dst: usize, E: usize, T: usize, K: u32, mp: u32, nq: u32): void {
  const sb = <usize>(K * mp) << 2;
  const tpb = <usize>mp << 2;
  const zero = i32x4.splat(0);
  for (let c: u32 = 0; c < K; c++) {
    const db = dst + (<usize>c * <usize>mp << 2);
    for (let j: u32 = 0; j < mp; j += 4) {
      const o = <usize>j << 2;
      let r0 = zero, r1 = zero, r2 = zero, r3 = zero;
      for (let q: u32 = 0; q < nq; q++) {
        const ea = E + ((<usize>q * <usize>K + <usize>c) << 4);
        const s0 = i32x4.splat(load<u32>(ea)), s1 = i32x4.splat(load<u32>(ea, 4)), s2 = i32x4.splat(load<u32>(ea, 8)), s3 = i32x4.splat(load<u32>(ea, 12));
        const tb = T + <usize>q * 4 * tpb + o;
        const x0 = v128.load(tb), x1 = v128.load(tb + tpb), x2 = v128.load(tb + 2 * tpb), x3 = v128.load(tb + 3 * tpb);
        const w1 = vTriple(x1), w2 = vTriple(x2), w3 = vTriple(x3);
        r0 = vAdd(r0, mul0(s0, s1, s2, s3, x0, w1, w2, w3));
        r1 = vAdd(r1, mul1(s0, s1, s2, s3, x0, x1, w2, w3));
        r2 = vAdd(r2, mul2(s0, s1, s2, s3, x0, x1, x2, w3));
        r3 = vAdd(r3, mul3(s0, s1, s2, s3, x0, x1, x2, x3));
      }
      v128.store(db + o, r0);
      v128.store(db + sb + o, r1);
      v128.store(db + 2 * sb + o, r2);
      v128.store(db + 3 * sb + o, r3);
    }
  }
}

// ------------------------------------------------------------------------------------ witness

// @ts-ignore: decorator
@inline function laneMask(bits: u32): v128 {
  let m = i32x4.splat(-(<i32>(bits & 1)));
  m = i32x4.replace_lane(m, 1, -(<i32>((bits >>> 1) & 1)));
  m = i32x4.replace_lane(m, 2, -(<i32>((bits >>> 2) & 1)));
  return i32x4.replace_lane(m, 3, -(<i32>((bits >>> 3) & 1)));
}

/** x³ on the lanes of `mask`, x elsewhere. */
// @ts-ignore: decorator
@inline function cubeLanes(x: v128, mask: v128, any: bool): v128 {
  if (!any) return x;
  return v128.bitselect(vMontMul(vMontMul(x, x), x), x, mask);
}

/** Every lane = the sum of the four lanes of v (mod p). */
// @ts-ignore: decorator
@inline function vSumAll(v: v128): v128 {
  const a = vAdd(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return vAdd(a, i32x4.shuffle(a, a, 1, 0, 3, 2));
}

/**
 * Adds one structured linear group (docs/profile-v2.md §2) of K copies into their layer vectors:
 * for copy c (below at c·nIn, out at c·nOut words) and block b, out[o_b + z] += (M·f(V[i_b + ·]))[z]
 * + consts[z], f cubing the lanes of cubeMask. map 0 identity (2^laneBits lanes), 1 Poseidon2
 * external (16 lanes), 2 Poseidon2 internal (16 lanes, diag its 16 diagonal words). Montgomery
 * form throughout; inBase/outBase hold nb wire numbers; scratch holds 16 words. Blocks of 4 or
 * more lanes run on SIMD vectors of four lanes (M_E: M4 on the four chunks at once after a 4×4
 * transpose, then the column sums; M_I: the lane sum broadcast plus the diagonal); smaller
 * identity blocks lane by lane. TypeScript reference: `evaluateCopiesTs` (dp-prover.ts).
 */
export function dp_eval_group(
  below: usize, nIn: u32, out: usize, nOut: u32, K: u32, map: u32, laneBits: u32, cubeMask: u32,
  consts: usize, diag: usize, inBase: usize, outBase: usize, nb: u32, scratch: usize,
): void {
  const lanes: u32 = 1 << laneBits;
  if (lanes < 4) {
    evalGroupScalar(below, nIn, out, nOut, K, lanes, cubeMask, consts, inBase, outBase, nb, scratch);
    return;
  }
  const regs = lanes >>> 2;
  const m0 = laneMask(cubeMask), m1 = laneMask(cubeMask >>> 4), m2 = laneMask(cubeMask >>> 8), m3 = laneMask(cubeMask >>> 12);
  const a0 = (cubeMask & 0xf) != 0, a1 = ((cubeMask >>> 4) & 0xf) != 0, a2 = ((cubeMask >>> 8) & 0xf) != 0, a3 = ((cubeMask >>> 12) & 0xf) != 0;
  const c0 = v128.load(consts), c1 = regs > 1 ? v128.load(consts, 16) : c0, c2 = regs > 2 ? v128.load(consts, 32) : c0, c3 = regs > 3 ? v128.load(consts, 48) : c0;
  const d0 = v128.load(diag), d1 = v128.load(diag, 16), d2 = v128.load(diag, 32), d3 = v128.load(diag, 48);
  for (let c: u32 = 0; c < K; c++) {
    const bi = below + (<usize>c * <usize>nIn << 2), bo = out + (<usize>c * <usize>nOut << 2);
    for (let b: u32 = 0; b < nb; b++) {
      const ib = bi + (<usize>load<u32>(inBase + (<usize>b << 2)) << 2);
      const ob = bo + (<usize>load<u32>(outBase + (<usize>b << 2)) << 2);
      if (map == 0) {
        for (let r: u32 = 0; r < regs; r++) {
          const o = <usize>r << 4;
          const mr = r == 0 ? m0 : r == 1 ? m1 : r == 2 ? m2 : m3;
          const ar = r == 0 ? a0 : r == 1 ? a1 : r == 2 ? a2 : a3;
          const x = cubeLanes(v128.load(ib + o), mr, ar);
          v128.store(ob + o, vAdd(vAdd(v128.load(ob + o), x), v128.load(consts + o)));
        }
        continue;
      }
      const r0 = cubeLanes(v128.load(ib), m0, a0), r1 = cubeLanes(v128.load(ib, 16), m1, a1);
      const r2 = cubeLanes(v128.load(ib, 32), m2, a2), r3 = cubeLanes(v128.load(ib, 48), m3, a3);
      let y0: v128, y1: v128, y2: v128, y3: v128;
      if (map == 1) {
        // X_j = position j of the four chunks; M4 = circ(2, 3, 1, 1) on them at once:
        // with t = x0 + x1 + x2 + x3, y0 = t + x0 + 2x1, y1 = t + x1 + 2x2, y2 = t + x2 + 2x3, y3 = t + x3 + 2x0.
        const t0 = i32x4.shuffle(r0, r1, 0, 4, 1, 5), t1 = i32x4.shuffle(r2, r3, 0, 4, 1, 5);
        const t2 = i32x4.shuffle(r0, r1, 2, 6, 3, 7), t3 = i32x4.shuffle(r2, r3, 2, 6, 3, 7);
        const x0 = i32x4.shuffle(t0, t1, 0, 1, 4, 5), x1 = i32x4.shuffle(t0, t1, 2, 3, 6, 7);
        const x2 = i32x4.shuffle(t2, t3, 0, 1, 4, 5), x3 = i32x4.shuffle(t2, t3, 2, 3, 6, 7);
        const p01 = vAdd(x0, x1), p23 = vAdd(x2, x3), t = vAdd(p01, p23);
        const u = vAdd(t, x1), v = vAdd(t, x3);
        const z0 = vAdd(u, p01), z1 = vAdd(u, vDouble(x2)), z2 = vAdd(v, p23), z3 = vAdd(v, vDouble(x0));
        // back to one register per chunk, then the sums per position broadcast to every chunk
        const u0 = i32x4.shuffle(z0, z1, 0, 4, 1, 5), u1 = i32x4.shuffle(z2, z3, 0, 4, 1, 5);
        const u2 = i32x4.shuffle(z0, z1, 2, 6, 3, 7), u3 = i32x4.shuffle(z2, z3, 2, 6, 3, 7);
        const q0 = i32x4.shuffle(u0, u1, 0, 1, 4, 5), q1 = i32x4.shuffle(u0, u1, 2, 3, 6, 7);
        const q2 = i32x4.shuffle(u2, u3, 0, 1, 4, 5), q3 = i32x4.shuffle(u2, u3, 2, 3, 6, 7);
        const sum = vAdd(vAdd(q0, q1), vAdd(q2, q3));
        y0 = vAdd(q0, sum); y1 = vAdd(q1, sum); y2 = vAdd(q2, sum); y3 = vAdd(q3, sum);
      } else {
        const sum = vSumAll(vAdd(vAdd(r0, r1), vAdd(r2, r3)));
        y0 = vAdd(vMontMul(d0, r0), sum); y1 = vAdd(vMontMul(d1, r1), sum);
        y2 = vAdd(vMontMul(d2, r2), sum); y3 = vAdd(vMontMul(d3, r3), sum);
      }
      v128.store(ob, vAdd(vAdd(v128.load(ob), y0), c0));
      v128.store(ob, vAdd(vAdd(v128.load(ob, 16), y1), c1), 16);
      v128.store(ob, vAdd(vAdd(v128.load(ob, 32), y2), c2), 32);
      v128.store(ob, vAdd(vAdd(v128.load(ob, 48), y3), c3), 48);
    }
  }
}

/** Identity groups of 1 or 2 lanes, lane by lane (see `dp_eval_group`). */
function evalGroupScalar(
  below: usize, nIn: u32, out: usize, nOut: u32, K: u32, lanes: u32, cubeMask: u32,
  consts: usize, inBase: usize, outBase: usize, nb: u32, scratch: usize,
): void {
  for (let c: u32 = 0; c < K; c++) {
    const bi = below + (<usize>c * <usize>nIn << 2), bo = out + (<usize>c * <usize>nOut << 2);
    for (let b: u32 = 0; b < nb; b++) {
      const ib = bi + (<usize>load<u32>(inBase + (<usize>b << 2)) << 2);
      const ob = bo + (<usize>load<u32>(outBase + (<usize>b << 2)) << 2);
      for (let x: u32 = 0; x < lanes; x++) {
        let a = load<u32>(ib + (<usize>x << 2));
        if (((cubeMask >>> x) & 1) != 0) a = montMulS(montMulS(a, a), a);
        const at = ob + (<usize>x << 2);
        store<u32>(at, addS(addS(load<u32>(at), a), load<u32>(consts + (<usize>x << 2))));
      }
    }
  }
}

// ------------------------------------------------------------------------------ Mul booking

/**
 * Adds the Mul booking of K copies into the dense A table (planes of stride `len`, entry
 * c·mp + j): A(c, j) += Σ_q E_q(c)·Σ_{g: slot_g = j} u_q,g·V_c(in2_g). V: K vectors of n words;
 * gates: G pairs (slot, in2); U: per claim q, G extension elements interleaved (element q·G + g);
 * E: per claim, K elements interleaved (element q·K + c); acc: 4·m words of scratch (planes of m).
 * Montgomery form throughout. TypeScript reference: `mulBookingTable` (dp-oracle.ts).
 */
export function dp_mul_booking(A: usize, len: u32, V: usize, K: u32, n: u32, mp: u32, gates: usize, G: u32, U: usize, E: usize, Q: u32, m: u32, acc: usize): void {
  const pm = <usize>m << 2;
  const pl = <usize>len << 2;
  for (let c: u32 = 0; c < K; c++) {
    const vb = V + (<usize>c * <usize>n << 2);
    const ab = A + (<usize>c * <usize>mp << 2);
    for (let q: u32 = 0; q < Q; q++) {
      zeroWords(acc, m << 2);
      const ub = U + (<usize>q * <usize>G << 4);
      for (let g: u32 = 0; g < G; g++) {
        const gp = gates + (<usize>g << 3);
        const v = load<u32>(vb + (<usize>load<u32>(gp, 4) << 2));
        if (v == 0) continue;
        const at = acc + (<usize>load<u32>(gp) << 2);
        const u = ub + (<usize>g << 4);
        store<u32>(at, addS(load<u32>(at), montMulS(v, load<u32>(u))));
        store<u32>(at + pm, addS(load<u32>(at + pm), montMulS(v, load<u32>(u, 4))));
        store<u32>(at + 2 * pm, addS(load<u32>(at + 2 * pm), montMulS(v, load<u32>(u, 8))));
        store<u32>(at + 3 * pm, addS(load<u32>(at + 3 * pm), montMulS(v, load<u32>(u, 12))));
      }
      const ea = E + ((<usize>q * <usize>K + <usize>c) << 4);
      const e0 = <u64>load<u32>(ea), e1 = <u64>load<u32>(ea, 4), e2 = <u64>load<u32>(ea, 8), e3 = <u64>load<u32>(ea, 12);
      for (let j: u32 = 0; j < m; j++) {
        const o = <usize>j << 2;
        const a0 = <u64>load<u32>(acc + o), a1 = <u64>load<u32>(acc + pm + o), a2 = <u64>load<u32>(acc + 2 * pm + o), a3 = <u64>load<u32>(acc + 3 * pm + o);
        if ((a0 | a1 | a2 | a3) == 0) continue;
        // (e·a) in F_p[X]/(X^4 − 3); every wide sum below is of at most four products < p², so < 4p²
        const t0 = montReduceWideS(e1 * a3 + e2 * a2 + e3 * a1);
        const r0 = addS(montReduceWideS(e0 * a0), addS(addS(t0, t0), t0));
        const t1 = montReduceWideS(e2 * a3 + e3 * a2);
        const r1 = addS(montReduceWideS(e0 * a1 + e1 * a0), addS(addS(t1, t1), t1));
        const t2 = montReduceWideS(e3 * a3);
        const r2 = addS(montReduceWideS(e0 * a2 + e1 * a1 + e2 * a0), addS(addS(t2, t2), t2));
        const r3 = montReduceWideS(e0 * a3 + e1 * a2 + e2 * a1 + e3 * a0);
        const d = ab + o;
        store<u32>(d, addS(load<u32>(d), r0));
        store<u32>(d + pl, addS(load<u32>(d + pl), r1));
        store<u32>(d + 2 * pl, addS(load<u32>(d + 2 * pl), r2));
        store<u32>(d + 3 * pl, addS(load<u32>(d + 3 * pl), r3));
      }
    }
  }
}
