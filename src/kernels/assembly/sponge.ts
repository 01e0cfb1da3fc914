// Poseidon2 width 16 over KoalaBear (compat-v1 §3) for sequential hashing: one state at a time
// (the duplex transcript, h_node, h_leaf, the circuit commitment) and up to four independent
// sponges side by side (several circuit commitments at once).
//
// Constants region: the same 148 Montgomery-form words as poseidon2.ts ([0, 64) RC_init,
// [64, 84) RC_int, [84, 148) RC_term).
//
// Single state: four v128 hold the state in natural order (vector c = elements 4c..4c+3) in
// Montgomery form. External rounds add four round constants per vector and cube; M_E applies M4
// inside each vector (y = t + x + 2·rot1(x), t = x0 + x1 + x2 + x3 in every lane) and then adds the
// column sums (a vertical sum of the four vectors). Internal rounds cube lane 0 of vector 0, form the
// sum of all sixteen lanes and multiply every lane by its diagonal entry with Shoup products.
//
// Four states: sixteen v128, vector k holding element k of each state (lane i = state i), kept in a
// job region between calls (layout at `poseidon2_sponge_x4`).
import {
  MU, R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP,
  fromMontS, shoupOf, toMontS, vAdd, vDouble, vHigh, vMontMul, vP, vShoupMul, vSub, vTriple,
} from "./field";

const RC_INIT_BYTES: usize = 0;
const RC_INT_BYTES: usize = 64 * 4;
const RC_TERM_BYTES: usize = 84 * 4;

// The kernels of this file take an extended constants region: the 148 words above, then
// (written once by `sponge_constants_init`) at word 148 + 8i the internal diagonal entries of lanes
// 4i..4i+3 followed by their Shoup companions ⌊V·2^32 / p⌋, then at word 180 the lane mask
// (0, −1, −1, −1). Loading these from memory is cheaper than materialising vector immediates.
const EXTRA_BYTES: usize = 148 * 4;
const MASK_BYTES: usize = 180 * 4;
const SPONGE_CONSTANT_WORDS: u32 = 184;

/** Words of the extended constants region the kernels of this file read. */
export function sponge_constant_words(): u32 {
  return SPONGE_CONSTANT_WORDS;
}

/**
 * Writes words [148, 184) of the extended constants region at `consts`: the internal diagonal
 * V = [−2, 1, 2, 1/2, 3, 4, −1/2, −3, −4, 2^−8, 2^−3, 2^−24, −2^−8, −2^−3, −2^−4, −2^−24]
 * (canonical, compat-v1 §3) with Shoup companions, and the lane mask.
 */
export function sponge_constants_init(consts: usize): void {
  const v0 = i32x4(2130706431, 1, 2, 1065353217);
  const v1 = i32x4(3, 4, 1065353216, 2130706430);
  const v2 = i32x4(2130706429, 2122383361, 1864368129, 2130706306);
  const v3 = i32x4(8323072, 266338304, 133169152, 127);
  v128.store(consts + EXTRA_BYTES, v0, 0);
  v128.store(consts + EXTRA_BYTES, v1, 32);
  v128.store(consts + EXTRA_BYTES, v2, 64);
  v128.store(consts + EXTRA_BYTES, v3, 96);
  for (let i: usize = 0; i < 4; i++) {
    for (let l: usize = 0; l < 4; l++) {
      const at = consts + EXTRA_BYTES + (i << 5) + (l << 2);
      store<u32>(at + 16, shoupOf(load<u32>(at)));
    }
  }
  v128.store(consts + MASK_BYTES, i32x4(0, -1, -1, -1));
}

// Diagonal entries of vector i and their Shoup companions.
// @ts-ignore: decorator
@inline function diag(consts: usize, i: usize): v128 { return v128.load(consts + EXTRA_BYTES + (i << 5)); }
// @ts-ignore: decorator
@inline function diagS(consts: usize, i: usize): v128 { return v128.load(consts + EXTRA_BYTES + (i << 5) + 16); }

// Montgomery product a·b·R^−1 given bm = b·mu mod 2^32 (saves one multiplication on the path of a).
// @ts-ignore: decorator
@inline function montMulPre(a: v128, b: v128, bm: v128): v128 {
  const q = i32x4.mul(a, bm);
  const xh = vHigh(i64x2.extmul_low_i32x4_u(a, b), i64x2.extmul_high_i32x4_u(a, b));
  const qh = vHigh(i64x2.extmul_low_i32x4_u(q, vP()), i64x2.extmul_high_i32x4_u(q, vP()));
  const r = i32x4.sub(xh, qh);
  return i32x4.min_u(r, i32x4.add(r, vP()));
}

