/**
 * Wiring oracle from the explicit sparse gate and constant lists (compat-v1 §10.6 "explicit
 * sparse table"): one pass over the layer's gates with eq tables, O(#gates + 2^s_out + 2^s) per
 * evaluation.
 */
import { add, mul } from "../../field/koalabear.js";
import { EXT_ONE, type Ext } from "../../field/extension.js";
import type { ExtVector } from "../../field/ext-vector.js";
import { extMulAddTo, extMulTo } from "../../field/ext-inline.js";
import { eqTable } from "../../sumcheck/mle.js";
import { type Circuit, GateKind, inputBitsOf, validateCircuit } from "../circuit.js";
import { type Claim, claimWeights } from "../claims.js";
import { CircuitError } from "../errors.js";
import type { LayerPredicates, WiringOracle } from "./oracle.js";

/**
 * The wiring oracle from the explicit gate table: pred_kind(z, x, y) = Σ over the layer's gates of eq products (compat-v1 §10.5). The reference the derived wiring is audited against.
 * @example
 *   prepare("update", {}, { wiring: (c) => new TableWiring(c.circuit) });
 */
export class TableWiring implements WiringOracle {
  private readonly circuit: Circuit;
  private cached: { layer: number; claims: readonly Claim[]; weights: ExtVector } | null = null;

  /** @throws CircuitError if the circuit is malformed (`validateCircuit`). */
  constructor(circuit: Circuit) {
    validateCircuit(circuit);
    this.circuit = circuit;
  }

  /** @throws CircuitError `BAD_LAYER_INDEX`, `BAD_GATE_KIND` or `BAD_POINT`. */
  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    this.checkLayer(layer);
    if (kind !== GateKind.Lin && kind !== GateKind.Mul && kind !== GateKind.Pow3) {
      throw new CircuitError("BAD_GATE_KIND", `unknown gate kind ${kind} (0 Lin, 1 Mul, 2 Pow3)`);
    }
    const sums = this.gateSums(
      layer,
      claimWeights([{ point: z, coeff: EXT_ONE }], this.circuit.layers[layer]!.widthBits),
      x,
      kind === GateKind.Mul ? y : null,
      kind,
    );
    return kind === GateKind.Lin ? sums.lin : kind === GateKind.Mul ? sums.mul : sums.pow3;
  }

  /** @throws CircuitError `BAD_LAYER_INDEX` or `BAD_POINT`. */
  evalConst(layer: number, z: readonly Ext[]): Ext {
    this.checkLayer(layer);
    return this.constSum(layer, claimWeights([{ point: z, coeff: EXT_ONE }], this.circuit.layers[layer]!.widthBits));
  }

  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    this.checkLayer(layer);
    return this.gateSums(layer, this.weightsFor(layer, claims), x, y, null);
  }

  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    this.checkLayer(layer);
    return this.constSum(layer, this.weightsFor(layer, claims));
  }

  private checkLayer(layer: number): void {
    if (!Number.isInteger(layer) || layer < 0 || layer >= this.circuit.layers.length) {
      throw new CircuitError("BAD_LAYER_INDEX", `layer index ${layer} outside [0, ${this.circuit.layers.length})`);
    }
  }

  /** The weights table of the last (layer, claims) pair is reused by the following call. */
  private weightsFor(layer: number, claims: readonly Claim[]): ExtVector {
    const c = this.cached;
    if (c && c.layer === layer && c.claims === claims) return c.weights;
    const weights = claimWeights(claims, this.circuit.layers[layer]!.widthBits);
    this.cached = { layer, claims, weights };
    return weights;
  }

  private constSum(layer: number, weights: ExtVector): Ext {
    const { constWire, constValue } = this.circuit.layers[layer]!;
    const w = weights.data;
    const W = weights.length;
    let a0 = 0,
      a1 = 0,
      a2 = 0,
      a3 = 0;
    for (let c = 0; c < constWire.length; c++) {
      const o = constWire[c]!;
      const v = constValue[c]!;
      a0 = add(a0, mul(v, w[o]!));
      a1 = add(a1, mul(v, w[W + o]!));
      a2 = add(a2, mul(v, w[2 * W + o]!));
      a3 = add(a3, mul(v, w[3 * W + o]!));
    }
    return [a0, a1, a2, a3];
  }

  /** Σ over the gates (of `only`, or of every kind) of coeff·w[out]·eq(x, in1)·(Mul: eq(y, in2)). */
  private gateSums(
    layer: number,
    weights: ExtVector,
    x: readonly Ext[],
    y: readonly Ext[] | null,
    only: GateKind | null,
  ): LayerPredicates {
    const l = this.circuit.layers[layer]!;
    const s = inputBitsOf(this.circuit, layer);
    if (x.length !== s)
      throw new CircuitError(
        "BAD_POINT",
        `layer ${layer}: x has ${x.length} coordinates, the layer below has ${s} width bits`,
      );
    const needY = only === null ? hasKind(l.gateKind, GateKind.Mul) : only === GateKind.Mul;
    if (needY && (y === null || y.length !== s)) {
      throw new CircuitError(
        "BAD_POINT",
        `layer ${layer}: y has ${y === null ? 0 : y.length} coordinates, the layer below has ${s} width bits`,
      );
    }
    const ex = eqTable(x);
    const ey = needY ? eqTable(y!) : null;
    const e = ex.data,
      n = ex.length;
    const f = ey ? ey.data : e;
    const w = weights.data,
      W = weights.length;
    const acc = new Uint32Array(12); // lin, mul, pow3 at offsets 0, 4, 8
    const tmp = new Uint32Array(8);
    const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff } = l;
    for (let g = 0; g < gateKind.length; g++) {
      const kind = gateKind[g]!;
      if (only !== null && kind !== only) continue;
      const o = gateOut[g]!;
      const c = gateCoeff[g]!;
      const i1 = gateIn1[g]!;
      // coeff·w[out]
      const t0 = mul(c, w[o]!),
        t1 = mul(c, w[W + o]!),
        t2 = mul(c, w[2 * W + o]!),
        t3 = mul(c, w[3 * W + o]!);
      if (kind === GateKind.Mul) {
        const i2 = gateIn2[g]!;
        extMulTo(tmp, 0, 1, t0, t1, t2, t3, e[i1]!, e[n + i1]!, e[2 * n + i1]!, e[3 * n + i1]!);
        extMulAddTo(acc, 4, 1, tmp[0]!, tmp[1]!, tmp[2]!, tmp[3]!, f[i2]!, f[n + i2]!, f[2 * n + i2]!, f[3 * n + i2]!);
      } else {
        extMulAddTo(
          acc,
          kind === GateKind.Lin ? 0 : 8,
          1,
          t0,
          t1,
          t2,
          t3,
          e[i1]!,
          e[n + i1]!,
          e[2 * n + i1]!,
          e[3 * n + i1]!,
        );
      }
    }
    return {
      lin: [acc[0]!, acc[1]!, acc[2]!, acc[3]!],
      mul: [acc[4]!, acc[5]!, acc[6]!, acc[7]!],
      pow3: [acc[8]!, acc[9]!, acc[10]!, acc[11]!],
    };
  }
}

function hasKind(kinds: Uint8Array, kind: GateKind): boolean {
  for (let g = 0; g < kinds.length; g++) if (kinds[g] === kind) return true;
  return false;
}
