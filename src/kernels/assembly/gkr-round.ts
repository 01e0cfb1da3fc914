// One sumcheck round of the GKR layer oracle (compat-v1 §10.4 recommended two-phase oracle):
// `gkr_round` binds the previous challenge and evaluates the next round in one pass over the
// tables (gkr-round-variants.ts), then writes the round message. Flags, the output region and
// its offsets are in ../abi (ROUND_*, OUT_WORDS, OUT_RESULT, OUT_CLAIM).
import { OUT_CLAIM, OUT_RESULT, OUT_WORDS, ROUND_CLAIM, ROUND_FOLD, ROUND_NOA, ROUND_POW, ROUND_RAW, ROUND_VBASE } from "../abi";
import { P, addS, fromMontS, montReduceWideS, subS, toMontS, vTriple } from "./field";
import { fold_base_ext, fold_ext } from "./fold";
import { fromMontV, zeroWords } from "./gkr-tables";
import { evalVariant, foldEvalVariant } from "./gkr-round-variants";

const F_FOLD: u32 = ROUND_FOLD;
const F_POW: u32 = ROUND_POW;
const F_VBASE: u32 = ROUND_VBASE;
const F_RAW: u32 = ROUND_RAW;
const F_CLAIM: u32 = ROUND_CLAIM;
const F_NOA: u32 = ROUND_NOA;

/** Byte offset of the results in the output region. */
const OUT_RES: usize = <usize>OUT_RESULT << 2;
/** Byte offset (from the results) of the claim g_prev(r) written by `previousAt`. */
const OUT_CLAIM_BYTES: usize = <usize>OUT_CLAIM << 2;

/** 1/2, 1/12 and 1/24 mod p. */
const INV2: u64 = 1065353217;
const INV12: u64 = 1242912086;
const INV24: u64 = 621456043;

/** Words of the output region the kernels of this file expect. */
export function gkr_out_words(): u32 {
  return OUT_WORDS;
}


/**
 * g_prev(r) from the previous coefficients a_0..a_m at the result words (canonical) by Horner's
 * rule, written canonical at results + OUT_CLAIM_BYTES. r·c uses r in Montgomery form, so the products
 * of canonical c stay canonical.
 */
export function previousAt(out: usize, pow: bool, r0: u32, r1: u32, r2: u32, r3: u32): void {
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
  store<u32>(res + OUT_CLAIM_BYTES, <u32>c0);
  store<u32>(res + OUT_CLAIM_BYTES, <u32>c1, 4);
  store<u32>(res + OUT_CLAIM_BYTES, <u32>c2, 8);
  store<u32>(res + OUT_CLAIM_BYTES, <u32>c3, 12);
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
export function finishRound(out: usize, pow: bool, raw: bool, claim: bool): void {
  const res = out + OUT_RES;
  const p = <u64>P;
  for (let k: u32 = 0; k < 4; k++) {
    const g0 = accValue(out, 0, k), g2 = accValue(out, 2, k);
    const g1 = claim ? <u64>subS(load<u32>(res + OUT_CLAIM_BYTES + (<usize>k << 2)), <u32>g0) : accValue(out, 1, k);
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
 * - With F_NOA and F_POW: A is zero and is never read or written (its pointer is unused, the bound
 *   A(r) written as zero); the round is Σ Pw·V³, with the same words as over a zero A table.
 *   Ignored without F_POW.
 * - With F_FOLD and F_CLAIM: node 1 is not evaluated, g(1) = g_prev(r) − g(0) (the sum over the
 *   new tables). Without F_RAW g_prev(r) comes from the previous coefficients in the result words
 *   (`previousAt`); with F_RAW the caller writes it (canonical) at result word OUT_CLAIM first.
 * Results start at word OUT_RESULT of `out` (see `finishRound`).
 */
export function gkr_round(A: usize, Pw: usize, Vx: usize, Vb: usize, len: u32, r0: u32, r1: u32, r2: u32, r3: u32, flags: u32, out: usize): void {
  const pow = (flags & F_POW) != 0, vbase = (flags & F_VBASE) != 0, raw = (flags & F_RAW) != 0;
  const noa = pow && (flags & F_NOA) != 0;
  if ((flags & F_FOLD) != 0 && len == 2) {
    if (!noa) fold_ext(A, A, 1, r0, r1, r2, r3);
    if (pow) fold_ext(Pw, Pw, 1, r0, r1, r2, r3);
    if (vbase) fold_base_ext(Vx, Vb, 1, r0, r1, r2, r3);
    else fold_ext(Vx, Vx, 1, r0, r1, r2, r3);
    const res = out + OUT_RES;
    v128.store(res, noa ? i32x4.splat(0) : fromMontV(v128.load(A)));
    v128.store(res, pow ? fromMontV(v128.load(Pw)) : i32x4.splat(0), 16);
    v128.store(res, fromMontV(v128.load(Vx)), 32);
    return;
  }
  const claim = (flags & F_FOLD) != 0 && (flags & F_CLAIM) != 0;
  if (claim && !raw) previousAt(out, pow, r0, r1, r2, r3);
  zeroWords(out, OUT_RESULT);
  if ((flags & F_FOLD) != 0) {
    const m0 = toMontS(r0), m1 = toMontS(r1), m2 = toMontS(r2), m3 = toMontS(r3);
    const q0 = i32x4.splat(m0), q1 = i32x4.splat(m1), q2 = i32x4.splat(m2), q3 = i32x4.splat(m3);
    const u1 = vTriple(q1), u2 = vTriple(q2), u3 = vTriple(q3);
    foldEvalVariant(pow, vbase, claim, noa, A, Pw, Vx, Vb, len, q0, q1, q2, q3, u1, u2, u3, out);
  } else {
    evalVariant(pow, vbase, noa, A, Pw, Vx, Vb, len, out);
  }
  finishRound(out, pow, raw, claim);
}