// t³ lane-wise (Montgomery form).
// @ts-ignore: decorator
@inline function cube(t: v128): v128 {
  const tm = i32x4.mul(t, i32x4.splat(MU));
  return montMulPre(montMulPre(t, t, tm), t, tm);
}

// (x + c)³ lane-wise with four round constants loaded from c.
// @ts-ignore: decorator
@inline function cubeAdd(x: v128, c: usize): v128 {
  return cube(vAdd(x, v128.load(c)));
}

// M4 on the four lanes of x: y_r = t + x_r + 2·x_{r+1 mod 4} with t = Σ x.
// @ts-ignore: decorator
@inline function m4(x: v128): v128 {
  const a = vAdd(x, i32x4.shuffle(x, x, 2, 3, 0, 1));
  const t = vAdd(a, i32x4.shuffle(a, a, 1, 0, 3, 2));
  return vAdd(t, vAdd(x, vDouble(i32x4.shuffle(x, x, 1, 2, 3, 0))));
}

/**
 * Permutes the Montgomery-form state at ptr (16 words) in place. Values stay in [0, p).
 */
function permuteMont(ptr: usize, consts: usize): void {
  let v0 = v128.load(ptr, 0), v1 = v128.load(ptr, 16), v2 = v128.load(ptr, 32), v3 = v128.load(ptr, 48);
  // Step 0 is the leading M_E; steps 1..4 initial external rounds, 5..8 terminal ones; the internal
  // rounds run after step 4.
  for (let r: u32 = 0; r < 9; r++) {
    if (r > 0) {
      const c = r <= 4 ? consts + RC_INIT_BYTES + (<usize>(r - 1) << 6) : consts + RC_TERM_BYTES + (<usize>(r - 5) << 6);
      v0 = cubeAdd(v0, c); v1 = cubeAdd(v1, c + 16); v2 = cubeAdd(v2, c + 32); v3 = cubeAdd(v3, c + 48);
    }
    const y0 = m4(v0), y1 = m4(v1), y2 = m4(v2), y3 = m4(v3);
    const s = vAdd(vAdd(y0, y1), vAdd(y2, y3));
    v0 = vAdd(y0, s); v1 = vAdd(y1, s); v2 = vAdd(y2, s); v3 = vAdd(y3, s);

    if (r == 4) {
      // Lane 0 of v0 carries t = s0 + RC_int[j] (the S-box input); lanes 1..3 hold s1..s3.
      // With w = Σ_{i≥1} s_i and c = t³: s'0 = w + c − 2c = w − c, s'i = w + c + V[i]·s_i.
      v0 = vAdd(v0, v128.load32_zero(consts + RC_INT_BYTES));
      for (let j: usize = 0; j < 20; j++) {
        const c = cube(v0);
        let w = vAdd(vAdd(v128.and(v0, v128.load(consts + MASK_BYTES)), v1), vAdd(v2, v3));
        w = vAdd(w, i32x4.shuffle(w, w, 2, 3, 0, 1));
        w = vAdd(w, i32x4.shuffle(w, w, 1, 0, 3, 2));
        const next = j < 19 ? v128.load32_splat(consts + RC_INT_BYTES + ((j + 1) << 2)) : i32x4.splat(0);
        const cb = i32x4.shuffle(c, c, 0, 0, 0, 0);
        const sum = vAdd(w, cb);
        const lane0 = vSub(vAdd(w, next), cb);
        v1 = vAdd(sum, vShoupMul(v1, diag(consts, 1), diagS(consts, 1)));
        v2 = vAdd(sum, vShoupMul(v2, diag(consts, 2), diagS(consts, 2)));
        v3 = vAdd(sum, vShoupMul(v3, diag(consts, 3), diagS(consts, 3)));
        v0 = i32x4.shuffle(lane0, vAdd(sum, vShoupMul(v0, diag(consts, 0), diagS(consts, 0))), 0, 5, 6, 7);
      }
    }
  }
  v128.store(ptr, v0, 0); v128.store(ptr, v1, 16); v128.store(ptr, v2, 32); v128.store(ptr, v3, 48);
}

