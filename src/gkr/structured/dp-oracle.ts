/**
 * Data-parallel layer oracle for K = 2^k copies of one structured layer (docs/profile-v2.md §6.2):
 * the layer sumcheck of the replicated circuit (§10.1; copy index = the first k coordinates of
 * every point, bound first) computed from ONE copy's gates, never from K copies of them.
 *
 * With claims (ρ_q ‖ ζ_q, c_q) (ρ_q: copy coordinates) write E_q(c) = c_q·eq(ρ_q, c) and, from the
 * single layer with weights eq(ζ_q, ·): a_q (lin + linear group lanes), p_q (Pow3 + cubed group
 * lanes). The phase-1 tables of the replicated layer are then
 *   A(c, x') = Σ_q E_q(c)·a_q(x') + Amul_c(x'),  Pw(c, x') = Σ_q E_q(c)·p_q(x'),
 * Amul_c(x') = Σ_{Mul, in1 = x'} coeff·W_c(out)·V_c(in2), W_c = Σ_q E_q(c)·eq(ζ_q, ·). Split the
 * lanes x' into N (in1 of Pow3 and Mul gates and cubed group lanes) and the rest:
 * - linear part Σ_c Σ_{x'} V_c(x')·Σ_q E_q(c)·a_q(x') = Σ_q Σ_c E_q(c)·L_q(c), L_q(c) = ⟨a_q, V_c⟩:
 *   a product sumcheck over tables of K entries (one pass over the K vectors builds L_q);
 * - dense part Σ_c Σ_{x'∈N} V·(Amul + Pw·V²): explicit tables of K·|N| entries.
 * Both are folded over the k copy variables; then the tables of one copy's width are
 * V(r_c, ·) = Σ_c eq(r_c, c)·V_c (one pass), A(r_c, ·) = Σ_q E_q(r_c)·a_q + Amul(r_c, ·),
 * Pw(r_c, ·) = Σ_q E_q(r_c)·p_q, and the remaining x rounds are the plain two-phase rounds.
 * Phase 2 (y): β(y) as in compat-v1 §10.4; with Mul gates mulx(y_c, y') = Σ_q F_q(y_c)·m_q(y'),
 * F_q(y_c) = c_q·Π_j (y_j ? ρ_qj·r_j : (1 − ρ_qj)(1 − r_j)), handled in the same two stages.
 * V(y*) = Σ_c eq(y_c*, c)·⟨V_c, eq(y'*, ·)⟩.
 *
 * The round polynomials are those of the sparse oracle on the replicated circuit (a sum is a sum):
 * test/gkr/structured-dp.test.ts compares whole proofs with `proveStructuredGkr` on
 * `replicateStructuredCircuit` and round polynomials with the dense oracle.
 *
 * The big passes (over K·2^s values) and the table sumchecks go through a `CopiesBackend`: the
 * TypeScript reference (`tsCopiesBackend`, dp-ts-backend.ts) or the WASM kernels (dp-wasm.ts).
 */
