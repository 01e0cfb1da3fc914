/**
 * Allocation-free closed form of the structured wiring's progression terms (docs/profile-v2.md
 * §4.3), the evaluation `StructuredWiring` runs in `"closed-form"` mode.
 *
 * A term is a set of blocks q^out_b = O | (b ≪ α), q^in_b = I | (b ≪ α′) (b < count) of 2^β lanes
 * with one lane map M (a linear group), or a run of `count` plain Lin gates out = O + b, in = I + b
 * with one coefficient (β = 0, M = identity). Its share of the wiring predicates at claims
 * (z_k, c_k) and x is
 *
 *   Σ_k c_k·coeff·E_O(z_k)·E_I(x)·S_count(z_k,b, x_b)·B(z_k,lo, x_lo),
 *
 * E the eq factors of the fixed block bits, S_count = Σ_{b<count} eq(z_b, b)·eq(x_b, b) (one scan
 * of count's bits), and B per lane kind (linear / cubed):
 *   - identity map, every lane of one kind: B = Π_lane coordinates (z·x + (1 − z)(1 − x));
 *   - otherwise: B = Σ_x (Mᵀ·w)[x]·eq(x_lo, x) over the lanes of the kind, with the claims combined
 *     first, w = Σ_k scale_k·eq(z_k,lo, ·), so Mᵀ runs once per term whatever the number of claims.
 * The constants: Σ_k c_k·E_O(z_k)·Σ_{b<count} eq(z_k,b, b)·Σ_z c[z]·eq(z_k,lo, z).
 *
 * Everything proof-independent (coordinate roles, lane masks, constant lanes) is fixed when the
 * term is built; evaluation works on preallocated Float64Array scratch with the split extension
 * product (src/field/ext-split.ts). The plain reference is `StructuredWiring` in `"table"` mode
 * and the tuple formulas `sumBelow` / `progressionFactors` of wiring.ts; the differential tests
 * (test/gkr/structured-closed.test.ts) compare both with `TableWiring` of the dense expansion.
 */
import { P } from "../../field/koalabear.js";
import type { Ext } from "../../field/extension.js";
import { extMulSplitTo, mulSplit, reduce52 } from "../../field/ext-split.js";
import type { Claim } from "../claims.js";
import type { LinearMap } from "./maps.js";

/** Block-index progression q_b = base | (b << shift), b < count, with count ≤ 2^bits. */
export interface BlockProgression {
  readonly base: number;
  readonly shift: number;
  readonly bits: number;
}

/** How a term's lanes are evaluated: a closed lane product (identity map, one lane kind) or M on eq tables. */
type LaneMode = "product-lin" | "product-pow3" | "map";

/** One closed-form term, with every proof-independent part fixed. */
export interface ClosedTerm {
  /** Lane map. */
  readonly map: LinearMap;
  readonly laneBits: number;
  readonly count: number;
  readonly countPlan: CountPlan;
  /** m = bits of the block index. */
  readonly indexBits: number;
  /** Coordinate (of a point with `outBits` coordinates) of index bit j, j < m, MSB first. */
  readonly outIndexAt: Int32Array;
  readonly inIndexAt: Int32Array;
  /** Coordinates of the fixed block bits and the bit values there. */
  readonly outFixedAt: Int32Array;
  readonly outFixedBit: Uint8Array;
  readonly inFixedAt: Int32Array;
  readonly inFixedBit: Uint8Array;
  readonly outBits: number;
  readonly inBits: number;
  readonly mode: LaneMode;
  /** Lanes with a linear tap and with a cubed tap (mode "map"). */
  readonly linLanes: Int32Array;
  readonly cubedLanes: Int32Array;
  /** Base-field multiplier of the predicates (1 for a group, the gate coefficient for a run; a run has no constants). */
  readonly coeff: number;
  /** Output lanes with a non-zero constant, and the constants. */
  readonly constLanes: Int32Array;
  readonly constValues: Uint32Array;
}