/**
 * Permutes two Montgomery-form states (16 words at pa and at pb) in place, their instruction
 * streams interleaved so that one state's latency hides behind the other's work.
 */
function permuteMont2(pa: usize, pb: usize, consts: usize): void {
  let a0 = v128.load(pa, 0), a1 = v128.load(pa, 16), a2 = v128.load(pa, 32), a3 = v128.load(pa, 48);
  let b0 = v128.load(pb, 0), b1 = v128.load(pb, 16), b2 = v128.load(pb, 32), b3 = v128.load(pb, 48);
  for (let r: u32 = 0; r < 9; r++) {
    if (r > 0) {
      const c = r <= 4 ? consts + RC_INIT_BYTES + (<usize>(r - 1) << 6) : consts + RC_TERM_BYTES + (<usize>(r - 5) << 6);
      a0 = cubeAdd(a0, c); b0 = cubeAdd(b0, c); a1 = cubeAdd(a1, c + 16); b1 = cubeAdd(b1, c + 16);
      a2 = cubeAdd(a2, c + 32); b2 = cubeAdd(b2, c + 32); a3 = cubeAdd(a3, c + 48); b3 = cubeAdd(b3, c + 48);
    }
    {
      const y0 = m4(a0), y1 = m4(a1), y2 = m4(a2), y3 = m4(a3);
      const s = vAdd(vAdd(y0, y1), vAdd(y2, y3));
      a0 = vAdd(y0, s); a1 = vAdd(y1, s); a2 = vAdd(y2, s); a3 = vAdd(y3, s);
    }
    {
      const y0 = m4(b0), y1 = m4(b1), y2 = m4(b2), y3 = m4(b3);
      const s = vAdd(vAdd(y0, y1), vAdd(y2, y3));
      b0 = vAdd(y0, s); b1 = vAdd(y1, s); b2 = vAdd(y2, s); b3 = vAdd(y3, s);
    }
    if (r == 4) {
      // As in permuteMont, for both states.
      const first = v128.load32_zero(consts + RC_INT_BYTES);
      a0 = vAdd(a0, first);
      b0 = vAdd(b0, first);
      for (let j: usize = 0; j < 20; j++) {
        const next = j < 19 ? v128.load32_splat(consts + RC_INT_BYTES + ((j + 1) << 2)) : i32x4.splat(0);
        const ca = cube(a0), cb = cube(b0);
        let wa = vAdd(vAdd(v128.and(a0, v128.load(consts + MASK_BYTES)), a1), vAdd(a2, a3));
        let wb = vAdd(vAdd(v128.and(b0, v128.load(consts + MASK_BYTES)), b1), vAdd(b2, b3));
        wa = vAdd(wa, i32x4.shuffle(wa, wa, 2, 3, 0, 1));
        wb = vAdd(wb, i32x4.shuffle(wb, wb, 2, 3, 0, 1));
        wa = vAdd(wa, i32x4.shuffle(wa, wa, 1, 0, 3, 2));
        wb = vAdd(wb, i32x4.shuffle(wb, wb, 1, 0, 3, 2));
        const ta = i32x4.shuffle(ca, ca, 0, 0, 0, 0), tb = i32x4.shuffle(cb, cb, 0, 0, 0, 0);
        const sa = vAdd(wa, ta), sb = vAdd(wb, tb);
        a1 = vAdd(sa, vShoupMul(a1, diag(consts, 1), diagS(consts, 1)));
        b1 = vAdd(sb, vShoupMul(b1, diag(consts, 1), diagS(consts, 1)));
        a2 = vAdd(sa, vShoupMul(a2, diag(consts, 2), diagS(consts, 2)));
        b2 = vAdd(sb, vShoupMul(b2, diag(consts, 2), diagS(consts, 2)));
        a3 = vAdd(sa, vShoupMul(a3, diag(consts, 3), diagS(consts, 3)));
        b3 = vAdd(sb, vShoupMul(b3, diag(consts, 3), diagS(consts, 3)));
        a0 = i32x4.shuffle(vSub(vAdd(wa, next), ta), vAdd(sa, vShoupMul(a0, diag(consts, 0), diagS(consts, 0))), 0, 5, 6, 7);
        b0 = i32x4.shuffle(vSub(vAdd(wb, next), tb), vAdd(sb, vShoupMul(b0, diag(consts, 0), diagS(consts, 0))), 0, 5, 6, 7);
      }
    }
  }
  v128.store(pa, a0, 0); v128.store(pa, a1, 16); v128.store(pa, a2, 32); v128.store(pa, a3, 48);
  v128.store(pb, b0, 0); v128.store(pb, b1, 16); v128.store(pb, b2, 32); v128.store(pb, b3, 48);
}

