// A phase-1 sumcheck round of the GKR layer oracle for layers whose Pow3 table is zero except at
// the inputs ≡ 0 mod 16 (lane 0 of 16-lane blocks: the internal Poseidon2 rounds of the profile v2
// circuits, docs/profile-v2.md §5.3, §6), driven by src/gkr/structured/booking-wasm.ts. Same
// round message as `gkr_round` (gkr-round.ts) with ROUND_FOLD | ROUND_CLAIM | ROUND_POW, which
// the differential tests compare it with (test/gkr/structured-booking.test.ts).
//
// The round polynomial is g(T) = L(T) + Q(T) with L(T) = Σ_i V_T·A_T (degree 2, over every pair)
// and Q(T) = Σ_{i ≡ 0 mod 16} Pw_T·V_T³ (degree 4, over the lane-0 pairs only). L is evaluated
// at T = 0 and 2, Q at T = 0..4; g(1) = g_prev(r) − g(0) gives L(1) = g(1) − Q(1), and the
// quadratic L extends to L(3) = L(0) − 3L(1) + 3L(2), L(4) = 3L(0) − 8L(1) + 6L(2).
//
// Folding MSB first keeps the lane-0 support while the half length is a multiple of 16
// (new[i] = t[i] + r·(t[i + h] − t[i]) pairs i ≡ 0 with i + h ≡ 0 mod 16), and the plane
// compaction of an in-place fold moves zeros onto zeros, so Pw is folded at the lane-0 entries
// only. Valid for len ≥ 64 (the new table has at least 32 entries).
import { OUT_CLAIM, OUT_RESULT } from "../abi";
import { P, montReduceWideS, toMontS, vAdd, vSub, vTriple } from "./field";
import { extMulAoS } from "./gkr-ext";
import { foldEvalBlock } from "./gkr-round-blocks";
import { finishRound, previousAt } from "./gkr-round";
import { zeroWords } from "./gkr-tables";

const OUT_RES: usize = <usize>OUT_RESULT << 2;

/** The element i of a plane table (plane bytes pb) as one interleaved v128. */
// @ts-ignore: decorator
@inline function gather(T: usize, pb: usize, i: u32): v128 {
  const a = T + (<usize>i << 2);
  let v = i32x4.splat(load<u32>(a));
  v = i32x4.replace_lane(v, 1, load<u32>(a + pb));
  v = i32x4.replace_lane(v, 2, load<u32>(a + 2 * pb));
  return i32x4.replace_lane(v, 3, load<u32>(a + 3 * pb));
}

/** Lane-sum of accumulator (node t, coefficient k), Montgomery form. */
// @ts-ignore: decorator
@inline function accSum(out: usize, t: u32, k: u32): u32 {
  const v = v128.load(out + (<usize>t << 6) + (<usize>k << 4));
  const s = (<u64>i32x4.extract_lane(v, 0) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 1) & 0xffffffff)
    + (<u64>i32x4.extract_lane(v, 2) & 0xffffffff) + (<u64>i32x4.extract_lane(v, 3) & 0xffffffff);
  return <u32>(s % <u64>P);
}

/** Writes the Montgomery value x as accumulator (node t, coefficient k) (lane 0, others zero). */
// @ts-ignore: decorator
@inline function setAcc(out: usize, t: u32, k: u32, x: u64): void {
  v128.store(out + (<usize>t << 6) + (<usize>k << 4), i32x4.replace_lane(i32x4.splat(0), 0, <u32>(x % <u64>P)));
}

/**
 * Binds r (canonical r0..r3) into A, V (Vb → Vx when vbase ≠ 0) and the lane-0 entries of Pw
 * (plane tables of length len ≥ 64), then writes the next round's coefficients a_0..a_4 at the
 * result words of `out`, exactly as `gkr_round` with ROUND_FOLD | ROUND_CLAIM | ROUND_POW.
 */