function roles(
  prog: BlockProgression,
  bits: number,
  laneBits: number,
): { indexAt: Int32Array; fixedAt: Int32Array; fixedBit: Uint8Array } {
  const nHi = bits - laneBits;
  const indexAt = new Int32Array(prog.bits);
  const fixedAt: number[] = [],
    fixedBit: number[] = [];
  for (let t = 0; t < nHi; t++) {
    const p = nHi - 1 - t; // bit p of the block index q sits at coordinate t (MSB first)
    if (p >= prog.shift && p < prog.shift + prog.bits) indexAt[prog.shift + prog.bits - 1 - p] = t;
    else {
      fixedAt.push(t);
      fixedBit.push(Math.floor(prog.base / 2 ** p) % 2);
    }
  }
  return { indexAt, fixedAt: Int32Array.from(fixedAt), fixedBit: Uint8Array.from(fixedBit) };
}

/**
 * A closed-form term over points of `outBits` (claims) and `inBits` (x) coordinates.
 * @param map the lane map (an identity map of 2^laneBits lanes for a run of plain gates).
 * @param cubeMask bit x set: lane x is cubed (a Pow3 tap).
 * @param constants c[z] per output lane (2^laneBits values) of a group, or null (a run of plain gates).
 */
export function closedTerm(spec: {
  readonly map: LinearMap;
  readonly count: number;
  readonly out: BlockProgression;
  readonly inp: BlockProgression;
  readonly outBits: number;
  readonly inBits: number;
  readonly cubeMask: number;
  readonly coeff: number;
  readonly constants: Uint32Array | null;
}): ClosedTerm {
  const laneBits = spec.map.laneBits,
    lanes = 2 ** laneBits;
  const o = roles(spec.out, spec.outBits, laneBits),
    i = roles(spec.inp, spec.inBits, laneBits);
  const lin: number[] = [],
    cubed: number[] = [];
  for (let x = 0; x < lanes; x++) (((spec.cubeMask >>> x) & 1) === 1 ? cubed : lin).push(x);
  const identity = spec.map.id === 0;
  const mode: LaneMode =
    identity && cubed.length === 0 ? "product-lin" : identity && lin.length === 0 ? "product-pow3" : "map";
  const constLanes: number[] = [],
    constValues: number[] = [];
  if (spec.constants)
    for (let z = 0; z < lanes; z++)
      if (spec.constants[z] !== 0) {
        constLanes.push(z);
        constValues.push(spec.constants[z]!);
      }
  return {
    map: spec.map,
    laneBits,
    count: spec.count,
    countPlan: countPlan(spec.out.bits, spec.count),
    indexBits: spec.out.bits,
    outIndexAt: o.indexAt,
    inIndexAt: i.indexAt,
    outFixedAt: o.fixedAt,
    outFixedBit: o.fixedBit,
    inFixedAt: i.fixedAt,
    inFixedBit: i.fixedBit,
    outBits: spec.outBits,
    inBits: spec.inBits,
    mode,
    linLanes: Int32Array.from(lin),
    cubedLanes: Int32Array.from(cubed),
    coeff: spec.coeff,
    constLanes: Int32Array.from(constLanes),
    constValues: Uint32Array.from(constValues),
  };
}

// ---- scratch (one evaluation at a time; nothing here is re-entrant) ----

const MAX_INDEX_BITS = 32;
/** one[j] at 4j, zero[j] at 4j, suffix products at 4j (j ≤ m). */
const ONE = new Float64Array(4 * MAX_INDEX_BITS);
const ZERO = new Float64Array(4 * MAX_INDEX_BITS);
const SUFFIX = new Float64Array(4 * MAX_INDEX_BITS + 4);
/** Small values: 0 x fixed factor, 4 z fixed factor, 8 S, 12 scale, 16 prefix, 20 temp, 24 lane product. */
const V = new Float64Array(32);
/** Claim-combined lane weights (4 planes) and their Mᵀ. */
const WP = [0, 1, 2, 3].map(() => new Uint32Array(16));
const TP = [0, 1, 2, 3].map(() => new Uint32Array(16));

