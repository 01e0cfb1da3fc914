/**
 * Test-only dense layer oracle: the textbook sumcheck of compat-v1 §10.1 over all 2^{2s} pairs
 * (x, y), index x·2^s + y (x block first, variable 0 = MSB of x). It keeps six full tables —
 * LIN[x,y] = lin~(w, x), POW[x,y] = pow3~(w, x), MUL[x,y] = mul~(w, x, y), VX[x,y] = V(x),
 * VY[x,y] = V(y), BETA[x,y] = β(y) — and evaluates
 *   (LIN·VX + POW·VX³)·BETA + MUL·VX·VY
 * at T = 0..4 in every round. It shares no logic with the sparse oracle (only the tested
 * arithmetic helpers: `extMulTo`/`extMulAddTo` and `foldExtInPlace`), so it serves as an
 * independent reference, and it is the baseline of the memory benchmark: it allocates
 * 6·16·4^s bytes.
 */
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, EXT_ZERO, extAdd, extMul, extScale, extSub, type Ext } from "../../src/field/extension.js";
import { ExtVector } from "../../src/field/ext-vector.js";
import { GateKind } from "../../src/gkr/circuit.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import type { RoundMessage } from "../../src/sumcheck/oracle.js";
import { extMulAddTo, extMulTo } from "../../src/field/ext-inline.js";
import { foldExtInPlace } from "../../src/sumcheck/mle.js";

/** eq(point, index) by direct product (MSB-first). */
function eqDirect(point: readonly Ext[], index: number): Ext {
  const n = point.length;
  let acc: Ext = EXT_ONE;
  for (let j = 0; j < n; j++) {
    const bit = (index >>> (n - 1 - j)) & 1;
    acc = extMul(acc, bit === 1 ? point[j]! : extSub(EXT_ONE, point[j]!));
  }
  return acc;
}

export class DenseLayerOracle implements LayerSumcheckOracle {
  readonly numVariables: number;
  readonly degree = 4;
  allocatedBytes = 0;
  private lin: ExtVector;
  private pow: ExtVector;
  private mulT: ExtVector;
  private vx: ExtVector;
  private vy: ExtVector;
  private beta: ExtVector;
  private round = 0;
  private readonly s: number;
  private readonly tmp = new Uint32Array(4);

