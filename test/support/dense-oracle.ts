/**
 * Test-only dense layer oracle: the textbook sumcheck of compat-v1 §10.1 over all 2^{2s} pairs
 * (x, y), index x·2^s + y (x block first, variable 0 = MSB of x). It keeps six full tables —
 * LIN[x,y] = lin~(w, x), POW[x,y] = pow3~(w, x), MUL[x,y] = mul~(w, x, y), VX[x,y] = V(x),
 * VY[x,y] = V(y), BETA[x,y] = β(y) — and evaluates
 *   (LIN·VX + POW·VX³)·BETA + MUL·VX·VY
 * at T = 0..4 in every round. It is written with the tuple arithmetic of src/field only (no code
 * shared with the sparse oracle), so it serves as an independent reference, and it is the
 * baseline of the memory benchmark: it allocates 6·16·4^s bytes.
 */
import { EXT_ONE, EXT_ZERO, embed, extAdd, extMul, extScale, extSub, type Ext } from "../../src/field/extension.js";
import { ExtVector } from "../../src/field/ext-vector.js";
import { GateKind } from "../../src/gkr/circuit.js";
import type { LayerOracleFactory, LayerOracleInput, LayerSumcheckOracle } from "../../src/gkr/layer-oracle.js";
import type { RoundMessage } from "../../src/sumcheck/oracle.js";

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

/** A fixed-capacity table whose first `active` entries are live (folding shrinks it in place). */
class DenseTable {
  readonly store: ExtVector;
  active: number;
  constructor(size: number) {
    this.store = new ExtVector(size);
    this.active = size;
  }
  get(i: number): Ext {
    return this.store.get(i);
  }
  set(i: number, e: Ext): void {
    this.store.set(i, e);
  }
  /** t[j] ← t[j] + r·(t[j+h] − t[j]), j < h. */
  fold(r: Ext): void {
    const h = this.active / 2;
    for (let j = 0; j < h; j++) {
      const lo = this.get(j);
      this.set(j, extAdd(lo, extMul(r, extSub(this.get(j + h), lo))));
    }
    this.active = h;
  }
}

export class DenseLayerOracle implements LayerSumcheckOracle {
  readonly numVariables: number;
  readonly degree = 4;
  allocatedBytes = 0;
  private readonly lin: DenseTable;
  private readonly pow: DenseTable;
  private readonly mulT: DenseTable;
  private readonly vx: DenseTable;
  private readonly vy: DenseTable;
  private readonly beta: DenseTable;
  private round = 0;
  private readonly s: number;

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
    this.lin = new DenseTable(size);
    this.pow = new DenseTable(size);
    this.mulT = new DenseTable(size);
    this.vx = new DenseTable(size);
    this.vy = new DenseTable(size);
    this.beta = new DenseTable(size);
    this.allocatedBytes += 6 * 16 * size;
    // Unary predicates over x, replicated over every y.
    const linX: Ext[] = new Array(n).fill(EXT_ZERO);
    const powX: Ext[] = new Array(n).fill(EXT_ZERO);
    for (let g = 0; g < layer.gateKind.length; g++) {
      const wt = extScale(weights[layer.gateOut[g]!]!, layer.gateCoeff[g]!);
      const x = layer.gateIn1[g]!;
      switch (layer.gateKind[g]) {
        case GateKind.Lin: linX[x] = extAdd(linX[x]!, wt); break;
        case GateKind.Pow3: powX[x] = extAdd(powX[x]!, wt); break;
        default: {
          const idx = x * n + layer.gateIn2[g]!;
          this.mulT.set(idx, extAdd(this.mulT.get(idx), wt));
        }
      }
    }
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) {
        const idx = x * n + y;
        this.lin.set(idx, linX[x]!);
        this.pow.set(idx, powX[x]!);
        this.vx.set(idx, embed(below[x]!));
        this.vy.set(idx, embed(below[y]!));
        this.beta.set(idx, y === 0 ? EXT_ONE : EXT_ZERO);
      }
    }
  }

  roundPolynomial(): RoundMessage {
    const h = this.lin.active / 2;
    const sums: Ext[] = [EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO];
    const tables = [this.lin, this.pow, this.mulT, this.vx, this.vy, this.beta];
    for (let i = 0; i < h; i++) {
      const lo = tables.map((t) => t.get(i));
      const diff = tables.map((t, k) => extSub(t.get(i + h), lo[k]!));
      for (let T = 0; T <= 4; T++) {
        const [l, p, m, vx, vy, b] = lo.map((v, k) => extAdd(v, extScale(diff[k]!, T))) as [Ext, Ext, Ext, Ext, Ext, Ext];
        const vx3 = extMul(extMul(vx, vx), vx);
        const term = extAdd(extMul(extAdd(extMul(l, vx), extMul(p, vx3)), b), extMul(extMul(m, vx), vy));
        sums[T] = extAdd(sums[T]!, term);
      }
    }
    return { kind: "evaluations", values: sums };
  }

  bind(r: Ext): void {
    for (const t of [this.lin, this.pow, this.mulT, this.vx, this.vy, this.beta]) t.fold(r);
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