function mulInto(d: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  extMulSplitTo(d, o, 1, a[ao]!, a[ao + 1]!, a[ao + 2]!, a[ao + 3]!, b[bo]!, b[bo + 1]!, b[bo + 2]!, b[bo + 3]!);
}

function mulByCoord(d: Float64Array, o: number, c: Ext): void {
  extMulSplitTo(d, o, 1, d[o]!, d[o + 1]!, d[o + 2]!, d[o + 3]!, c[0], c[1], c[2], c[3]);
}

function mulByOneMinus(d: Float64Array, o: number, c: Ext): void {
  extMulSplitTo(
    d,
    o,
    1,
    d[o]!,
    d[o + 1]!,
    d[o + 2]!,
    d[o + 3]!,
    c[0] === 0 ? 1 : c[0] === 1 ? 0 : P + 1 - c[0],
    c[1] === 0 ? 0 : P - c[1],
    c[2] === 0 ? 0 : P - c[2],
    c[3] === 0 ? 0 : P - c[3],
  );
}

function setOne(d: Float64Array, o: number): void {
  d[o] = 1;
  d[o + 1] = 0;
  d[o + 2] = 0;
  d[o + 3] = 0;
}

/** d[o..o+4) ← Π over the fixed coordinates of eq(coordinate, bit) (1 when there are none). */
function fixedFactor(d: Float64Array, o: number, point: readonly Ext[], at: Int32Array, bit: Uint8Array): void {
  if (at.length === 0) {
    setOne(d, o);
    return;
  }
  const c = point[at[0]!]!;
  if (bit[0] === 1) {
    d[o] = c[0];
    d[o + 1] = c[1];
    d[o + 2] = c[2];
    d[o + 3] = c[3];
  } else {
    d[o] = c[0] === 0 ? 1 : c[0] === 1 ? 0 : P + 1 - c[0];
    d[o + 1] = c[1] === 0 ? 0 : P - c[1];
    d[o + 2] = c[2] === 0 ? 0 : P - c[2];
    d[o + 3] = c[3] === 0 ? 0 : P - c[3];
  }
  for (let f = 1; f < at.length; f++) {
    const e = point[at[f]!]!;
    if (bit[f] === 1) mulByCoord(d, o, e);
    else mulByOneMinus(d, o, e);
  }
}

function isOne(c: Ext): boolean {
  return c[0] === 1 && c[1] === 0 && c[2] === 0 && c[3] === 0;
}

function copy4(d: Float64Array, o: number, a: Float64Array, ao: number): void {
  d[o] = a[ao]!;
  d[o + 1] = a[ao + 1]!;
  d[o + 2] = a[ao + 2]!;
  d[o + 3] = a[ao + 3]!;
}

/** What `sumBelowInto` needs of a block count, fixed once per term. */
export interface CountPlan {
  readonly m: number;
  /** count ≥ 2^m: the sum is the full product. */
  readonly full: boolean;
  /** count = 0 (the sum is empty). */
  readonly empty: boolean;
  /** T_j is needed for j ≥ lo (0 when full; j0 + 1 for the highest set bit j0 otherwise). */
  readonly lo: number;
  /** Index j of the last set bit of count (MSB first). */
  readonly last: number;
  /** Bit j of count, MSB first (j < m). */
  readonly bits: Uint8Array;
}

/** The plan of `count` over m index bits. */
export function countPlan(m: number, count: number): CountPlan {
  const full = count >= 2 ** m,
    empty = !full && count <= 0;
  const bits = new Uint8Array(m);
  let first = -1,
    last = -1;
  for (let j = 0; j < m && !full; j++) {
    bits[j] = Math.floor(count / 2 ** (m - 1 - j)) % 2;
    if (bits[j] === 1) {
      if (first < 0) first = j;
      last = j;
    }
  }
  return { m, full, empty, lo: full ? 0 : first + 1, last, bits };
}

