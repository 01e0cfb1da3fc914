// Poseidon2 width 16 over KoalaBear (compat-v1 §3): S-box x³, one external linear layer M_E, then 4
// external rounds, 20 internal rounds, 4 external rounds. Four permutations run side by side, one
// per SIMD lane; the state lives in sixteen v128 locals in Montgomery form.
//
// Constants region (u32 words in Montgomery form, written once by the host):
//   [0, 64)     RC_init[r][i] at 16r + i
//   [64, 84)    RC_int[j]     at 64 + j
//   [84, 148)   RC_term[r][i] at 84 + 16r + i
// The internal diagonal V is applied with shifts and additions (its entries are ±2^k, ±3, ±1/2^k).
import {
  R_INV, R_INV_SHOUP, R_MOD_P, R_MOD_P_SHOUP,
  vAdd, vDouble, vMontMul, vShoupMul, vSub, vTriple,
} from "./field";

const RC_INIT_BYTES: usize = 0;
const RC_INT_BYTES: usize = 64 * 4;
const RC_TERM_BYTES: usize = 84 * 4;
/** Number of u32 words the constants region must hold. */
const CONSTANT_WORDS: u32 = 148;

/** Words of the Poseidon2 constants region this module expects. */
export function poseidon2_constant_words(): u32 {
  return CONSTANT_WORDS;
}

// (x + c)³ with c loaded from the constants region and splat to the four lanes.
// @ts-ignore: decorator
@inline function sbox(x: v128, c: usize): v128 {
  const t = vAdd(x, v128.load32_splat(c));
  return vMontMul(vMontMul(t, t), t);
}

// x·2^−k mod p for lanes x < p and 1 ≤ k ≤ 24. With x = 2^k·h + l (l < 2^k) and
// 2^−k ≡ −127·2^(24−k) (because 127·2^24 = p − 1): x·2^−k ≡ h − l·127·2^(24−k), and
// l·127·2^(24−k) < p.
// @ts-ignore: decorator
@inline function halve(x: v128, k: i32): v128 {
  const h = i32x4.shr_u(x, k);
  const l = v128.and(x, i32x4.splat((1 << k) - 1));
  return vSub(h, i32x4.mul(l, i32x4.splat(127 << (24 - k))));
}

// −x·2^−k mod p (same decomposition, subtraction reversed).
// @ts-ignore: decorator
@inline function negHalve(x: v128, k: i32): v128 {
  const h = i32x4.shr_u(x, k);
  const l = v128.and(x, i32x4.splat((1 << k) - 1));
  return vSub(i32x4.mul(l, i32x4.splat(127 << (24 - k))), h);
}

/**
 * Applies the permutation to n states stored one after another (16 canonical u32 each, state i at
 * byte offset states + 64·i), in place. Inputs are reduced mod p on entry; outputs are canonical.
 * consts points at the constants region described above.
 */
export function poseidon2_permute(states: usize, n: u32, consts: usize): void {
  for (let i: u32 = 0; i < n; i += 4) {
    const left = n - i;
    permute4(states + (<usize>i << 6), left < 4 ? left : 4, consts);
  }
}