  constructor(input: LayerOracleInput) {
    const { layer, inputBits: s, below, claims } = input;
    this.s = s;
    this.numVariables = 2 * s;
    const n = 2 ** s;
    const size = n * n;
    const outSize = 2 ** layer.widthBits;
    // Weights w[o] = Σ_k c_k·eq(z_k, o), by direct products.
    const weights: Ext[] = [];
    for (let o = 0; o < outSize; o++) {
      let w = EXT_ZERO;
      for (const c of claims) w = extAdd(w, extMul(c.coeff, eqDirect(c.point, o)));
      weights.push(w);
    }
    this.allocatedBytes += 16 * outSize;
    this.lin = new ExtVector(size);
    this.pow = new ExtVector(size);
    this.mulT = new ExtVector(size);
    this.vx = new ExtVector(size);
    this.vy = new ExtVector(size);
    this.beta = new ExtVector(size);
    this.allocatedBytes += 6 * 16 * size;
    // Unary predicates over x, replicated over every y.
    const linX: Ext[] = new Array(n).fill(EXT_ZERO);
    const powX: Ext[] = new Array(n).fill(EXT_ZERO);
    for (let g = 0; g < layer.gateKind.length; g++) {
      const wt = extScale(weights[layer.gateOut[g]!]!, layer.gateCoeff[g]!);
      const x = layer.gateIn1[g]!;
      switch (layer.gateKind[g]) {
        case GateKind.Lin:
          linX[x] = extAdd(linX[x]!, wt);
          break;
        case GateKind.Pow3:
          powX[x] = extAdd(powX[x]!, wt);
          break;
        default: {
          const idx = x * n + layer.gateIn2[g]!;
          this.mulT.set(idx, extAdd(this.mulT.get(idx), wt));
        }
      }
    }
    const vx = this.vx.data,
      vy = this.vy.data,
      beta = this.beta.data;
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) {
        const idx = x * n + y;
        this.lin.set(idx, linX[x]!);
        this.pow.set(idx, powX[x]!);
        vx[idx] = below[x]!;
        vy[idx] = below[y]!;
        if (y === 0) beta[idx] = 1;
      }
    }
  }

  roundPolynomial(): RoundMessage {
    const len = this.lin.length;
    const h = len / 2;
    const sums = new Uint32Array(20);
    const tables = [this.lin, this.pow, this.mulT, this.vx, this.vy, this.beta].map((t) => t.data);
    const node = new Uint32Array(24); // table k, coordinate c at 4k + c
    const lo = new Uint32Array(24);
    const diff = new Float64Array(24);
    const tmp = this.tmp;
    const t2 = new Uint32Array(4);
    for (let i = 0; i < h; i++) {
      for (let k = 0; k < 6; k++) {
        const d = tables[k]!;
        for (let c = 0; c < 4; c++) {
          const a = d[c * len + i]!;
          lo[4 * k + c] = a;
          diff[4 * k + c] = d[c * len + i + h]! + P - a;
        }
      }
      for (let T = 0; T <= 4; T++) {
        for (let j = 0; j < 24; j++) node[j] = (lo[j]! + T * diff[j]!) % P;
        const [l0, l1, l2, l3, p0, p1, p2, p3, m0, m1, m2, m3, x0, x1, x2, x3, y0, y1, y2, y3, b0, b1, b2, b3] =
          node as unknown as number[];
        // VX³ into t2
        extMulTo(tmp, 0, 1, x0!, x1!, x2!, x3!, x0!, x1!, x2!, x3!);
        extMulTo(t2, 0, 1, tmp[0]!, tmp[1]!, tmp[2]!, tmp[3]!, x0!, x1!, x2!, x3!);
        // LIN·VX + POW·VX³ into tmp
        extMulTo(tmp, 0, 1, l0!, l1!, l2!, l3!, x0!, x1!, x2!, x3!);
        extMulAddTo(tmp, 0, 1, p0!, p1!, p2!, p3!, t2[0]!, t2[1]!, t2[2]!, t2[3]!);
        // (…)·BETA
        extMulAddTo(sums, 4 * T, 1, tmp[0]!, tmp[1]!, tmp[2]!, tmp[3]!, b0!, b1!, b2!, b3!);
        // MUL·VX·VY
        extMulTo(tmp, 0, 1, m0!, m1!, m2!, m3!, x0!, x1!, x2!, x3!);
        extMulAddTo(sums, 4 * T, 1, tmp[0]!, tmp[1]!, tmp[2]!, tmp[3]!, y0!, y1!, y2!, y3!);
      }
    }
    const values: Ext[] = [];
    for (let T = 0; T <= 4; T++) values.push([sums[4 * T]!, sums[4 * T + 1]!, sums[4 * T + 2]!, sums[4 * T + 3]!]);
    return { kind: "evaluations", values };
  }

  bind(r: Ext): void {
    this.lin = foldExtInPlace(this.lin, r);
    this.pow = foldExtInPlace(this.pow, r);
    this.mulT = foldExtInPlace(this.mulT, r);
    this.vx = foldExtInPlace(this.vx, r);
    this.vy = foldExtInPlace(this.vy, r);
    this.beta = foldExtInPlace(this.beta, r);
    this.round++;
  }

  evalX(): Ext {
    if (this.round < this.s) throw new Error("V(x*) is known only after the x block is bound");
    return this.vx.get(0);
  }

  evalY(): Ext {
    if (this.round < this.numVariables) throw new Error("V(y*) is known only after every variable is bound");
    return this.vy.get(0);
  }
}

/** Factory for `proveGkr(…, { oracleFactory: denseLayerOracle })`. */
export const denseLayerOracle: LayerOracleFactory = (input) => new DenseLayerOracle(input);

/** Bytes the dense oracle allocates for a layer with s input bits and s_out output bits. */
export function denseOracleBytes(inputBits: number, outputBits: number): number {
  return 6 * 16 * 4 ** inputBits + 16 * 2 ** outputBits;
}