/**
 * Σ_{b<count} Π_j f_j(bit j of b) with f_j(1) = ONE[j], f_j(0) = ZERO[j] (MSB first) into d[o..o+4)
 * (the arithmetic of `sumBelow`, without the products by 1 and those no later bit uses):
 * count ≥ 2^m gives Π_j (ONE[j] + ZERO[j]); otherwise, with T_j = Π_{i ≥ j} (ONE[i] + ZERO[i]),
 * Σ over the set bits j of count of (Π_{i<j} f_i(bit i of count))·ZERO[j]·T_{j+1}.
 */
function sumBelowInto(d: Float64Array, o: number, plan: CountPlan): void {
  const s = SUFFIX;
  const { m, full, lo, last, bits } = plan;
  if (plan.empty) {
    d[o] = 0;
    d[o + 1] = 0;
    d[o + 2] = 0;
    d[o + 3] = 0;
    return;
  }
  for (let j = m - 1; j >= lo; j--) {
    const q = 4 * j;
    const a0 = ONE[q]! + ZERO[q]!,
      a1 = ONE[q + 1]! + ZERO[q + 1]!,
      a2 = ONE[q + 2]! + ZERO[q + 2]!,
      a3 = ONE[q + 3]! + ZERO[q + 3]!;
    const e0 = a0 >= P ? a0 - P : a0,
      e1 = a1 >= P ? a1 - P : a1,
      e2 = a2 >= P ? a2 - P : a2,
      e3 = a3 >= P ? a3 - P : a3;
    if (j === m - 1) {
      s[q] = e0;
      s[q + 1] = e1;
      s[q + 2] = e2;
      s[q + 3] = e3;
    } else {
      extMulSplitTo(s, q, 1, e0, e1, e2, e3, s[q + 4]!, s[q + 5]!, s[q + 6]!, s[q + 7]!);
    }
  }
  if (full) {
    if (m === 0) setOne(d, o);
    else copy4(d, o, s, 0);
    return;
  }
  let t0 = 0,
    t1 = 0,
    t2 = 0,
    t3 = 0;
  let preOne = true; // the prefix V[16..20) is 1
  for (let j = 0; j <= last; j++) {
    const q = 4 * j;
    if (bits[j] === 1) {
      if (preOne) copy4(V, 20, ZERO, q);
      else mulInto(V, 20, V, 16, ZERO, q);
      if (j + 1 < m) mulInto(V, 20, V, 20, s, q + 4);
      t0 += V[20]!;
      t1 += V[21]!;
      t2 += V[22]!;
      t3 += V[23]!;
      if (j === last) break; // no later bit reads the prefix
      if (preOne) copy4(V, 16, ONE, q);
      else mulInto(V, 16, V, 16, ONE, q);
    } else if (preOne) {
      copy4(V, 16, ZERO, q);
    } else {
      mulInto(V, 16, V, 16, ZERO, q);
    }
    preOne = false;
  }
  d[o] = t0 % P;
  d[o + 1] = t1 % P;
  d[o + 2] = t2 % P;
  d[o + 3] = t3 % P;
}

/**
 * `sumBelow` on flat operands (element j of one and zero at words 4j..4j+3, canonical) into
 * out[0..4): the allocation-free form the closed-form terms use, exposed for its differential test.
 * @throws RangeError for m above 32.
 */
export function sumBelowFlat(
  out: Uint32Array,
  one: ArrayLike<number>,
  zero: ArrayLike<number>,
  m: number,
  count: number,
): void {
  if (m > MAX_INDEX_BITS) throw new RangeError(`at most ${MAX_INDEX_BITS} index bits, got ${m}`);
  for (let i = 0; i < 4 * m; i++) {
    ONE[i] = one[i]!;
    ZERO[i] = zero[i]!;
  }
  sumBelowInto(V, 8, countPlan(m, count));
  for (let i = 0; i < 4; i++) out[i] = V[8 + i]!;
}

