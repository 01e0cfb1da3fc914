// Booking of the structured linear groups of profile v2 (docs/profile-v2.md §4.2) into the tables
// of the GKR layer oracle (gkr-layer.ts), driven by src/gkr/structured/oracle-wasm.ts.
// TypeScript reference: `LinearGroupsExtension` (src/gkr/structured/oracle.ts).
//
// For a block with output base o, input base i and map M, the phase-1 tables gain
// t = Mᵀ·w_o at i + x (the lin table A, or the Pow3 table Pw when lane x is cubed), w the claim
// weights. The weights are interleaved extension elements (one v128 = four coordinates, Montgomery
// form) and M has base-field entries, so Mᵀ acts on all four coordinates of a lane at once.
// Linear maps with integer coefficients commute with the Montgomery form; the internal
// diagonal is multiplied in Montgomery form (diag holds its 16 entries as d·R mod p).
//
// Group descriptor (u32 words at desc, GROUP_DESC_WORDS per group): map id (0 identity,
// 1 Poseidon2 external, 2 Poseidon2 internal), lane bits, cube mask, block count nb, and the
// byte offsets FROM desc of the input bases (nb words), the output bases (nb words) and the
// block cache (nb·lanes interleaved elements: t of every block, kept for phase 2).
import { addS, vAdd, vMontMul } from "./field";
import { extMulAoS } from "./gkr-ext";
import { fromMontV, zeroWords } from "./gkr-tables";

/** Words of one group record of the descriptor. */
const GROUP_DESC_WORDS: u32 = 8;

/** Flags of `gkr_group_fill`. */
const FILL_PW_ZERO: u32 = 1; // Pw holds no gate terms yet: zero its planes first
const FILL_CACHE: u32 = 2; // keep t of every block in the cache for `gkr_group_phase2`

/** t ← Mᵀ·w for the 2^laneBits interleaved elements at scratch (in place). */
// @ts-ignore: decorator
@inline function transposeInPlace(map: u32, lanes: u32, scratch: usize, diag: usize): void {
  if (map == 1) {
    // Mᵀ = (I4 + J4) ⊗ M4ᵀ: u = w + the column sums broadcast, then M4ᵀ per chunk,
    // (M4ᵀ·u)_x = Σu + (u0 + 2u3, 2u0 + u1, 2u1 + u2, 2u2 + u3)_x.
    for (let k: usize = 0; k < 4; k++) {
      const a = scratch + (k << 4);
      const w0 = v128.load(a), w1 = v128.load(a, 64), w2 = v128.load(a, 128), w3 = v128.load(a, 192);
      const s = vAdd(vAdd(w0, w1), vAdd(w2, w3));
      v128.store(a, vAdd(w0, s));
      v128.store(a, vAdd(w1, s), 64);
      v128.store(a, vAdd(w2, s), 128);
      v128.store(a, vAdd(w3, s), 192);
    }
    for (let c: usize = 0; c < 4; c++) {
      const a = scratch + (c << 6);
      const u0 = v128.load(a), u1 = v128.load(a, 16), u2 = v128.load(a, 32), u3 = v128.load(a, 48);
      const s = vAdd(vAdd(u0, u1), vAdd(u2, u3));
      v128.store(a, vAdd(s, vAdd(u0, vAdd(u3, u3))));
      v128.store(a, vAdd(s, vAdd(vAdd(u0, u0), u1)), 16);
      v128.store(a, vAdd(s, vAdd(vAdd(u1, u1), u2)), 32);
      v128.store(a, vAdd(s, vAdd(vAdd(u2, u2), u3)), 48);
    }
  } else if (map == 2) {
    // Mᵀ = M = J + diag(V): t_x = Σw + V_x·w_x.
    let s = i32x4.splat(0);
    for (let x: usize = 0; x < 16; x++) s = vAdd(s, v128.load(scratch + (x << 4)));
    for (let x: usize = 0; x < 16; x++) {
      const a = scratch + (x << 4);
      v128.store(a, vAdd(s, vMontMul(v128.load(a), i32x4.splat(load<u32>(diag + (x << 2))))));
    }
  }
  // map 0 (identity): t = w.
}

