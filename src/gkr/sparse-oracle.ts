/**
 * Production layer oracle: Libra-style two-phase sumcheck over the sparse gate list
 * (compat-v1 §10.4 "Recommended oracle"; Xie et al., "Libra", CRYPTO 2019, §3).
 *
 * Weights w[o] = Σ_k c_k·eq(z_k, o); gate weight = coeff·w[out].
 * - Phase 1 (x rounds) keeps three tables over x: A[x] = Σ_{Lin, in1=x} weight + Σ_{Mul, in1=x}
 *   weight·V[in2] (the lin table plus the booking table amul; both multiply V(x), so they are
 *   summed), pow[x] = Σ_{Pow3, in1=x} weight, and V[x]. Round value at node T:
 *   Σ_{i<h} V_T·(A_T + pow_T·V_T²).
 * - Phase 2 (y rounds): with x* bound, scalars L* = lin(x*), P* = pow(x*), V* = V(x*) come from one
 *   pass over the gates with eq(x*, ·), which also fills mulx[y] = Σ_{Mul, in2=y} weight·eq(x*, in1).
 *   Round value at T: (L*·V* + P*·V*³)·β_T + V*·Σ_{i<h} mulx_T·V_T, where β is 1 at y = 0 only,
 *   so Σ_i β_T(i) = β[0]·(1 − T).
 *
 * Rounds whose polynomial has degree ≤ 2 (x rounds of a layer without Pow3 gates, every y round)
 * return 3 evaluations instead of 5; interpolation gives the same five coefficients.
 *
 * Auxiliary memory: O(2^s_out + 2^s) extension elements; nothing is allocated per gate or per
 * pair of input wires.
 */