/** eq table of point[from .. from + lb) into planes of stride 16 of t (doubling, MSB first). */
function eqLanes(t: Float64Array, point: readonly Ext[], from: number, lb: number): void {
  t[0] = 1;
  t[16] = 0;
  t[32] = 0;
  t[48] = 0;
  let size = 1;
  for (let j = 0; j < lb; j++) {
    const c = point[from + j]!;
    for (let b = size - 1; b >= 0; b--) {
      const a0 = t[b]!,
        a1 = t[16 + b]!,
        a2 = t[32 + b]!,
        a3 = t[48 + b]!;
      const hi = 2 * b + 1,
        lo = 2 * b;
      extMulSplitTo(t, hi, 16, a0, a1, a2, a3, c[0], c[1], c[2], c[3]);
      let u = a0 - t[hi]!;
      t[lo] = u < 0 ? u + P : u;
      u = a1 - t[16 + hi]!;
      t[16 + lo] = u < 0 ? u + P : u;
      u = a2 - t[32 + hi]!;
      t[32 + lo] = u < 0 ? u + P : u;
      u = a3 - t[48 + hi]!;
      t[48 + lo] = u < 0 ? u + P : u;
    }
    size *= 2;
  }
}

/**
 * Recently built lane eq tables, recognised by the point array and then by the values of its lane
 * coordinates (a point mutated in place gets a fresh table). The x* of one layer is the first
 * claim point of the next and y* the second, so each table is built once for the constants and
 * the predicates of both layers.
 */
const LANE_CACHE = 8;
const laneEntries: {
  point: readonly Ext[] | null;
  from: number;
  lb: number;
  coords: Float64Array;
  table: Float64Array;
}[] = Array.from({ length: LANE_CACHE }, () => ({
  point: null,
  from: 0,
  lb: 0,
  coords: new Float64Array(16),
  table: new Float64Array(64),
}));
let laneNext = 0;

/** The eq table of point[from .. from + lb) (planes of stride 16); valid until LANE_CACHE further tables are built. */
function laneTable(point: readonly Ext[], from: number, lb: number): Float64Array {
  for (let e = 0; e < LANE_CACHE; e++) {
    const en = laneEntries[e]!;
    if (en.point !== point || en.from !== from || en.lb !== lb) continue;
    let same = true;
    for (let j = 0; j < lb && same; j++) {
      const c = point[from + j]!,
        q = 4 * j;
      same =
        en.coords[q] === c[0] && en.coords[q + 1] === c[1] && en.coords[q + 2] === c[2] && en.coords[q + 3] === c[3];
    }
    if (same) return en.table;
  }
  const en = laneEntries[laneNext]!;
  laneNext = (laneNext + 1) % LANE_CACHE;
  en.point = point;
  en.from = from;
  en.lb = lb;
  for (let j = 0; j < lb; j++) {
    const c = point[from + j]!,
      q = 4 * j;
    en.coords[q] = c[0];
    en.coords[q + 1] = c[1];
    en.coords[q + 2] = c[2];
    en.coords[q + 3] = c[3];
  }
  eqLanes(en.table, point, from, lb);
  return en.table;
}

/** v ≥ 0 and < 2p → canonical. */
function red(v: number): number {
  return v >= P ? v - P : v;
}

/** 1 − z − x + z·x (= (1 − z)(1 − x)) from zx = z·x, coefficient-wise. */
function oneMinusBoth(zx: number, z: number, x: number, i: number): number {
  const v = (i === 0 ? 1 : 0) + zx + 2 * P - z - x;
  return v % P;
}

/**
 * Adds Σ_k c_k·(the term's lin~ and pow3~)(z_k, x) into acc (lin at 0..3, pow3 at 4..7, canonical
 * on entry and exit). Points are not checked here (the caller checks their lengths).
 */