// @ts-ignore: decorator
@inline function toMontVec(ptr: usize, n: u32): void {
  const b = i32x4.splat(R_MOD_P), bs = i32x4.splat(R_MOD_P_SHOUP);
  for (let i: u32 = 0; i < n; i += 4) v128.store(ptr + (<usize>i << 2), vShoupMul(v128.load(ptr + (<usize>i << 2)), b, bs));
}

// @ts-ignore: decorator
@inline function fromMontVec(ptr: usize, n: u32): void {
  const b = i32x4.splat(R_INV), bs = i32x4.splat(R_INV_SHOUP);
  for (let i: u32 = 0; i < n; i += 4) v128.store(ptr + (<usize>i << 2), vShoupMul(v128.load(ptr + (<usize>i << 2)), b, bs));
}

/** Applies the permutation in place to one state of 16 canonical words at `state`. */
export function poseidon2_permute_one(state: usize, consts: usize): void {
  toMontVec(state, 16);
  permuteMont(state, consts);
  fromMontVec(state, 16);
}

/**
 * Padding-free overwrite sponge over one state (compat-v1 §4 sponge, §5 duplex without samples):
 * for each block of 8 words of src[0..n) (the last one possibly shorter) overwrite the block's
 * prefix of the rate lanes, then permute. The state (16 canonical words at `state`) is read and
 * written back; n = 0 leaves it unchanged. Inputs are reduced mod p.
 */
export function poseidon2_sponge(state: usize, src: usize, n: u32, consts: usize): void {
  if (n == 0) return;
  toMontVec(state, 16);
  const b = i32x4.splat(R_MOD_P), bs = i32x4.splat(R_MOD_P_SHOUP);
  const full = n >> 3;
  for (let k: u32 = 0; k < full; k++) {
    const p = src + (<usize>k << 5);
    v128.store(state, vShoupMul(v128.load(p), b, bs), 0);
    v128.store(state, vShoupMul(v128.load(p, 16), b, bs), 16);
    permuteMont(state, consts);
  }
  const rest = n & 7;
  if (rest > 0) {
    const p = src + (<usize>full << 5);
    for (let j: u32 = 0; j < rest; j++) store<u32>(state + (<usize>j << 2), toMontS(load<u32>(p + (<usize>j << 2))));
    permuteMont(state, consts);
  }
  fromMontVec(state, 16);
}

// ------------------------------------------------------------------ four sponges side by side

// (x + c)³ with c splat to the four lanes.
// @ts-ignore: decorator
@inline function cubeAddSplat(x: v128, c: usize): v128 {
  const t = vAdd(x, v128.load32_splat(c));
  return vMontMul(vMontMul(t, t), t);
}

// x·2^−k mod p for lanes x < p, 1 ≤ k ≤ 24 (2^−k ≡ −127·2^(24−k)).
// @ts-ignore: decorator
@inline function halve(x: v128, k: i32): v128 {
  const h = i32x4.shr_u(x, k);
  const l = v128.and(x, i32x4.splat((1 << k) - 1));
  return vSub(h, i32x4.mul(l, i32x4.splat(127 << (24 - k))));
}

// −x·2^−k mod p.
// @ts-ignore: decorator
@inline function negHalve(x: v128, k: i32): v128 {
  const h = i32x4.shr_u(x, k);
  const l = v128.and(x, i32x4.splat((1 << k) - 1));
  return vSub(i32x4.mul(l, i32x4.splat(127 << (24 - k))), h);
}

// M4 on (a, b, c, d) lane-wise, returned through the four locals of the caller (macro-like use).
// y0 = t + a + 2b, y1 = t + b + 2c, y2 = t + c + 2d, y3 = t + d + 2a.

/**
 * Permutes four states kept transposed in Montgomery form at ptr (vector k = element k of the
 * four states, 16 vectors = 256 bytes) in place.
 */