// Permutes `count` (1..4) consecutive states at ptr; lanes without a state compute on zeros and
// are not stored.
function permute4(ptr: usize, count: u32, consts: usize): void {
  const zero = i32x4.splat(0);
  const toR = i32x4.splat(R_MOD_P), toRs = i32x4.splat(R_MOD_P_SHOUP);

  // Load four states and transpose each 4×4 block so that vector i holds element i of every state.
  let s0 = zero, s1 = zero, s2 = zero, s3 = zero, s4 = zero, s5 = zero, s6 = zero, s7 = zero;
  let s8 = zero, s9 = zero, s10 = zero, s11 = zero, s12 = zero, s13 = zero, s14 = zero, s15 = zero;
  {
    const a0 = v128.load(ptr, 0), a1 = v128.load(ptr, 16), a2 = v128.load(ptr, 32), a3 = v128.load(ptr, 48);
    let b0 = zero, b1 = zero, b2 = zero, b3 = zero;
    let c0 = zero, c1 = zero, c2 = zero, c3 = zero;
    let d0 = zero, d1 = zero, d2 = zero, d3 = zero;
    if (count > 1) { b0 = v128.load(ptr, 64); b1 = v128.load(ptr, 80); b2 = v128.load(ptr, 96); b3 = v128.load(ptr, 112); }
    if (count > 2) { c0 = v128.load(ptr, 128); c1 = v128.load(ptr, 144); c2 = v128.load(ptr, 160); c3 = v128.load(ptr, 176); }
    if (count > 3) { d0 = v128.load(ptr, 192); d1 = v128.load(ptr, 208); d2 = v128.load(ptr, 224); d3 = v128.load(ptr, 240); }
    let x = i32x4.shuffle(a0, b0, 0, 4, 1, 5), y = i32x4.shuffle(c0, d0, 0, 4, 1, 5);
    s0 = i64x2.shuffle(x, y, 0, 2); s1 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a0, b0, 2, 6, 3, 7); y = i32x4.shuffle(c0, d0, 2, 6, 3, 7);
    s2 = i64x2.shuffle(x, y, 0, 2); s3 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a1, b1, 0, 4, 1, 5); y = i32x4.shuffle(c1, d1, 0, 4, 1, 5);
    s4 = i64x2.shuffle(x, y, 0, 2); s5 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a1, b1, 2, 6, 3, 7); y = i32x4.shuffle(c1, d1, 2, 6, 3, 7);
    s6 = i64x2.shuffle(x, y, 0, 2); s7 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a2, b2, 0, 4, 1, 5); y = i32x4.shuffle(c2, d2, 0, 4, 1, 5);
    s8 = i64x2.shuffle(x, y, 0, 2); s9 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a2, b2, 2, 6, 3, 7); y = i32x4.shuffle(c2, d2, 2, 6, 3, 7);
    s10 = i64x2.shuffle(x, y, 0, 2); s11 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a3, b3, 0, 4, 1, 5); y = i32x4.shuffle(c3, d3, 0, 4, 1, 5);
    s12 = i64x2.shuffle(x, y, 0, 2); s13 = i64x2.shuffle(x, y, 1, 3);
    x = i32x4.shuffle(a3, b3, 2, 6, 3, 7); y = i32x4.shuffle(c3, d3, 2, 6, 3, 7);
    s14 = i64x2.shuffle(x, y, 0, 2); s15 = i64x2.shuffle(x, y, 1, 3);
  }
  s0 = vShoupMul(s0, toR, toRs); s1 = vShoupMul(s1, toR, toRs); s2 = vShoupMul(s2, toR, toRs); s3 = vShoupMul(s3, toR, toRs);
  s4 = vShoupMul(s4, toR, toRs); s5 = vShoupMul(s5, toR, toRs); s6 = vShoupMul(s6, toR, toRs); s7 = vShoupMul(s7, toR, toRs);
  s8 = vShoupMul(s8, toR, toRs); s9 = vShoupMul(s9, toR, toRs); s10 = vShoupMul(s10, toR, toRs); s11 = vShoupMul(s11, toR, toRs);
  s12 = vShoupMul(s12, toR, toRs); s13 = vShoupMul(s13, toR, toRs); s14 = vShoupMul(s14, toR, toRs); s15 = vShoupMul(s15, toR, toRs);

  // Step r = 0 is the leading M_E; steps 1..4 are initial external rounds, 5..8 terminal ones;
  // the 20 internal rounds run after step 4.
  for (let r: u32 = 0; r < 9; r++) {
    if (r > 0) {
      const c = r <= 4 ? consts + RC_INIT_BYTES + (<usize>(r - 1) << 6) : consts + RC_TERM_BYTES + (<usize>(r - 5) << 6);
      s0 = sbox(s0, c); s1 = sbox(s1, c + 4); s2 = sbox(s2, c + 8); s3 = sbox(s3, c + 12);
      s4 = sbox(s4, c + 16); s5 = sbox(s5, c + 20); s6 = sbox(s6, c + 24); s7 = sbox(s7, c + 28);
      s8 = sbox(s8, c + 32); s9 = sbox(s9, c + 36); s10 = sbox(s10, c + 40); s11 = sbox(s11, c + 44);
      s12 = sbox(s12, c + 48); s13 = sbox(s13, c + 52); s14 = sbox(s14, c + 56); s15 = sbox(s15, c + 60);
    }

    // M_E: M4 = circ(2, 3, 1, 1) on each chunk of four lanes. With t = x0 + x1 + x2 + x3:
    // y0 = t + x0 + 2x1, y1 = t + x1 + 2x2, y2 = t + x2 + 2x3, y3 = t + x3 + 2x0.
    {
      const p01 = vAdd(s0, s1), p23 = vAdd(s2, s3), t = vAdd(p01, p23);
      const y0 = vAdd(t, vAdd(p01, s1)), y1 = vAdd(t, vAdd(vAdd(s1, s2), s2));
      const y2 = vAdd(t, vAdd(p23, s3)), y3 = vAdd(t, vAdd(vAdd(s3, s0), s0));
      s0 = y0; s1 = y1; s2 = y2; s3 = y3;
    }
    {
      const p01 = vAdd(s4, s5), p23 = vAdd(s6, s7), t = vAdd(p01, p23);
      const y0 = vAdd(t, vAdd(p01, s5)), y1 = vAdd(t, vAdd(vAdd(s5, s6), s6));
      const y2 = vAdd(t, vAdd(p23, s7)), y3 = vAdd(t, vAdd(vAdd(s7, s4), s4));
      s4 = y0; s5 = y1; s6 = y2; s7 = y3;
    }
    {
      const p01 = vAdd(s8, s9), p23 = vAdd(s10, s11), t = vAdd(p01, p23);
      const y0 = vAdd(t, vAdd(p01, s9)), y1 = vAdd(t, vAdd(vAdd(s9, s10), s10));
      const y2 = vAdd(t, vAdd(p23, s11)), y3 = vAdd(t, vAdd(vAdd(s11, s8), s8));
      s8 = y0; s9 = y1; s10 = y2; s11 = y3;
    }
    {
      const p01 = vAdd(s12, s13), p23 = vAdd(s14, s15), t = vAdd(p01, p23);
      const y0 = vAdd(t, vAdd(p01, s13)), y1 = vAdd(t, vAdd(vAdd(s13, s14), s14));
      const y2 = vAdd(t, vAdd(p23, s15)), y3 = vAdd(t, vAdd(vAdd(s15, s12), s12));
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
      // Internal rounds: s0 ← (s0 + RC_int[j])³, then s'[i] = V[i]·s[i] + Σ s with
      // V = [−2, 1, 2, 1/2, 3, 4, −1/2, −3, −4, 1/2^8, 1/8, 1/2^24, −1/2^8, −1/8, −1/16, −1/2^24].
      for (let j: usize = 0; j < 20; j++) {
        s0 = sbox(s0, consts + RC_INT_BYTES + (j << 2));
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

  const fromR = i32x4.splat(R_INV), fromRs = i32x4.splat(R_INV_SHOUP);
  s0 = vShoupMul(s0, fromR, fromRs); s1 = vShoupMul(s1, fromR, fromRs); s2 = vShoupMul(s2, fromR, fromRs); s3 = vShoupMul(s3, fromR, fromRs);
  s4 = vShoupMul(s4, fromR, fromRs); s5 = vShoupMul(s5, fromR, fromRs); s6 = vShoupMul(s6, fromR, fromRs); s7 = vShoupMul(s7, fromR, fromRs);
  s8 = vShoupMul(s8, fromR, fromRs); s9 = vShoupMul(s9, fromR, fromRs); s10 = vShoupMul(s10, fromR, fromRs); s11 = vShoupMul(s11, fromR, fromRs);
  s12 = vShoupMul(s12, fromR, fromRs); s13 = vShoupMul(s13, fromR, fromRs); s14 = vShoupMul(s14, fromR, fromRs); s15 = vShoupMul(s15, fromR, fromRs);

  // Transpose back (the 4×4 transpose is its own inverse) and store the states that exist.
  let x = i32x4.shuffle(s0, s1, 0, 4, 1, 5), y = i32x4.shuffle(s2, s3, 0, 4, 1, 5);
  const a0 = i64x2.shuffle(x, y, 0, 2), b0 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s0, s1, 2, 6, 3, 7); y = i32x4.shuffle(s2, s3, 2, 6, 3, 7);
  const c0 = i64x2.shuffle(x, y, 0, 2), d0 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s4, s5, 0, 4, 1, 5); y = i32x4.shuffle(s6, s7, 0, 4, 1, 5);
  const a1 = i64x2.shuffle(x, y, 0, 2), b1 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s4, s5, 2, 6, 3, 7); y = i32x4.shuffle(s6, s7, 2, 6, 3, 7);
  const c1 = i64x2.shuffle(x, y, 0, 2), d1 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s8, s9, 0, 4, 1, 5); y = i32x4.shuffle(s10, s11, 0, 4, 1, 5);
  const a2 = i64x2.shuffle(x, y, 0, 2), b2 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s8, s9, 2, 6, 3, 7); y = i32x4.shuffle(s10, s11, 2, 6, 3, 7);
  const c2 = i64x2.shuffle(x, y, 0, 2), d2 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s12, s13, 0, 4, 1, 5); y = i32x4.shuffle(s14, s15, 0, 4, 1, 5);
  const a3 = i64x2.shuffle(x, y, 0, 2), b3 = i64x2.shuffle(x, y, 1, 3);
  x = i32x4.shuffle(s12, s13, 2, 6, 3, 7); y = i32x4.shuffle(s14, s15, 2, 6, 3, 7);
  const c3 = i64x2.shuffle(x, y, 0, 2), d3 = i64x2.shuffle(x, y, 1, 3);
  v128.store(ptr, a0, 0); v128.store(ptr, a1, 16); v128.store(ptr, a2, 32); v128.store(ptr, a3, 48);
  if (count > 1) { v128.store(ptr, b0, 64); v128.store(ptr, b1, 80); v128.store(ptr, b2, 96); v128.store(ptr, b3, 112); }
  if (count > 2) { v128.store(ptr, c0, 128); v128.store(ptr, c1, 144); v128.store(ptr, c2, 160); v128.store(ptr, c3, 176); }
  if (count > 3) { v128.store(ptr, d0, 192); v128.store(ptr, d1, 208); v128.store(ptr, d2, 224); v128.store(ptr, d3, 240); }
}