export function gkr_round_lane0(A: usize, Pw: usize, Vx: usize, Vb: usize, len: u32, r0: u32, r1: u32, r2: u32, r3: u32, vbase: u32, out: usize): void {
  previousAt(out, true, r0, r1, r2, r3);
  zeroWords(out, OUT_RESULT);
  const m0 = toMontS(r0), m1 = toMontS(r1), m2 = toMontS(r2), m3 = toMontS(r3);
  const q0 = i32x4.splat(m0), q1 = i32x4.splat(m1), q2 = i32x4.splat(m2), q3 = i32x4.splat(m3);
  const u1 = vTriple(q1), u2 = vTriple(q2), u3 = vTriple(q3);
  // A and V folded and L(0), L(2) accumulated (nodes 0 and 2) in one pass, as gkr_round's
  // degree-2 variants do.
  const Q = len >> 2;
  const lb = <usize>len << 2, qb = <usize>Q << 2;
  if (vbase != 0) {
    for (let i: u32 = 0; i < Q; i += 4) foldEvalBlock(true, false, true, true, false, A, Pw, Vx, Vb, lb, <usize>i << 2, qb, q0, q1, q2, q3, u1, u2, u3, out);
  } else {
    for (let i: u32 = 0; i < Q; i += 4) foldEvalBlock(true, false, false, true, false, A, Pw, Vx, Vb, lb, <usize>i << 2, qb, q0, q1, q2, q3, u1, u2, u3, out);
  }
  // Pw at the lane-0 entries: new[i] = t[i] + r·(t[i + n2] − t[i]), plane stride len → n2.
  const n2 = len >> 1;
  const opb = <usize>len << 2, npb = <usize>n2 << 2;
  const um1 = <u64>m1, um2 = <u64>m2, um3 = <u64>m3, um0 = <u64>m0;
  const t1 = <u64>i32x4.extract_lane(u1, 0), t2 = <u64>i32x4.extract_lane(u2, 0), t3 = <u64>i32x4.extract_lane(u3, 0);
  for (let i: u32 = 0; i < n2; i += 16) {
    const lo = gather(Pw, opb, i);
    const d = vSub(gather(Pw, opb, i + n2), lo);
    const d0 = <u64>i32x4.extract_lane(d, 0), d1 = <u64>i32x4.extract_lane(d, 1), d2 = <u64>i32x4.extract_lane(d, 2), d3 = <u64>i32x4.extract_lane(d, 3);
    let v = i32x4.replace_lane(i32x4.splat(montReduceWideS(d0 * um0 + d1 * t3 + d2 * t2 + d3 * t1)), 1, montReduceWideS(d0 * um1 + d1 * um0 + d2 * t3 + d3 * t2));
    v = i32x4.replace_lane(v, 2, montReduceWideS(d0 * um2 + d1 * um1 + d2 * um0 + d3 * t3));
    v = vAdd(lo, i32x4.replace_lane(v, 3, montReduceWideS(d0 * um3 + d1 * um2 + d2 * um1 + d3 * um0)));
    const a = Pw + (<usize>i << 2);
    store<u32>(a, i32x4.extract_lane(v, 0));
    store<u32>(a + npb, i32x4.extract_lane(v, 1));
    store<u32>(a + 2 * npb, i32x4.extract_lane(v, 2));
    store<u32>(a + 3 * npb, i32x4.extract_lane(v, 3));
  }
  // Q(T), T = 0..4, over the lane-0 pairs (i, i + h2) of the new tables (interleaved sums).
  const h2 = n2 >> 1;
  let Q0 = i32x4.splat(0), Q1 = Q0, Q2 = Q0, Q3 = Q0, Q4 = Q0;
  for (let i: u32 = 0; i < h2; i += 16) {
    let p = gather(Pw, npb, i), x = gather(Vx, npb, i);
    const dp = vSub(gather(Pw, npb, i + h2), p), dx = vSub(gather(Vx, npb, i + h2), x);
    for (let t: u32 = 0; t < 5; t++) {
      const q = extMulAoS(extMulAoS(p, extMulAoS(x, x)), x);
      if (t == 0) Q0 = vAdd(Q0, q);
      else if (t == 1) Q1 = vAdd(Q1, q);
      else if (t == 2) Q2 = vAdd(Q2, q);
      else if (t == 3) Q3 = vAdd(Q3, q);
      else Q4 = vAdd(Q4, q);
      p = vAdd(p, dp);
      x = vAdd(x, dx);
    }
  }
  // g(T) = L(T) + Q(T) into the accumulators, then gkr_round's interpolation.
  const claim = out + OUT_RES + (<usize>OUT_CLAIM << 2);
  const pp = <u64>P;
  for (let k: u32 = 0; k < 4; k++) {
    const l0 = <u64>accSum(out, 0, k), l2 = <u64>accSum(out, 2, k);
    const qa0 = <u64>i32x4.extract_lane(Q0, 0), qa1 = <u64>i32x4.extract_lane(Q1, 0), qa2 = <u64>i32x4.extract_lane(Q2, 0), qa3 = <u64>i32x4.extract_lane(Q3, 0), qa4 = <u64>i32x4.extract_lane(Q4, 0);
    Q0 = i32x4.shuffle(Q0, Q0, 1, 2, 3, 0); Q1 = i32x4.shuffle(Q1, Q1, 1, 2, 3, 0); Q2 = i32x4.shuffle(Q2, Q2, 1, 2, 3, 0);
    Q3 = i32x4.shuffle(Q3, Q3, 1, 2, 3, 0); Q4 = i32x4.shuffle(Q4, Q4, 1, 2, 3, 0);
    const c = <u64>toMontS(load<u32>(claim + (<usize>k << 2)));
    const g0 = (l0 + qa0) % pp;
    const g1 = (c + pp - g0) % pp;
    const l1 = (g1 + pp - qa1) % pp;
    const l3 = (l0 + 3 * l2 + 3 * pp - 3 * l1) % pp;
    const l4 = (3 * l0 + 6 * l2 + 8 * pp - 8 * l1) % pp;
    setAcc(out, 0, k, g0);
    setAcc(out, 1, k, g1);
    setAcc(out, 2, k, l2 + qa2);
    setAcc(out, 3, k, l3 + qa3);
    setAcc(out, 4, k, l4 + qa4);
  }
  finishRound(out, true, false, false);
}
