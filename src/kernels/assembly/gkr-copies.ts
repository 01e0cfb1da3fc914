// Data-parallel GKR kernels (profile v2 aggregates, docs/profile-v2.md §6.2), driven by
// src/gkr/structured/dp-wasm.ts: passes over the K layer-below vectors of K copies of one layer
// (copy c at words c·n .. c·n + n − 1) that never touch the copies' gates. Every value is in
// Montgomery form unless stated; extension tables in plane layout (4 planes, stride = length),
// extension scalars interleaved (4 words). TypeScript reference: src/gkr/structured/dp-oracle.ts
// (`tsCopiesBackend`).
import { P, addS, fromMontS, montMulS, montReduceWideS, vAdd, vMontMul, vTriple } from "./field";
import { dot4, mul0, mul1, mul2, mul3 } from "./gkr-ext";

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

/**
 * Adds one structured linear group (docs/profile-v2.md §2) of K copies into their layer vectors:
 * for copy c (below at c·nIn, out at c·nOut words) and block b, out[o_b + z] += (M·f(V[i_b + ·]))[z]
 * + consts[z], f cubing the lanes of cubeMask. map 0 identity (2^laneBits lanes), 1 Poseidon2
 * external (16 lanes), 2 Poseidon2 internal (16 lanes, diag its 16 diagonal words). Montgomery
 * form throughout; inBase/outBase hold nb wire numbers; scratch holds 16 words.
 */
export function dp_eval_group(
  below: usize, nIn: u32, out: usize, nOut: u32, K: u32, map: u32, laneBits: u32, cubeMask: u32,
  consts: usize, diag: usize, inBase: usize, outBase: usize, nb: u32, scratch: usize,
): void {
  const lanes: u32 = 1 << laneBits;
  const p = <u64>P;
  for (let c: u32 = 0; c < K; c++) {
    const bi = below + (<usize>c * <usize>nIn << 2), bo = out + (<usize>c * <usize>nOut << 2);
    for (let b: u32 = 0; b < nb; b++) {
      const ib = bi + (<usize>load<u32>(inBase + (<usize>b << 2)) << 2);
      const ob = bo + (<usize>load<u32>(outBase + (<usize>b << 2)) << 2);
      for (let x: u32 = 0; x < lanes; x++) {
        let a = load<u32>(ib + (<usize>x << 2));
        if (((cubeMask >>> x) & 1) != 0) a = montMulS(montMulS(a, a), a);
        store<u32>(scratch + (<usize>x << 2), a);
      }
      if (map == 1) {
        // M4 per chunk, then the column sums (every intermediate < 35p < 2^64)
        for (let ch: u32 = 0; ch < 16; ch += 4) {
          const at = scratch + (<usize>ch << 2);
          const x0 = <u64>load<u32>(at), x1 = <u64>load<u32>(at, 4), x2 = <u64>load<u32>(at, 8), x3 = <u64>load<u32>(at, 12);
          store<u32>(at, <u32>((2 * x0 + 3 * x1 + x2 + x3) % p));
          store<u32>(at, <u32>((x0 + 2 * x1 + 3 * x2 + x3) % p), 4);
          store<u32>(at, <u32>((x0 + x1 + 2 * x2 + 3 * x3) % p), 8);
          store<u32>(at, <u32>((3 * x0 + x1 + x2 + 2 * x3) % p), 12);
        }
        for (let k: u32 = 0; k < 4; k++) {
          const kb = <usize>k << 2;
          const s = <u64>load<u32>(scratch + kb) + <u64>load<u32>(scratch + 16 + kb) + <u64>load<u32>(scratch + 32 + kb) + <u64>load<u32>(scratch + 48 + kb);
          for (let ch: usize = 0; ch < 64; ch += 16) {
            store<u32>(scratch + ch + kb, <u32>((<u64>load<u32>(scratch + ch + kb) + s) % p));
          }
        }
      } else if (map == 2) {
        let s: u64 = 0;
        for (let x: u32 = 0; x < 16; x++) s += <u64>load<u32>(scratch + (<usize>x << 2));
        const sum = <u32>(s % p);
        for (let x: u32 = 0; x < 16; x++) {
          const at = scratch + (<usize>x << 2);
          store<u32>(at, addS(montMulS(load<u32>(diag + (<usize>x << 2)), load<u32>(at)), sum));
        }
      }
      for (let z: u32 = 0; z < lanes; z++) {
        const at = ob + (<usize>z << 2);
        store<u32>(at, addS(addS(load<u32>(at), load<u32>(scratch + (<usize>z << 2))), load<u32>(consts + (<usize>z << 2))));
      }
    }
  }
}