import { P, mul } from "../field/koalabear.js";
import { EXT_ONE, embed, extAdd, extMul, extSub, type Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { SumcheckError } from "../sumcheck/errors.js";
import { eqTable, foldBase, foldExtInPlace } from "../sumcheck/mle.js";
import type { RoundMessage } from "../sumcheck/oracle.js";
import { extMulAddTo, extMulTo, extScaleAddTo } from "../field/ext-inline.js";
import { GateKind, type Layer } from "./circuit.js";
import { claimWeights } from "./claims.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "./layer-oracle.js";

/**
 * Terms of a gate family kept outside the plain gate list (the structured linear groups of
 * profile v2, src/gkr/structured/oracle.ts) that the two phases add to their tables. compat-v1
 * layers have none.
 */
export interface SparseOracleExtension {
  /** True if the family has Pow3 taps (the x rounds then have degree 4). */
  readonly hasPow: boolean;
  /**
   * Adds Σ weight into the phase-1 tables: `lin` (the A table) and `pow` (null when neither the
   * gates nor the family have Pow3 terms), plane layout of n elements; w is the weights table
   * (plane layout of W elements).
   */
  addPhase1(lin: Uint32Array, pow: Uint32Array | null, n: number, w: Uint32Array, W: number): void;
  /** Adds Σ weight·eq(x*, in1) into linAcc and powAcc (one extension element each, stride 1); eqx is eq(x*, ·) of n elements. */
  addPhase2(eqx: Uint32Array, n: number, w: Uint32Array, W: number, linAcc: Uint32Array, powAcc: Uint32Array): void;
}

/**
 * The plain TypeScript layer oracle (compat-v1 §10.3, phases 1 and 2 over the layer's sparse gate list): the reference every WASM oracle is tested against. `allocatedBytes` counts its tables.
 * @throws CircuitError `BAD_POINT` for claims whose points do not match the layer.
 */
export class SparseLayerOracle implements LayerSumcheckOracle {
  readonly numVariables: number;
  readonly degree: number;
  allocatedBytes = 0;

  private readonly s: number;
  private readonly layer: Layer;
  private readonly below: Uint32Array;
  private readonly hasPow: boolean;
  private readonly hasMul: boolean;
  private round = 0;
  private readonly xs: Ext[] = [];
  private readonly tmp = new Uint32Array(8);

  // Phase 1 state (released when phase 2 starts).
  private weights: ExtVector | null;
  private tableA: ExtVector | null;
  private tablePow: ExtVector | null;
  /** V over the unbound x variables; null while still the base vector `below`. */
  private tableVx: ExtVector | null = null;

  // Phase 2 state.
  private evalXValue: Ext | null = null;
  private k1: Ext = [0, 0, 0, 0];
  private mulx: ExtVector | null = null;
  /** V over the unbound y variables; null while still the base vector `below`. */
  private tableVy: ExtVector | null = null;
  private beta: Ext = EXT_ONE;
  private evalYValue: Ext | null = null;
  private readonly extension: SparseOracleExtension | undefined;

  constructor(input: LayerOracleInput, extension?: SparseOracleExtension) {
    const { layer, inputBits: s, below, claims } = input;
    if (below.length !== 2 ** s) {
      throw new SumcheckError(
        "BAD_TABLE",
        `layer ${input.layerIndex}: the vector below has ${below.length} values, expected 2^${s}`,
      );
    }
    this.s = s;
    this.layer = layer;
    this.below = below;
    this.numVariables = 2 * s;
    let hasPow = false;
    let hasMul = false;
    const kinds = layer.gateKind;
    for (let g = 0; g < kinds.length; g++) {
      if (kinds[g] === GateKind.Pow3) hasPow = true;
      else if (kinds[g] === GateKind.Mul) hasMul = true;
    }
    this.extension = extension;
    if (extension?.hasPow) hasPow = true;
    this.hasPow = hasPow;
    this.hasMul = hasMul;
    this.degree = hasPow ? 4 : 2;

    this.weights = claimWeights(claims, layer.widthBits);
    this.allocatedBytes += this.weights.data.byteLength * Math.max(1, claims.length);
    const n = 2 ** s;
    this.tableA = new ExtVector(n);
    this.allocatedBytes += this.tableA.data.byteLength;
    this.tablePow = hasPow ? new ExtVector(n) : null;
    if (this.tablePow) this.allocatedBytes += this.tablePow.data.byteLength;
    this.fillPhase1Tables();
    if (s === 0) this.startPhase2();
  }

  private fillPhase1Tables(): void {
    const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = this.layer;
    const w = this.weights!.data;
    const W = this.weights!.length;
    const W2 = 2 * W,
      W3 = 3 * W;
    const A = this.tableA!.data;
    const n = this.tableA!.length;
    const Pw = this.tablePow ? this.tablePow.data : A;
    const V = this.below;
    for (let g = 0; g < gateKind.length; g++) {
      const o = gateOut[g]!;
      const kind = gateKind[g]!;
      const i1 = gateIn1[g]!;
      let c = gateCoeff[g]!;
      if (kind === GateKind.Mul) c = mul(c, V[gateIn2[g]!]!);
      extScaleAddTo(kind === GateKind.Pow3 ? Pw : A, i1, n, c, w[o]!, w[W + o]!, w[W2 + o]!, w[W3 + o]!);
    }
    this.extension?.addPhase1(A, this.tablePow ? Pw : null, n, w, W);
  }

  roundPolynomial(): RoundMessage {
    if (this.round >= this.numVariables) {
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    }
    return { kind: "evaluations", values: this.round < this.s ? this.phase1Round() : this.phase2Round() };
  }

  bind(r: Ext): void {
    if (this.round >= this.numVariables) {
      throw new SumcheckError("ROUNDS_EXHAUSTED", `all ${this.numVariables} variables are already bound`);
    }
    if (this.round < this.s) {
      this.tableA = foldExtInPlace(this.tableA!, r);
      if (this.tablePow) this.tablePow = foldExtInPlace(this.tablePow, r);
      if (this.tableVx === null) {
        this.tableVx = foldBase(this.below, r);
        this.allocatedBytes += this.tableVx.data.byteLength;
      } else {
        this.tableVx = foldExtInPlace(this.tableVx, r);
      }
      this.xs.push(r);
      this.round++;
      if (this.round === this.s) this.startPhase2();
    } else {
      this.beta = extMul(this.beta, extSub(EXT_ONE, r));
      if (this.mulx) this.mulx = foldExtInPlace(this.mulx, r);
      if (this.tableVy === null) {
        this.tableVy = foldBase(this.below, r);
        this.allocatedBytes += this.tableVy.data.byteLength;
      } else {
        this.tableVy = foldExtInPlace(this.tableVy, r);
      }
      this.round++;
      if (this.round === this.numVariables) this.evalYValue = this.tableVy.get(0);
    }
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

  /** Σ_{i<h} V_T·(A_T + pow_T·V_T²) for T = 0..degree. */
  private phase1Round(): Ext[] {
    // Node values t_T = t[i] + T·(t[i+h] − t[i]) are formed as (t[i] + T·d) mod p with
    // d = t[i+h] − t[i] + p ∈ [1, 2p) and T ≤ 4 (sums < 9p, exact in a double).
    const m = this.degree;
    const acc = new Uint32Array(4 * (m + 1));
    const A = this.tableA!.data;
    const len = this.tableA!.length;
    const h = len / 2;
    const L2 = 2 * len,
      L3 = 3 * len;
    const hasPow = this.hasPow;
    const Pw = hasPow ? this.tablePow!.data : A;
    const tmp = this.tmp;
    if (this.tableVx === null) {
      const V = this.below;
      for (let i = 0; i < h; i++) {
        const ih = i + h;
        const vl = V[i]!,
          dv = V[ih]! + P - vl;
        const a0 = A[i]!,
          a1 = A[len + i]!,
          a2 = A[L2 + i]!,
          a3 = A[L3 + i]!;
        const da0 = A[ih]! + P - a0,
          da1 = A[len + ih]! + P - a1,
          da2 = A[L2 + ih]! + P - a2,
          da3 = A[L3 + ih]! + P - a3;
        const p0 = hasPow ? Pw[i]! : 0,
          p1 = hasPow ? Pw[len + i]! : 0,
          p2 = hasPow ? Pw[L2 + i]! : 0,
          p3 = hasPow ? Pw[L3 + i]! : 0;
        const dp0 = hasPow ? Pw[ih]! + P - p0 : 0,
          dp1 = hasPow ? Pw[len + ih]! + P - p1 : 0;
        const dp2 = hasPow ? Pw[L2 + ih]! + P - p2 : 0,
          dp3 = hasPow ? Pw[L3 + ih]! + P - p3 : 0;
        for (let t = 0; t <= m; t++) {
          const v = (vl + t * dv) % P;
          let s0 = (a0 + t * da0) % P,
            s1 = (a1 + t * da1) % P,
            s2 = (a2 + t * da2) % P,
            s3 = (a3 + t * da3) % P;
          if (hasPow) {
            const vv = mul(v, v);
            s0 = (s0 + mul((p0 + t * dp0) % P, vv)) % P;
            s1 = (s1 + mul((p1 + t * dp1) % P, vv)) % P;
            s2 = (s2 + mul((p2 + t * dp2) % P, vv)) % P;
            s3 = (s3 + mul((p3 + t * dp3) % P, vv)) % P;
          }
          const o = 4 * t;
          acc[o] = (acc[o]! + mul(s0, v)) % P;
          acc[o + 1] = (acc[o + 1]! + mul(s1, v)) % P;
          acc[o + 2] = (acc[o + 2]! + mul(s2, v)) % P;
          acc[o + 3] = (acc[o + 3]! + mul(s3, v)) % P;
        }
      }
    } else {
      const V = this.tableVx.data;
      for (let i = 0; i < h; i++) {
        const ih = i + h;
        const v0 = V[i]!,
          v1 = V[len + i]!,
          v2 = V[L2 + i]!,
          v3 = V[L3 + i]!;
        const dv0 = V[ih]! + P - v0,
          dv1 = V[len + ih]! + P - v1,
          dv2 = V[L2 + ih]! + P - v2,
          dv3 = V[L3 + ih]! + P - v3;
        const a0 = A[i]!,
          a1 = A[len + i]!,
          a2 = A[L2 + i]!,
          a3 = A[L3 + i]!;
        const da0 = A[ih]! + P - a0,
          da1 = A[len + ih]! + P - a1,
          da2 = A[L2 + ih]! + P - a2,
          da3 = A[L3 + ih]! + P - a3;
        const p0 = hasPow ? Pw[i]! : 0,
          p1 = hasPow ? Pw[len + i]! : 0,
          p2 = hasPow ? Pw[L2 + i]! : 0,
          p3 = hasPow ? Pw[L3 + i]! : 0;
        const dp0 = hasPow ? Pw[ih]! + P - p0 : 0,
          dp1 = hasPow ? Pw[len + ih]! + P - p1 : 0;
        const dp2 = hasPow ? Pw[L2 + ih]! + P - p2 : 0,
          dp3 = hasPow ? Pw[L3 + ih]! + P - p3 : 0;
        for (let t = 0; t <= m; t++) {
          const w0 = (v0 + t * dv0) % P,
            w1 = (v1 + t * dv1) % P,
            w2 = (v2 + t * dv2) % P,
            w3 = (v3 + t * dv3) % P;
          let s0 = (a0 + t * da0) % P,
            s1 = (a1 + t * da1) % P,
            s2 = (a2 + t * da2) % P,
            s3 = (a3 + t * da3) % P;
          if (hasPow) {
            extMulTo(tmp, 0, 1, w0, w1, w2, w3, w0, w1, w2, w3);
            extMulTo(
              tmp,
              4,
              1,
              (p0 + t * dp0) % P,
              (p1 + t * dp1) % P,
              (p2 + t * dp2) % P,
              (p3 + t * dp3) % P,
              tmp[0]!,
              tmp[1]!,
              tmp[2]!,
              tmp[3]!,
            );
            s0 = (s0 + tmp[4]!) % P;
            s1 = (s1 + tmp[5]!) % P;
            s2 = (s2 + tmp[6]!) % P;
            s3 = (s3 + tmp[7]!) % P;
          }
          extMulAddTo(acc, 4 * t, 1, s0, s1, s2, s3, w0, w1, w2, w3);
        }
      }
    }
    return unpack(acc, m + 1);
  }

  /** Called once the x block is bound (or immediately when s = 0). */
  private startPhase2(): void {
    const vStar: Ext = this.s === 0 ? embed(this.below[0]!) : this.tableVx!.get(0);
    this.evalXValue = vStar;
    const eqx = eqTable(this.xs);
    this.allocatedBytes += eqx.data.byteLength;
    const n = eqx.length;
    const n2 = 2 * n,
      n3 = 3 * n;
    const e = eqx.data;
    const w = this.weights!.data;
    const W = this.weights!.length;
    const W2 = 2 * W,
      W3 = 3 * W;
    const linAcc = new Uint32Array(4);
    const powAcc = new Uint32Array(4);
    if (this.hasMul) {
      this.mulx = new ExtVector(n);
      this.allocatedBytes += this.mulx.data.byteLength;
    }
    const mx = this.mulx ? this.mulx.data : linAcc;
    const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = this.layer;
    const tmp = this.tmp;
    for (let g = 0; g < gateKind.length; g++) {
      const o = gateOut[g]!;
      const c = gateCoeff[g]!;
      const i1 = gateIn1[g]!;
      const kind = gateKind[g]!;
      // weight·eq(x*, in1) = (coeff·eq(x*, in1))·w[out]
      tmp[0] = mul(c, e[i1]!);
      tmp[1] = mul(c, e[n + i1]!);
      tmp[2] = mul(c, e[n2 + i1]!);
      tmp[3] = mul(c, e[n3 + i1]!);
      if (kind === GateKind.Mul) {
        extMulAddTo(mx, gateIn2[g]!, n, tmp[0]!, tmp[1]!, tmp[2]!, tmp[3]!, w[o]!, w[W + o]!, w[W2 + o]!, w[W3 + o]!);
      } else {
        extMulAddTo(
          kind === GateKind.Pow3 ? powAcc : linAcc,
          0,
          1,
          tmp[0]!,
          tmp[1]!,
          tmp[2]!,
          tmp[3]!,
          w[o]!,
          w[W + o]!,
          w[W2 + o]!,
          w[W3 + o]!,
        );
      }
    }
    this.extension?.addPhase2(e, n, w, W, linAcc, powAcc);
    const lStar: Ext = [linAcc[0]!, linAcc[1]!, linAcc[2]!, linAcc[3]!];
    const pStar: Ext = [powAcc[0]!, powAcc[1]!, powAcc[2]!, powAcc[3]!];
    const v3 = extMul(extMul(vStar, vStar), vStar);
    this.k1 = extAdd(extMul(lStar, vStar), extMul(pStar, v3));
    this.weights = null;
    this.tableA = null;
    this.tablePow = null;
    this.tableVx = null;
    if (this.s === 0) this.evalYValue = vStar;
  }

  /** (L*V* + P*V*³)·β[0]·(1 − T) + V*·Σ_{i<h} mulx_T·V_T for T = 0, 1, 2. */
  private phase2Round(): Ext[] {
    const sums = new Uint32Array(12);
    if (this.mulx) {
      const M = this.mulx.data;
      const len = this.mulx.length;
      const h = len / 2;
      const L2 = 2 * len,
        L3 = 3 * len;
      if (this.tableVy === null) {
        const V = this.below;
        for (let i = 0; i < h; i++) {
          const ih = i + h;
          const vl = V[i]!,
            dv = V[ih]! + P - vl;
          const m0 = M[i]!,
            m1 = M[len + i]!,
            m2 = M[L2 + i]!,
            m3 = M[L3 + i]!;
          const dm0 = M[ih]! + P - m0,
            dm1 = M[len + ih]! + P - m1,
            dm2 = M[L2 + ih]! + P - m2,
            dm3 = M[L3 + ih]! + P - m3;
          for (let t = 0; t < 3; t++) {
            const v = (vl + t * dv) % P;
            const o = 4 * t;
            sums[o] = (sums[o]! + mul((m0 + t * dm0) % P, v)) % P;
            sums[o + 1] = (sums[o + 1]! + mul((m1 + t * dm1) % P, v)) % P;
            sums[o + 2] = (sums[o + 2]! + mul((m2 + t * dm2) % P, v)) % P;
            sums[o + 3] = (sums[o + 3]! + mul((m3 + t * dm3) % P, v)) % P;
          }
        }
      } else {
        const V = this.tableVy.data;
        for (let i = 0; i < h; i++) {
          const ih = i + h;
          const v0 = V[i]!,
            v1 = V[len + i]!,
            v2 = V[L2 + i]!,
            v3 = V[L3 + i]!;
          const dv0 = V[ih]! + P - v0,
            dv1 = V[len + ih]! + P - v1,
            dv2 = V[L2 + ih]! + P - v2,
            dv3 = V[L3 + ih]! + P - v3;
          const m0 = M[i]!,
            m1 = M[len + i]!,
            m2 = M[L2 + i]!,
            m3 = M[L3 + i]!;
          const dm0 = M[ih]! + P - m0,
            dm1 = M[len + ih]! + P - m1,
            dm2 = M[L2 + ih]! + P - m2,
            dm3 = M[L3 + ih]! + P - m3;
          for (let t = 0; t < 3; t++) {
            extMulAddTo(
              sums,
              4 * t,
              1,
              (m0 + t * dm0) % P,
              (m1 + t * dm1) % P,
              (m2 + t * dm2) % P,
              (m3 + t * dm3) % P,
              (v0 + t * dv0) % P,
              (v1 + t * dv1) % P,
              (v2 + t * dv2) % P,
              (v3 + t * dv3) % P,
            );
          }
        }
      }
    }
    const vStar = this.evalXValue!;
    const kb = extMul(this.k1, this.beta);
    const s = unpack(sums, 3);
    return [extAdd(kb, extMul(vStar, s[0]!)), extMul(vStar, s[1]!), extSub(extMul(vStar, s[2]!), kb)];
  }
}

function unpack(acc: Uint32Array, count: number): Ext[] {
  const out: Ext[] = [];
  for (let t = 0; t < count; t++) out.push([acc[4 * t]!, acc[4 * t + 1]!, acc[4 * t + 2]!, acc[4 * t + 3]!]);
  return out;
}

/** Factory of the production oracle, the prover driver's default. */
export const sparseLayerOracle: LayerOracleFactory = (input) => new SparseLayerOracle(input);