function permuteMont4(ptr: usize, consts: usize): void {
  let s0 = v128.load(ptr, 0), s1 = v128.load(ptr, 16), s2 = v128.load(ptr, 32), s3 = v128.load(ptr, 48);
  let s4 = v128.load(ptr, 64), s5 = v128.load(ptr, 80), s6 = v128.load(ptr, 96), s7 = v128.load(ptr, 112);
  let s8 = v128.load(ptr, 128), s9 = v128.load(ptr, 144), s10 = v128.load(ptr, 160), s11 = v128.load(ptr, 176);
  let s12 = v128.load(ptr, 192), s13 = v128.load(ptr, 208), s14 = v128.load(ptr, 224), s15 = v128.load(ptr, 240);
  for (let r: u32 = 0; r < 9; r++) {
    if (r > 0) {
      const c = r <= 4 ? consts + RC_INIT_BYTES + (<usize>(r - 1) << 6) : consts + RC_TERM_BYTES + (<usize>(r - 5) << 6);
      s0 = cubeAddSplat(s0, c); s1 = cubeAddSplat(s1, c + 4); s2 = cubeAddSplat(s2, c + 8); s3 = cubeAddSplat(s3, c + 12);
      s4 = cubeAddSplat(s4, c + 16); s5 = cubeAddSplat(s5, c + 20); s6 = cubeAddSplat(s6, c + 24); s7 = cubeAddSplat(s7, c + 28);
      s8 = cubeAddSplat(s8, c + 32); s9 = cubeAddSplat(s9, c + 36); s10 = cubeAddSplat(s10, c + 40); s11 = cubeAddSplat(s11, c + 44);
      s12 = cubeAddSplat(s12, c + 48); s13 = cubeAddSplat(s13, c + 52); s14 = cubeAddSplat(s14, c + 56); s15 = cubeAddSplat(s15, c + 60);
    }
    {
      const t = vAdd(vAdd(s0, s1), vAdd(s2, s3));
      const y0 = vAdd(t, vAdd(s0, vDouble(s1))), y1 = vAdd(t, vAdd(s1, vDouble(s2)));
      const y2 = vAdd(t, vAdd(s2, vDouble(s3))), y3 = vAdd(t, vAdd(s3, vDouble(s0)));
      s0 = y0; s1 = y1; s2 = y2; s3 = y3;
    }
    {
      const t = vAdd(vAdd(s4, s5), vAdd(s6, s7));
      const y0 = vAdd(t, vAdd(s4, vDouble(s5))), y1 = vAdd(t, vAdd(s5, vDouble(s6)));
      const y2 = vAdd(t, vAdd(s6, vDouble(s7))), y3 = vAdd(t, vAdd(s7, vDouble(s4)));
      s4 = y0; s5 = y1; s6 = y2; s7 = y3;
    }
    {
      const t = vAdd(vAdd(s8, s9), vAdd(s10, s11));
      const y0 = vAdd(t, vAdd(s8, vDouble(s9))), y1 = vAdd(t, vAdd(s9, vDouble(s10)));
      const y2 = vAdd(t, vAdd(s10, vDouble(s11))), y3 = vAdd(t, vAdd(s11, vDouble(s8)));
      s8 = y0; s9 = y1; s10 = y2; s11 = y3;
    }
    {
      const t = vAdd(vAdd(s12, s13), vAdd(s14, s15));
      const y0 = vAdd(t, vAdd(s12, vDouble(s13))), y1 = vAdd(t, vAdd(s13, vDouble(s14)));
      const y2 = vAdd(t, vAdd(s14, vDouble(s15))), y3 = vAdd(t, vAdd(s15, vDouble(s12)));
      s12 = y0; s13 = y1; s14 = y2; s15 = y3;
    }
    {
      const c0 = vAdd(vAdd(s0, s4), vAdd(s8, s12));
      const c1 = vAdd(vAdd(s1, s5), vAdd(s9, s13));
      const c2 = vAdd(vAdd(s2, s6), vAdd(s10, s14));
      const c3 = vAdd(vAdd(s3, s7), vAdd(s11, s15));
      s0 = vAdd(s0, c0); s4 = vAdd(s4, c0); s8 = vAdd(s8, c0); s12 = vAdd(s12, c0);
      s1 = vAdd(s1, c1); s5 = vAdd(s5, c1); s9 = vAdd(s9, c1); s13 = vAdd(s13, c1);
      s2 = vAdd(s2, c2); s6 = vAdd(s6, c2); s10 = vAdd(s10, c2); s14 = vAdd(s14, c2);
      s3 = vAdd(s3, c3); s7 = vAdd(s7, c3); s11 = vAdd(s11, c3); s15 = vAdd(s15, c3);
    }
    if (r == 4) {
      for (let j: usize = 0; j < 20; j++) {
        s0 = cubeAddSplat(s0, consts + RC_INT_BYTES + (j << 2));
        const sum = vAdd(
          vAdd(vAdd(vAdd(s0, s1), vAdd(s2, s3)), vAdd(vAdd(s4, s5), vAdd(s6, s7))),
          vAdd(vAdd(vAdd(s8, s9), vAdd(s10, s11)), vAdd(vAdd(s12, s13), vAdd(s14, s15))),
        );
        s0 = vSub(sum, vDouble(s0));
        s1 = vAdd(sum, s1);
        s2 = vAdd(sum, vDouble(s2));
        s3 = vAdd(sum, halve(s3, 1));
        s4 = vAdd(sum, vTriple(s4));
        s5 = vAdd(sum, vDouble(vDouble(s5)));
        s6 = vAdd(sum, negHalve(s6, 1));
        s7 = vSub(sum, vTriple(s7));
        s8 = vSub(sum, vDouble(vDouble(s8)));
        s9 = vAdd(sum, halve(s9, 8));
        s10 = vAdd(sum, halve(s10, 3));
        s11 = vAdd(sum, halve(s11, 24));
        s12 = vAdd(sum, negHalve(s12, 8));
        s13 = vAdd(sum, negHalve(s13, 3));
        s14 = vAdd(sum, negHalve(s14, 4));
        s15 = vAdd(sum, negHalve(s15, 24));
      }
    }
  }
  v128.store(ptr, s0, 0); v128.store(ptr, s1, 16); v128.store(ptr, s2, 32); v128.store(ptr, s3, 48);
  v128.store(ptr, s4, 64); v128.store(ptr, s5, 80); v128.store(ptr, s6, 96); v128.store(ptr, s7, 112);
  v128.store(ptr, s8, 128); v128.store(ptr, s9, 144); v128.store(ptr, s10, 160); v128.store(ptr, s11, 176);
  v128.store(ptr, s12, 192); v128.store(ptr, s13, 208); v128.store(ptr, s14, 224); v128.store(ptr, s15, 240);
}