export function addClosedPredicates(
  term: ClosedTerm,
  claims: readonly Claim[],
  x: readonly Ext[],
  acc: Float64Array,
): void {
  const m = term.indexBits,
    lb = term.laneBits;
  const nz = term.outBits,
    nx = term.inBits;
  fixedFactor(V, 0, x, term.inFixedAt, term.inFixedBit);
  if (term.coeff !== 1) for (let i = 0; i < 4; i++) V[i] = mulSplit(term.coeff, V[i]!);
  const map = term.mode === "map";
  if (map) for (let c = 0; c < 4; c++) WP[c]!.fill(0);
  const lanes = 2 ** lb;
  for (let k = 0; k < claims.length; k++) {
    const { point: z, coeff } = claims[k]!;
    // S_count over the index coordinates: one = z·x, zero = (1 − z)(1 − x).
    for (let j = 0; j < m; j++) {
      const zc = z[term.outIndexAt[j]!]!,
        xc = x[term.inIndexAt[j]!]!;
      const q = 4 * j;
      extMulSplitTo(ONE, q, 1, zc[0], zc[1], zc[2], zc[3], xc[0], xc[1], xc[2], xc[3]);
      for (let i = 0; i < 4; i++) ZERO[q + i] = oneMinusBoth(ONE[q + i]!, zc[i]!, xc[i]!, i);
    }
    sumBelowInto(V, 8, term.countPlan);
    fixedFactor(V, 4, z, term.outFixedAt, term.outFixedBit);
    // scale = c_k · E_O(z) · (coeff·E_I(x)) · S
    mulInto(V, 12, V, 4, V, 0);
    mulInto(V, 12, V, 12, V, 8);
    if (!isOne(coeff)) extMulSplitTo(V, 12, 1, V[12]!, V[13]!, V[14]!, V[15]!, coeff[0], coeff[1], coeff[2], coeff[3]);
    if (!map) {
      // B = Π_lane coordinates (z·x + (1 − z)(1 − x)) = Π (2·z·x − z − x + 1), times the scale
      copy4(V, 24, V, 12);
      for (let l = 0; l < lb; l++) {
        const zc = z[nz - lb + l]!,
          xc = x[nx - lb + l]!;
        extMulSplitTo(V, 20, 1, zc[0], zc[1], zc[2], zc[3], xc[0], xc[1], xc[2], xc[3]);
        for (let i = 0; i < 4; i++) V[20 + i] = (2 * V[20 + i]! + 2 * P - zc[i]! - xc[i]! + (i === 0 ? 1 : 0)) % P;
        mulInto(V, 24, V, 24, V, 20);
      }
      const o = term.mode === "product-lin" ? 0 : 4;
      for (let i = 0; i < 4; i++) acc[o + i] = red(acc[o + i]! + V[24 + i]!);
      continue;
    }
    // w += scale · eq(z_lo, ·)
    const EZ = laneTable(z, nz - lb, lb);
    const s0 = V[12]!,
      s1 = V[13]!,
      s2 = V[14]!,
      s3 = V[15]!;
    for (let l = 0; l < lanes; l++) {
      extMulSplitTo(V, 20, 1, s0, s1, s2, s3, EZ[l]!, EZ[16 + l]!, EZ[32 + l]!, EZ[48 + l]!);
      for (let c = 0; c < 4; c++) WP[c]![l] = red(WP[c]![l]! + V[20 + c]!);
    }
  }
  if (!map) return;
  for (let c = 0; c < 4; c++) term.map.applyTranspose(WP[c]!, TP[c]!);
  const EX = laneTable(x, nx - lb, lb);
  dotLanes(acc, 0, term.linLanes, EX);
  dotLanes(acc, 4, term.cubedLanes, EX);
}