/** Adds the interleaved element v to entry e of the plane table T (4 planes of n words). */
// @ts-ignore: decorator
@inline function addToPlanes(T: usize, n: u32, e: u32, v: v128): void {
  const pb = <usize>n << 2;
  const a = T + (<usize>e << 2);
  store<u32>(a, addS(load<u32>(a), i32x4.extract_lane(v, 0)));
  store<u32>(a + pb, addS(load<u32>(a + pb), i32x4.extract_lane(v, 1)));
  store<u32>(a + 2 * pb, addS(load<u32>(a + 2 * pb), i32x4.extract_lane(v, 2)));
  store<u32>(a + 3 * pb, addS(load<u32>(a + 3 * pb), i32x4.extract_lane(v, 3)));
}

/**
 * Phase-1 booking of `ngroups` groups: for every block b and lane x, t = (Mᵀ·w_{o_b})[x] is added
 * to A (or to Pw for a cubed lane) at i_b + x. W: interleaved weights (nOut elements), A and Pw:
 * plane tables of n elements, all Montgomery; scratch: 16 interleaved elements (256 bytes).
 */
export function gkr_group_fill(desc: usize, ngroups: u32, W: usize, A: usize, Pw: usize, n: u32, diag: usize, scratch: usize, flags: u32): void {
  if ((flags & FILL_PW_ZERO) != 0) zeroWords(Pw, n << 2);
  const keep = (flags & FILL_CACHE) != 0;
  for (let g: u32 = 0; g < ngroups; g++) {
    const rec = desc + ((<usize>g * GROUP_DESC_WORDS) << 2);
    const map = load<u32>(rec), laneBits = load<u32>(rec, 4), cube = load<u32>(rec, 8), nb = load<u32>(rec, 12);
    const inBase = desc + <usize>load<u32>(rec, 16), outBase = desc + <usize>load<u32>(rec, 20);
    let cache = desc + <usize>load<u32>(rec, 24);
    const lanes: u32 = 1 << laneBits;
    for (let b: u32 = 0; b < nb; b++) {
      const ib = load<u32>(inBase + (<usize>b << 2));
      const wo = W + (<usize>load<u32>(outBase + (<usize>b << 2)) << 4);
      for (let z: usize = 0; z < <usize>lanes; z++) v128.store(scratch + (z << 4), v128.load(wo + (z << 4)));
      transposeInPlace(map, lanes, scratch, diag);
      for (let x: u32 = 0; x < lanes; x++) {
        const t = v128.load(scratch + (<usize>x << 4));
        if (keep) v128.store(cache + (<usize>x << 4), t);
        addToPlanes(((cube >>> x) & 1) != 0 ? Pw : A, n, ib + x, t);
      }
      cache += <usize>lanes << 4;
    }
  }
}

/**
 * Phase-2 terms of the groups (after `gkr_group_fill` with the cache): with eqx = eq(x*, ·)
 * (interleaved, Montgomery), Σ t·eqx[i_b + x] over the linear lanes at out (4 words) and over the
 * cubed lanes at out + 16, canonical.
 */
export function gkr_group_phase2(desc: usize, ngroups: u32, eqx: usize, out: usize): void {
  let lin = i32x4.splat(0), pw = lin;
  for (let g: u32 = 0; g < ngroups; g++) {
    const rec = desc + ((<usize>g * GROUP_DESC_WORDS) << 2);
    const laneBits = load<u32>(rec, 4), cube = load<u32>(rec, 8), nb = load<u32>(rec, 12);
    const inBase = desc + <usize>load<u32>(rec, 16);
    let cache = desc + <usize>load<u32>(rec, 24);
    const lanes: u32 = 1 << laneBits;
    for (let b: u32 = 0; b < nb; b++) {
      const ib = load<u32>(inBase + (<usize>b << 2));
      for (let x: u32 = 0; x < lanes; x++) {
        const term = extMulAoS(v128.load(cache + (<usize>x << 4)), v128.load(eqx + (<usize>(ib + x) << 4)));
        if (((cube >>> x) & 1) != 0) pw = vAdd(pw, term);
        else lin = vAdd(lin, term);
      }
      cache += <usize>lanes << 4;
    }
  }
  v128.store(out, fromMontV(lin));
  v128.store(out, fromMontV(pw), 16);
}