// Multi-sponge job region (u32 words, 16-byte aligned), shared by the two- and four-lane kernels:
//   [0, 64)    state of lane i (16 canonical words) at 16i: read when the lane begins, written
//              after the lane's last block of every call in which it absorbed something;
//   [64, 72)   lane i: source pointer (bytes) at 64 + 2i, word count n_i at 65 + 2i;
//   [72, 136)  working states (Montgomery form) kept between calls.
const JOB_STATES: usize = 0;
const JOB_LANES: usize = 256;
const JOB_WORK: usize = 288;
const JOB_WORDS: u32 = 136;

/** Words a multi-sponge job region must hold. */
export function sponge_job_words(): u32 {
  return JOB_WORDS;
}

// @ts-ignore: decorator
@inline function laneCount(job: usize, i: usize): u32 {
  return load<u32>(job + JOB_LANES + (i << 3), 4);
}

// @ts-ignore: decorator
@inline function laneSource(job: usize, i: usize): usize {
  return <usize>load<u32>(job + JOB_LANES + (i << 3));
}

/** Steps of a call: the largest ⌈n_i / 8⌉ over `lanes` lanes. */
function jobSteps(job: usize, lanes: usize): u32 {
  let steps: u32 = 0;
  for (let i: usize = 0; i < lanes; i++) {
    const b = (laneCount(job, i) + 7) >> 3;
    if (b > steps) steps = b;
  }
  return steps;
}

/**
 * Two independent overwrite sponges (block semantics of `poseidon2_sponge`), interleaved. Working
 * state of lane i: 16 words (natural order) at job word 72 + 16i. Lane i with bit i of `begin` set
 * starts from its canonical state in the job region; otherwise it continues from its working state.
 * A call runs max_i ⌈n_i / 8⌉ steps; at step t each lane with t < ⌈n_i / 8⌉ overwrites the prefix
 * of its rate with its next (up to 8) words, both states are permuted, and lane i's state is
 * written back after its last block. A sponge continued over several calls must get a multiple of
 * 8 words, and at least as many as the other lane, in every call but its last. Inputs are reduced
 * mod p.
 */