import { P, mul } from "../../field/koalabear.js";
import { EXT_ONE, EXT_ZERO, embed, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";
import { ExtVector } from "../../field/ext-vector.js";
import { SumcheckError } from "../../sumcheck/errors.js";
import { eqTable } from "../../sumcheck/mle.js";
import type { RoundMessage } from "../../sumcheck/oracle.js";
import { extMulAddTo, extScaleAddTo } from "../../field/ext-inline.js";
import { GateKind } from "../circuit.js";
import type { Claim } from "../claims.js";
import { CircuitError } from "../errors.js";
import type { LayerSumcheckOracle } from "../layer-oracle.js";
import { LinearGroupsExtension } from "./oracle.js";
import { type StructuredLayer, isCubedLane } from "./linear.js";
import {
  type PlaneTable,
  elementsOf,
  foldPlanes,
  planeEntry,
  planesOf,
  productEvaluationsPlanes,
} from "./dp-planes.js";

/**
 * Σ_i V(i)·(A(i) + Pw(i)·V(i)²) over tables of a common length (a power of two), folded MSB first.
 */
export interface TripleSumcheck {
  /** g(0..m) of the current round (m = 2 or 4). */
  evaluations(m: number): Ext[];
  /** Binds the current top variable to r (the length halves). */
  bind(r: Ext): void;
  /** A, Pw, V at the bound point (length 1 after the binds). */
  final(): { a: Ext; p: Ext; v: Ext };
  /** A at entries 0..count−1 (canonical planes of `count`), at the current length. */
  readA(count: number): Uint32Array;
  /** The tables at length 2 (one variable left), for the zero-knowledge rounds of src/gkr/zk (Pw zero when absent). */
  pair(): StagePair;
  /** Frees what the sumcheck holds. */
  dispose(): void;
}

/** A stage's tables with one variable left: entries 0 and 1 of V, A and Pw. */
export interface StagePair {
  readonly v: readonly [Ext, Ext];
  readonly a: readonly [Ext, Ext];
  readonly p: readonly [Ext, Ext];
}

/**
 * What the zero-knowledge layer sumcheck (src/gkr/zk/prover.ts) reads in the round that masks
 * change: the stage's length-2 tables and, in the y block, k = (L*·V* + P*·V*³)·β(y bound so far),
 * the term of the round polynomial beside V*·Σ M(y)·V(y) (docs/profile-v3.md §11.4).
 */
export interface ZkRoundTables extends StagePair {
  readonly k: Ext;
}

/** The K layer-below vectors of one layer, loaded into a backend. */
export interface LoadedCopies {
  /** For each table T (canonical planes of n): the K values ⟨V_c, T⟩. */
  dots(tables: readonly Uint32Array[]): Ext[][];
  /**
   * A table sumcheck of one copy's width n: V = Σ_c e[c]·V_c (e null: V = V_0, K = 1), A and Pw
   * given (canonical planes of n; Pw null: zero).
   */
  stage(e: readonly Ext[] | null, a: Uint32Array, pw: Uint32Array | null): TripleSumcheck;
  /**
   * The dense table sumcheck over K·|lanes| entries (index c·|lanes| + j): V_c(lanes[j]),
   * A = Amul of `mul` (`mulBookingTable`; null: zero), Pw = Σ_q E_q(c)·pw_q[j] (null: none).
   */
  dense(
    lanes: Int32Array,
    mul: MulBooking | null,
    e: readonly (readonly Ext[])[],
    pw: readonly Uint32Array[] | null,
  ): TripleSumcheck;
  dispose(): void;
}

/** The Mul gates of a layer for the dense tables: Amul_c(N_j) = Σ_q E_q(c)·Σ_{g: slot_g = j} u_q,g·V_c(in2_g). */
export interface MulBooking {
  /** Per Mul gate: the slot of its in1 in the lanes N, and its in2. */
  readonly slots: Int32Array;
  readonly in2: Uint32Array;
  /** Per claim q: u_q,g = coeff_g·eq(ζ_q, out_g), canonical planes of G. */
  readonly u: readonly Uint32Array[];
}

/**
 * Amul_c(N_j) for every copy (canonical planes of K·m, index c·m + j) from the K vectors below
 * (K·n canonical values) and E_q(c) (per claim, K elements): the TypeScript reference of the
 * kernel `dp_mul_booking`.
 */
export function mulBookingTable(
  below: Uint32Array,
  K: number,
  n: number,
  m: number,
  mul: MulBooking,
  e: readonly (readonly Ext[])[],
): Uint32Array {
  const len = K * m;
  const out = new Uint32Array(4 * len);
  const { slots, in2, u } = mul;
  const G = slots.length;
  const acc = new Uint32Array(4 * m);
  for (let c = 0; c < K; c++) {
    for (let q = 0; q < u.length; q++) {
      acc.fill(0);
      const t = u[q]!;
      for (let g = 0; g < G; g++) {
        const v = below[c * n + in2[g]!]!;
        if (v === 0) continue;
        extScaleAddTo(acc, slots[g]!, m, v, t[g]!, t[G + g]!, t[2 * G + g]!, t[3 * G + g]!);
      }
      const ec = e[q]![c]!;
      for (let j = 0; j < m; j++) {
        const a0 = acc[j]!,
          a1 = acc[m + j]!,
          a2 = acc[2 * m + j]!,
          a3 = acc[3 * m + j]!;
        if ((a0 | a1 | a2 | a3) === 0) continue;
        extMulAddTo(out, c * m + j, len, ec[0], ec[1], ec[2], ec[3], a0, a1, a2, a3);
      }
    }
  }
  return out;
}

/**
 * A layer vector a backend holds in its own memory (`KeptVector` of dp-resident.ts): its length,
 * and its canonical values, read out only when asked.
 */
export interface HeldValues {
  readonly length: number;
  /** The canonical values (read out once, then the same array). */
  values(): Uint32Array;
}

/** A layer vector of the K copies: canonical values, or held by a backend. */
export type LayerValues = Uint32Array | HeldValues;

/** The canonical values of a layer vector. */
export function valuesOf(v: LayerValues): Uint32Array {
  return v instanceof Uint32Array ? v : v.values();
}

/** Where the data-parallel oracle runs its passes over K·2^s values and its table sumchecks. */
export interface CopiesBackend {
  readonly name: string;
  /** @param below K vectors of n canonical values back to back (held ones are read where they are when the backend can). */
  load(below: LayerValues, K: number, n: number): LoadedCopies;
  /**
   * Optional: `eqTable(point, scale)` of src/sumcheck/mle.ts (the same plane table, canonical) on
   * the backend's own kernel; the oracle uses `eqTable` without it.
   */
  eqTable?(point: readonly Ext[], scale?: Ext): ExtVector;
}

// ----------------------------------------------------------------------------- layer plan

/** What a layer's sumcheck needs from its gates, computed once per layer. */
interface LayerPlan {
  readonly hasPow: boolean;
  readonly hasMul: boolean;
  /** N: sorted input wires with a non-linear term (Pow3 or Mul in1, cubed group lanes). */
  readonly lanes: Int32Array;
  /** slot[x] = index of x in lanes, or −1. */
  readonly slot: Int32Array;
  readonly mulOut: Uint32Array;
  readonly mulIn1: Uint32Array;
  readonly mulIn2: Uint32Array;
  readonly mulCoeff: Uint32Array;
}

const plans = new WeakMap<StructuredLayer, Map<number, LayerPlan>>();

function planOf(layer: StructuredLayer, s: number): LayerPlan {
  let m = plans.get(layer);
  if (!m) plans.set(layer, (m = new Map()));
  const cached = m.get(s);
  if (cached) return cached;
  const n = 2 ** s;
  const mark = new Uint8Array(n);
  let hasPow = false;
  const mo: number[] = [],
    m1: number[] = [],
    m2: number[] = [],
    mc: number[] = [];
  for (let g = 0; g < layer.gateKind.length; g++) {
    const kind = layer.gateKind[g]!;
    if (kind === GateKind.Pow3) {
      hasPow = true;
      mark[layer.gateIn1[g]!] = 1;
    } else if (kind === GateKind.Mul) {
      mark[layer.gateIn1[g]!] = 1;
      mo.push(layer.gateOut[g]!);
      m1.push(layer.gateIn1[g]!);
      m2.push(layer.gateIn2[g]!);
      mc.push(layer.gateCoeff[g]!);
    }
  }
  for (const grp of layer.linear ?? []) {
    if (grp.cubeMask === 0 || grp.outBase.length === 0) continue;
    hasPow = true;
    const lanes = 2 ** grp.map.laneBits;
    for (let b = 0; b < grp.inBase.length; b++)
      for (let x = 0; x < lanes; x++) if (isCubedLane(grp, x)) mark[grp.inBase[b]! + x] = 1;
  }
  const list: number[] = [];
  const slot = new Int32Array(n).fill(-1);
  for (let x = 0; x < n; x++)
    if (mark[x]) {
      slot[x] = list.length;
      list.push(x);
    }
  const plan: LayerPlan = {
    hasPow,
    hasMul: mo.length > 0,
    lanes: Int32Array.from(list),
    slot,
    mulOut: Uint32Array.from(mo),
    mulIn1: Uint32Array.from(m1),
    mulIn2: Uint32Array.from(m2),
    mulCoeff: Uint32Array.from(mc),
  };
  m.set(s, plan);
  return plan;
}

/** a (lin + linear lanes) and p (Pow3 + cubed lanes) of one copy for weights w (planes of 2^sOut). */
function singleTables(
  layer: StructuredLayer,
  w: ExtVector,
  n: number,
  hasPow: boolean,
): { a: Uint32Array; p: Uint32Array | null } {
  const a = new Uint32Array(4 * n);
  const p = hasPow ? new Uint32Array(4 * n) : null;
  const d = w.data,
    W = w.length;
  const { gateKind, gateOut, gateIn1, gateCoeff } = layer;
  for (let g = 0; g < gateKind.length; g++) {
    const kind = gateKind[g]!;
    if (kind === GateKind.Mul) continue;
    const o = gateOut[g]!;
    extScaleAddTo(
      kind === GateKind.Pow3 ? p! : a,
      gateIn1[g]!,
      n,
      gateCoeff[g]!,
      d[o]!,
      d[W + o]!,
      d[2 * W + o]!,
      d[3 * W + o]!,
    );
  }
  const groups = layer.linear ?? [];
  if (groups.length > 0) new LinearGroupsExtension(groups).addPhase1(a, p, n, d, W);
  return { a, p };
}

/** Σ_x T(x)·E(x) for two plane tables of n (E an extension table too). */
function innerExt(t: Uint32Array, e: Uint32Array, n: number): Ext {
  const acc = new Uint32Array(4);
  for (let x = 0; x < n; x++) {
    const t0 = t[x]!,
      t1 = t[n + x]!,
      t2 = t[2 * n + x]!,
      t3 = t[3 * n + x]!;
    if ((t0 | t1 | t2 | t3) === 0) continue;
    extMulAddTo(acc, 0, 1, t0, t1, t2, t3, e[x]!, e[n + x]!, e[2 * n + x]!, e[3 * n + x]!);
  }
  return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
}

/** Σ_q s_q·T_q (plane tables of n), canonical. */
function combineTables(tables: readonly Uint32Array[], scalars: readonly Ext[], n: number): Uint32Array {
  const one = scalars[0];
  if (tables.length === 1 && one !== undefined && one[0] === 1 && one[1] === 0 && one[2] === 0 && one[3] === 0)
    return tables[0]!.slice(0, 4 * n);
  const out = new Uint32Array(4 * n);
  tables.forEach((t, q) => {
    const s = scalars[q]!;
    const s0 = s[0],
      s1 = s[1],
      s2 = s[2],
      s3 = s[3];
    for (let x = 0; x < n; x++) {
      const t0 = t[x]!,
        t1 = t[n + x]!,
        t2 = t[2 * n + x]!,
        t3 = t[3 * n + x]!;
      if ((t0 | t1 | t2 | t3) === 0) continue;
      extMulAddTo(out, x, n, t0, t1, t2, t3, s0, s1, s2, s3);
    }
  });
  return out;
}

function toElements(v: ExtVector): Ext[] {
  return v.toElements();
}

/** F(y_c) = c·Π_j (y_j ? a_j·b_j : (1 − a_j)(1 − b_j)) for y_c < 2^k, MSB first. */
function pairTable(a: readonly Ext[], b: readonly Ext[], c: Ext): Ext[] {
  let t: Ext[] = [c];
  for (let j = 0; j < a.length; j++) {
    const hi = extMul(a[j]!, b[j]!);
    const lo = extMul(extSub(EXT_ONE, a[j]!), extSub(EXT_ONE, b[j]!));
    const next: Ext[] = new Array(2 * t.length);
    for (let i = 0; i < t.length; i++) {
      next[2 * i] = extMul(t[i]!, lo);
      next[2 * i + 1] = extMul(t[i]!, hi);
    }
    t = next;
  }
  return t;
}

function isZeroExt(e: Ext): boolean {
  return e[0] === 0 && e[1] === 0 && e[2] === 0 && e[3] === 0;
}

// ----------------------------------------------------------------------------- the oracle

/** Input of one data-parallel layer oracle. */
export interface CopiesLayerInput {
  /** One copy of the layer. */
  readonly layer: StructuredLayer;
  readonly layerIndex: number;
  /** k: copy bits (K = 2^k copies). */
  readonly copyBits: number;
  /** s: width bits of one copy of the layer below. */
  readonly inputBits: number;
  /** The K layer-below vectors back to back (K·2^s canonical values), as the replicated witness. */
  readonly below: LayerValues;
  /** Claims on the replicated layer: points of k + widthBits coordinates (copy coordinates first). */
  readonly claims: readonly Claim[];
}

export class CopiesLayerOracle implements LayerSumcheckOracle {
  readonly numVariables: number;
  readonly degree: number;
  allocatedBytes = 0;

  private readonly k: number;
  private readonly s: number;
  private readonly K: number;
  private readonly n: number;
  private readonly plan: LayerPlan;
  /** The K vectors below (their values read by the Mul passes of one copy). */
  private readonly belowValues: LayerValues;
  private loaded: LoadedCopies | null;
  private readonly coeffs: Ext[];
  private readonly rhos: Ext[][];
  private readonly ws: ExtVector[];
  private readonly as: Uint32Array[];
  private readonly ps: (Uint32Array | null)[];
  private round = 0;
  private readonly xs: Ext[] = [];
  private readonly ys: Ext[] = [];
  /** eq tables: the backend's kernel when it has one, else `eqTable`. */
  private readonly eq: (point: readonly Ext[], scale?: Ext) => ExtVector;

  // x phase
  private es: PlaneTable[] = [];
  private ls: PlaneTable[] = [];
  private dense: TripleSumcheck | null = null;
  private stageX: TripleSumcheck | null = null;
  // y phase
  private evalXValue: Ext | null = null;
  private evalYValue: Ext | null = null;
  private k1: Ext = EXT_ZERO;
  /** L* and P*: k1 = L*·V* + P*·V*³ (kept so that `maskX` can put the masked V* in). */
  private xLin: Ext = EXT_ZERO;
  private xPow: Ext = EXT_ZERO;
  private beta: Ext = EXT_ONE;
  private fs: PlaneTable[] = [];
  private mus: PlaneTable[] = [];
  private ms: Uint32Array[] = [];
  private stageY: TripleSumcheck | null = null;

  constructor(backend: CopiesBackend, input: CopiesLayerInput) {
    const { layer, copyBits: k, inputBits: s, below, claims } = input;
    this.eq = backend.eqTable ? backend.eqTable.bind(backend) : eqTable;
    this.k = k;
    this.s = s;
    this.K = 2 ** k;
    this.n = 2 ** s;
    const K = this.K,
      n = this.n;
    if (below.length !== K * n)
      throw new SumcheckError(
        "BAD_TABLE",
        `layer ${input.layerIndex}: the vector below has ${below.length} values, expected ${K}·2^${s}`,
      );
    const sOut = layer.widthBits;
    claims.forEach((c, q) => {
      if (c.point.length !== k + sOut)
        throw new CircuitError(
          "BAD_POINT",
          `claim ${q} has a point of ${c.point.length} coordinates, the layer has ${k} + ${sOut} width bits`,
          { claim: q },
        );
    });
    this.belowValues = below;
    this.plan = planOf(layer, s);
    this.numVariables = 2 * (k + s);
    this.degree = this.plan.hasPow ? 4 : 2;
    if (k === 0 && claims.length > 1) {
      // One copy: every table below is linear in Σ_q c_q·eq(ζ_q, ·), so the claims combine first
      // (one booking table instead of one per claim; the same values).
      const w = new ExtVector(2 ** sOut);
      const d = w.data;
      for (const c of claims) {
        const e = this.eq(c.point, c.coeff).data;
        for (let i = 0; i < d.length; i++) d[i] = (d[i]! + e[i]!) % P;
      }
      this.coeffs = [EXT_ONE];
      this.rhos = [[]];
      this.ws = [w];
    } else {
      this.coeffs = claims.map((c) => c.coeff);
      this.rhos = claims.map((c) => c.point.slice(0, k));
      this.ws = claims.map((c) => this.eq(c.point.slice(k)));
    }
    const tabs = this.ws.map((w) => singleTables(layer, w, n, this.plan.hasPow));
    this.as = tabs.map((t) => t.a);
    this.ps = tabs.map((t) => t.p);
    if (this.numVariables === 0) {
      const v = embed(valuesOf(below)[0]!);
      this.evalXValue = v;
      this.evalYValue = v;
      this.loaded = null;
      return;
    }
    this.loaded = backend.load(below, K, n);
    this.allocatedBytes += 4 * below.length;
    if (k === 0) {
      this.startStageX();
    } else {
      this.es = this.rhos.map((rho, q) => {
        const v = this.eq(rho, this.coeffs[q]!);
        return { data: v.data, stride: v.length, len: v.length };
      });
      this.ls = this.loaded.dots(this.as).map(planesOf);
      if (this.plan.lanes.length > 0) {
        const mul = this.plan.hasMul ? this.mulBooking() : null;
        const pw = this.plan.hasPow ? this.ps.map((p) => this.onLanes(p!)) : null;
        this.dense = this.loaded.dense(this.plan.lanes, mul, this.es.map(elementsOf), pw);
        this.allocatedBytes += 16 * K * this.plan.lanes.length * 3;
      }
    }
  }

  /** p restricted to the lanes N (canonical planes of |N|). */
  private onLanes(t: Uint32Array): Uint32Array {
    const lanes = this.plan.lanes,
      m = lanes.length,
      n = this.n;
    const out = new Uint32Array(4 * m);
    for (let j = 0; j < m; j++) for (let c = 0; c < 4; c++) out[c * m + j] = t[c * n + lanes[j]!]!;
    return out;
  }

  /** The layer's Mul gates with this oracle's weights u_q,g = coeff_g·eq(ζ_q, out_g). */
  private mulBooking(): MulBooking {
    const { slot, mulOut, mulIn1, mulIn2, mulCoeff } = this.plan;
    const G = mulOut.length;
    const u = this.ws.map((w) => {
      const t = new Uint32Array(4 * G);
      for (let g = 0; g < G; g++) {
        const e = w.get(mulOut[g]!),
          cf = mulCoeff[g]!;
        t[g] = mul(e[0], cf);
        t[G + g] = mul(e[1], cf);
        t[2 * G + g] = mul(e[2], cf);
        t[3 * G + g] = mul(e[3], cf);
      }
      return t;
    });
    return { slots: Int32Array.from(mulIn1, (x) => slot[x]!), in2: mulIn2, u };
  }

  private below(): Uint32Array {
    return valuesOf(this.belowValues);
  }

  /** Tables of one copy's width after the copy variables are bound (or at once when k = 0). */
  private startStageX(): void {
    const n = this.n;
    const k = this.k;
    let eScalars: Ext[];
    let e: Ext[] | null;
    if (k === 0) {
      eScalars = this.coeffs.slice();
      e = null;
    } else {
      eScalars = this.es.map((t) => planeEntry(t, 0));
      e = toElements(this.eq(this.xs.slice(0, k)));
    }
    const a = combineTables(this.as, eScalars, n);
    if (this.plan.hasMul) {
      if (k === 0) {
        this.addMulSingle(a, eScalars);
      } else {
        const m = this.plan.lanes.length;
        const folded = this.dense!.readA(m);
        for (let j = 0; j < m; j++) {
          const x = this.plan.lanes[j]!;
          const cur: Ext = [a[x]!, a[n + x]!, a[2 * n + x]!, a[3 * n + x]!];
          const add = extAdd(cur, [folded[j]!, folded[m + j]!, folded[2 * m + j]!, folded[3 * m + j]!]);
          a[x] = add[0];
          a[n + x] = add[1];
          a[2 * n + x] = add[2];
          a[3 * n + x] = add[3];
        }
      }
    }
    const pw = this.plan.hasPow ? combineTables(this.ps as Uint32Array[], eScalars, n) : null;
    this.dense?.dispose();
    this.dense = null;
    this.stageX = this.loaded!.stage(e, a, pw);
    if (this.s === 0) this.finishX();
  }

  /** K = 1: Amul of the one copy added into a. */
  private addMulSingle(a: Uint32Array, eScalars: readonly Ext[]): void {
    const { mulOut, mulIn1, mulIn2, mulCoeff } = this.plan;
    const n = this.n;
    const below = this.below();
    const av = new ExtVector(n, a);
    for (let g = 0; g < mulOut.length; g++) {
      const o = mulOut[g]!;
      let wc: Ext = EXT_ZERO;
      this.ws.forEach((w, q) => {
        wc = extAdd(wc, extMul(eScalars[q]!, w.get(o)));
      });
      const cv = mul(mulCoeff[g]!, below[mulIn2[g]!]!);
      const at = mulIn1[g]!;
      av.set(at, extAdd(av.get(at), [mul(wc[0], cv), mul(wc[1], cv), mul(wc[2], cv), mul(wc[3], cv)]));
    }
  }

  /** After the last x challenge: V*, k1 = L*·V* + P*·V*³ and, with Mul gates, the phase-2 tables. */
  private finishX(): void {
    const fin = this.stageX!.final();
    this.stageX!.dispose();
    this.stageX = null;
    const vStar = fin.v;
    this.evalXValue = vStar;
    const v3 = extMul(extMul(vStar, vStar), vStar);
    if (!this.plan.hasMul) {
      this.xLin = fin.a;
      this.xPow = fin.p;
      this.k1 = extAdd(extMul(fin.a, vStar), extMul(fin.p, v3));
      return;
    }
    const k = this.k,
      n = this.n;
    const rc = this.xs.slice(0, k),
      rp = this.xs.slice(k);
    const eqr = this.eq(rp);
    const eScalars = k === 0 ? this.coeffs : this.es.map((t) => planeEntry(t, 0));
    let lStar: Ext = EXT_ZERO,
      pStar: Ext = EXT_ZERO;
    this.as.forEach((a, q) => {
      lStar = extAdd(lStar, extMul(eScalars[q]!, innerExt(a, eqr.data, n)));
    });
    this.ps.forEach((p, q) => {
      if (p) pStar = extAdd(pStar, extMul(eScalars[q]!, innerExt(p, eqr.data, n)));
    });
    this.xLin = lStar;
    this.xPow = pStar;
    this.k1 = extAdd(extMul(lStar, vStar), extMul(pStar, v3));
    // m_q(y') = Σ_{Mul, in2 = y'} coeff·eq(ζ_q, out)·eq(r', in1)
    const { mulOut, mulIn1, mulIn2, mulCoeff } = this.plan;
    this.ms = this.ws.map((w) => {
      const t = new ExtVector(n);
      for (let g = 0; g < mulOut.length; g++) {
        const e = extMul(w.get(mulOut[g]!), eqr.get(mulIn1[g]!));
        const c = mulCoeff[g]!;
        const y = mulIn2[g]!;
        t.set(y, extAdd(t.get(y), [mul(e[0], c), mul(e[1], c), mul(e[2], c), mul(e[3], c)]));
      }
      return t.data;
    });
    this.fs = this.rhos.map((rho, q) => planesOf(pairTable(rho, rc, this.coeffs[q]!)));
    if (k === 0) this.startStageY();
    else this.mus = this.loaded!.dots(this.ms).map(planesOf);
  }

  /** Phase-2 tables of one copy's width after the y copy variables are bound (Mul layers). */
  private startStageY(): void {
    const k = this.k;
    const scal = this.fs.map((t) => planeEntry(t, 0));
    const e = k === 0 ? null : toElements(this.eq(this.ys.slice(0, k)));
    this.stageY = this.loaded!.stage(e, combineTables(this.ms, scal, this.n), null);
  }

  roundPolynomial(): RoundMessage {
    if (this.round >= this.numVariables)
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    const k = this.k,
      s = this.s,
      m = this.degree;
    if (this.round < k) {
      const lin = productEvaluationsPlanes(
        this.es.map((e, q) => [e, this.ls[q]!] as const),
        m,
      );
      if (this.dense) {
        const d = this.dense.evaluations(m);
        return { kind: "evaluations", values: lin.map((v, t) => extAdd(v, d[t]!)) };
      }
      return { kind: "evaluations", values: lin };
    }
    if (this.round < k + s) return { kind: "evaluations", values: this.stageX!.evaluations(m) };
    const kb = extMul(this.k1, this.beta);
    if (!this.plan.hasMul) return { kind: "evaluations", values: [kb, EXT_ZERO, extSub(EXT_ZERO, kb)] };
    const jy = this.round - (k + s);
    const sums =
      jy < k
        ? productEvaluationsPlanes(
            this.fs.map((f, q) => [f, this.mus[q]!] as const),
            2,
          )
        : this.stageY!.evaluations(2);
    const v = this.evalXValue!;
    return {
      kind: "evaluations",
      values: [extAdd(kb, extMul(v, sums[0]!)), extMul(v, sums[1]!), extSub(extMul(v, sums[2]!), kb)],
    };
  }

  bind(r: Ext): void {
    if (this.round >= this.numVariables)
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    const k = this.k,
      s = this.s;
    if (this.round < k + s) {
      this.xs.push(r);
      if (this.round < k) {
        this.dense?.bind(r);
        for (const e of this.es) foldPlanes(e, r);
        for (const l of this.ls) foldPlanes(l, r);
        this.round++;
        if (this.round === k) this.startStageX();
      } else {
        this.stageX!.bind(r);
        this.round++;
        if (this.round === k + s) this.finishX();
      }
      return;
    }
    const jy = this.round - (k + s);
    this.ys.push(r);
    this.beta = extMul(this.beta, extSub(EXT_ONE, r));
    this.round++;
    if (this.plan.hasMul) {
      if (jy < k) {
        for (const f of this.fs) foldPlanes(f, r);
        for (const u of this.mus) foldPlanes(u, r);
        if (jy + 1 === k) this.startStageY();
      } else {
        this.stageY!.bind(r);
      }
    }
    if (this.round === this.numVariables) this.finishY();
  }

  private finishY(): void {
    const k = this.k;
    if (this.plan.hasMul) {
      this.evalYValue = this.stageY!.final().v;
      this.stageY!.dispose();
      this.stageY = null;
    } else {
      const eqy = this.eq(this.ys.slice(k));
      const dots = this.loaded!.dots([eqy.data])[0]!;
      if (k === 0) this.evalYValue = dots[0]!;
      else {
        const e = toElements(this.eq(this.ys.slice(0, k)));
        let acc: Ext = EXT_ZERO;
        for (let c = 0; c < this.K; c++) if (!isZeroExt(dots[c]!)) acc = extAdd(acc, extMul(e[c]!, dots[c]!));
        this.evalYValue = acc;
      }
    }
    this.loaded!.dispose();
    this.loaded = null;
  }

  /** Whether the layer has Mul gates (then its y block's last round reads V(y), and `zkTables` gives it). */
  get hasMul(): boolean {
    return this.plan.hasMul;
  }

  /**
   * Zero knowledge (docs/profile-v3.md §11.4): the tables of the round about to be proved when it
   * is the x block's last round (s ≥ 1) or, in a layer with Mul gates, the y block's last round;
   * null in any other round.
   */
  zkTables(): ZkRoundTables | null {
    const nx = this.k + this.s;
    if (this.s >= 1 && this.round === nx - 1 && this.stageX) return { ...this.stageX.pair(), k: EXT_ZERO };
    if (this.s >= 1 && this.round === 2 * nx - 1 && this.stageY) {
      const t = this.stageY.pair();
      return { v: t.v, a: t.a, p: [EXT_ZERO, EXT_ZERO], k: extMul(this.k1, this.beta) };
    }
    return null;
  }

  /**
   * Zero knowledge: once the x block is bound, the y block uses `v` (the masked V̇(x*)) in place
   * of V(x*), and `evalX()` returns it.
   */
  maskX(v: Ext): void {
    if (this.evalXValue === null || this.round !== this.k + this.s)
      throw new SumcheckError("ROUNDS_EXHAUSTED", "V(x*) is masked right after the x block is bound");
    this.evalXValue = v;
    this.k1 = extAdd(extMul(this.xLin, v), extMul(this.xPow, extMul(extMul(v, v), v)));
  }

  evalX(): Ext {
    if (this.evalXValue === null)
      throw new SumcheckError("ROUNDS_EXHAUSTED", "V(x*) is known only after the x block is bound");
    return this.evalXValue;
  }

  evalY(): Ext {
    if (this.evalYValue === null)
      throw new SumcheckError("ROUNDS_EXHAUSTED", "V(y*) is known only after every variable is bound");
    return this.evalYValue;
  }

  /** Releases the backend's memory of an oracle dropped before its last round. */
  dispose(): void {
    this.dense?.dispose();
    this.stageX?.dispose();
    this.stageY?.dispose();
    this.loaded?.dispose();
    this.dense = this.stageX = this.stageY = null;
    this.loaded = null;
  }
}