/** acc[o..o+4) += Σ_{l ∈ lanes} TP[l]·EX[l]. */
function dotLanes(acc: Float64Array, o: number, lanes: Int32Array, EX: Float64Array): void {
  if (lanes.length === 0) return;
  let a0 = 0,
    a1 = 0,
    a2 = 0,
    a3 = 0;
  const t0 = TP[0]!,
    t1 = TP[1]!,
    t2 = TP[2]!,
    t3 = TP[3]!;
  for (let i = 0; i < lanes.length; i++) {
    const l = lanes[i]!;
    extMulSplitTo(V, 20, 1, t0[l]!, t1[l]!, t2[l]!, t3[l]!, EX[l]!, EX[16 + l]!, EX[32 + l]!, EX[48 + l]!);
    a0 += V[20]!;
    a1 += V[21]!;
    a2 += V[22]!;
    a3 += V[23]!;
  }
  acc[o] = (acc[o]! + a0) % P;
  acc[o + 1] = (acc[o + 1]! + a1) % P;
  acc[o + 2] = (acc[o + 2]! + a2) % P;
  acc[o + 3] = (acc[o + 3]! + a3) % P;
}

/** Adds Σ_k c_k·(the term's const~)(z_k) into acc[0..4) (canonical on entry and exit). */
export function addClosedConsts(term: ClosedTerm, claims: readonly Claim[], acc: Float64Array): void {
  const nc = term.constLanes.length;
  if (nc === 0) return;
  const m = term.indexBits,
    lb = term.laneBits,
    nz = term.outBits;
  for (let k = 0; k < claims.length; k++) {
    const { point: z, coeff } = claims[k]!;
    for (let j = 0; j < m; j++) {
      const zc = z[term.outIndexAt[j]!]!;
      const q = 4 * j;
      ONE[q] = zc[0];
      ONE[q + 1] = zc[1];
      ONE[q + 2] = zc[2];
      ONE[q + 3] = zc[3];
      ZERO[q] = zc[0] === 0 ? 1 : zc[0] === 1 ? 0 : P + 1 - zc[0];
      ZERO[q + 1] = zc[1] === 0 ? 0 : P - zc[1];
      ZERO[q + 2] = zc[2] === 0 ? 0 : P - zc[2];
      ZERO[q + 3] = zc[3] === 0 ? 0 : P - zc[3];
    }
    sumBelowInto(V, 8, term.countPlan);
    fixedFactor(V, 4, z, term.outFixedAt, term.outFixedBit);
    mulInto(V, 12, V, 4, V, 8);
    if (!isOne(coeff)) extMulSplitTo(V, 12, 1, V[12]!, V[13]!, V[14]!, V[15]!, coeff[0], coeff[1], coeff[2], coeff[3]);
    const EZ = laneTable(z, nz - lb, lb);
    // Σ_z c[z]·eq(z_lo, z), exact: c = ch·2^16 + cl, at most 16 lanes of products < 2^47 per half
    let h0 = 0,
      h1 = 0,
      h2 = 0,
      h3 = 0,
      l0 = 0,
      l1 = 0,
      l2 = 0,
      l3 = 0;
    for (let i = 0; i < nc; i++) {
      const l = term.constLanes[i]!,
        cz = term.constValues[i]!;
      const ch = cz >>> 16,
        cl = cz & 0xffff;
      const e0 = EZ[l]!,
        e1 = EZ[16 + l]!,
        e2 = EZ[32 + l]!,
        e3 = EZ[48 + l]!;
      h0 += ch * e0;
      h1 += ch * e1;
      h2 += ch * e2;
      h3 += ch * e3;
      l0 += cl * e0;
      l1 += cl * e1;
      l2 += cl * e2;
      l3 += cl * e3;
    }
    extMulSplitTo(
      V,
      20,
      1,
      reduce52(reduce52(h0) * 65536 + l0),
      reduce52(reduce52(h1) * 65536 + l1),
      reduce52(reduce52(h2) * 65536 + l2),
      reduce52(reduce52(h3) * 65536 + l3),
      V[12]!,
      V[13]!,
      V[14]!,
      V[15]!,
    );
    for (let i = 0; i < 4; i++) acc[i] = red(acc[i]! + V[20 + i]!);
  }
}