export function poseidon2_sponge_x2(job: usize, begin: u32, consts: usize): void {
  const work = job + JOB_WORK;
  for (let i: usize = 0; i < 2; i++) {
    if ((begin >> <u32>i) & 1) {
      for (let k: usize = 0; k < 16; k++) {
        store<u32>(work + (i << 6) + (k << 2), toMontS(load<u32>(job + JOB_STATES + (i << 6) + (k << 2))));
      }
    }
  }
  const b = i32x4.splat(R_MOD_P), bs = i32x4.splat(R_MOD_P_SHOUP);
  const steps = jobSteps(job, 2);
  for (let t: u32 = 0; t < steps; t++) {
    for (let i: usize = 0; i < 2; i++) {
      const n = laneCount(job, i);
      const start = t << 3;
      if (start >= n) continue;
      const src = laneSource(job, i) + (<usize>start << 2);
      const dst = work + (i << 6);
      if (n - start >= 8) {
        v128.store(dst, vShoupMul(v128.load(src), b, bs), 0);
        v128.store(dst, vShoupMul(v128.load(src, 16), b, bs), 16);
      } else {
        for (let j: usize = 0; j < <usize>(n - start); j++) store<u32>(dst + (j << 2), toMontS(load<u32>(src + (j << 2))));
      }
    }
    permuteMont2(work, work + 64, consts);
    for (let i: usize = 0; i < 2; i++) {
      const n = laneCount(job, i);
      if (n == 0 || ((n + 7) >> 3) != t + 1) continue;
      for (let k: usize = 0; k < 16; k++) {
        store<u32>(job + JOB_STATES + (i << 6) + (k << 2), fromMontS(load<u32>(work + (i << 6) + (k << 2))));
      }
    }
  }
}

/**
 * Four independent overwrite sponges in the four SIMD lanes; same job semantics as
 * `poseidon2_sponge_x2` with four lanes. The working state is transposed: element k of lane i at
 * job word 72 + 4k + i.
 */
export function poseidon2_sponge_x4(job: usize, begin: u32, consts: usize): void {
  const work = job + JOB_WORK;
  for (let i: usize = 0; i < 4; i++) {
    if ((begin >> <u32>i) & 1) {
      for (let k: usize = 0; k < 16; k++) {
        store<u32>(work + (k << 4) + (i << 2), toMontS(load<u32>(job + JOB_STATES + (i << 6) + (k << 2))));
      }
    }
  }
  const steps = jobSteps(job, 4);
  for (let t: u32 = 0; t < steps; t++) {
    for (let i: usize = 0; i < 4; i++) {
      const n = laneCount(job, i);
      const start = t << 3;
      if (start >= n) continue;
      const left = n - start;
      const r = left < 8 ? left : 8;
      const src = laneSource(job, i) + (<usize>start << 2);
      for (let j: usize = 0; j < <usize>r; j++) store<u32>(work + (j << 4) + (i << 2), toMontS(load<u32>(src + (j << 2))));
    }
    permuteMont4(work, consts);
    for (let i: usize = 0; i < 4; i++) {
      const n = laneCount(job, i);
      if (n == 0 || ((n + 7) >> 3) != t + 1) continue;
      for (let k: usize = 0; k < 16; k++) {
        store<u32>(job + JOB_STATES + (i << 6) + (k << 2), fromMontS(load<u32>(work + (k << 4) + (i << 2))));
      }
    }
  }
}

/**
 * dst[k·i + j] = src_j[i] for i < n, j < k: interleaves k word arrays whose byte pointers are the
 * k words at `table` (1 ≤ k ≤ 8).
 */
export function interleave_words(dst: usize, table: usize, k: u32, n: u32): void {
  for (let j: u32 = 0; j < k; j++) {
    const src = <usize>load<u32>(table + (<usize>j << 2));
    let d = dst + (<usize>j << 2);
    const stride = <usize>k << 2;
    for (let i: u32 = 0; i < n; i++) {
      store<u32>(d, load<u32>(src + (<usize>i << 2)));
      d += stride;
    }
  }
}

