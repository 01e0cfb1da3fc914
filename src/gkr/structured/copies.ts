/**
 * K copies of a structured circuit side by side (docs/profile-v2.md §10): copy c of every layer
 * (and of the input) occupies wires c·2^w … c·2^w + 2^w − 1, so the copy index is the top
 * k = log2 K variables of every point.
 *
 * Prover side: `replicateStructuredCircuit` materialises the gates and blocks of all copies.
 * Verifier side: `CopiesWiring` never does. With z = (z_c, z'), x = (x_c, x'), y = (y_c, y'):
 *   lin~_K(z, x) = lin~(z', x')·Π_j (z_j·x_j + (1 − z_j)(1 − x_j)),
 *   mul~_K(z, x, y) = mul~(z', x', y')·Π_j (z_j·x_j·y_j + (1 − z_j)(1 − x_j)(1 − y_j)),
 *   const~_K(z) = const~(z')  (Σ_c eq(z_c, c) = 1),
 * pow3~ as lin~, so the wiring cost is that of one copy plus O(k) per claim, whatever K.
 */
import { add, sub } from "../../field/koalabear.js";
import { EXT_ZERO, extMul, type Ext } from "../../field/extension.js";
import { extMulTo } from "../../field/ext-inline.js";
import { type Gate, GateKind, makeLayer } from "../circuit.js";
import type { Claim } from "../claims.js";
import { CircuitError } from "../errors.js";
import { type LinearBlockGroup, type StructuredCircuit, type StructuredLayer, structuredLayer } from "./linear.js";
import { type LayerPredicates, type WiringOracle, combinedConst, combinedPredicates } from "../wiring/oracle.js";

/** Largest copy-index width (K ≤ 2^12 = 4096). */
export const MAX_COPY_BITS = 12;

function checkCopyBits(k: number): void {
  if (!Number.isInteger(k) || k < 0 || k > MAX_COPY_BITS)
    throw new CircuitError("BAD_OPTION", `copy bits must be an integer in [0, ${MAX_COPY_BITS}], got ${k}`);
}

/**
 * The circuit of 2^k copies of `circuit` (layer width bits + k each, input width bits + k).
 * @throws CircuitError `BAD_OPTION` for k outside [0, 12], `BAD_WIDTH` when a width would exceed 30 bits.
 */
export function replicateStructuredCircuit(circuit: StructuredCircuit, k: number): StructuredCircuit {
  checkCopyBits(k);
  const K = 2 ** k;
  const bitsBelow = (i: number) =>
    i + 1 < circuit.layers.length ? circuit.layers[i + 1]!.widthBits : circuit.inputWidthBits;
  if (circuit.inputWidthBits + k > 30 || circuit.layers.some((l) => l.widthBits + k > 30))
    throw new CircuitError("BAD_WIDTH", "replicated widths would exceed 30 bits");
  const layers: StructuredLayer[] = circuit.layers.map((layer, i) => {
    const so = 2 ** layer.widthBits,
      si = 2 ** bitsBelow(i);
    const n = layer.gateKind.length;
    const gates: Gate[] = new Array(n * K);
    const consts: { wire: number; value: number }[] = [];
    for (let c = 0; c < K; c++) {
      for (let g = 0; g < n; g++) {
        gates[c * n + g] = {
          kind: layer.gateKind[g] as GateKind,
          out: c * so + layer.gateOut[g]!,
          in1: c * si + layer.gateIn1[g]!,
          in2: c * si + layer.gateIn2[g]!,
          coeff: layer.gateCoeff[g]!,
        };
      }
      for (let j = 0; j < layer.constWire.length; j++)
        consts.push({ wire: c * so + layer.constWire[j]!, value: layer.constValue[j]! });
    }
    const groups: LinearBlockGroup[] = layer.linear.map((g) => {
      const nb = g.outBase.length;
      const outBase = new Uint32Array(nb * K),
        inBase = new Uint32Array(nb * K);
      for (let c = 0; c < K; c++) {
        for (let b = 0; b < nb; b++) {
          outBase[c * nb + b] = c * so + g.outBase[b]!;
          inBase[c * nb + b] = c * si + g.inBase[b]!;
        }
      }
      return { ...g, outBase, inBase };
    });
    return structuredLayer(makeLayer(layer.widthBits + k, gates, consts), groups);
  });
  return { inputWidthBits: circuit.inputWidthBits + k, layers };
}

/** Π_j (a_j·b_j + (1 − a_j)(1 − b_j)) over the first k coordinates. */
function pairFactor(a: readonly Ext[], b: readonly Ext[], k: number): Ext {
  const t = FACTOR_BOTH,
    u = FACTOR_NONE;
  let c0 = 1,
    c1 = 0,
    c2 = 0,
    c3 = 0;
  for (let j = 0; j < k; j++) {
    const x = a[j]!,
      y = b[j]!;
    extMulTo(t, 0, 1, x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]);
    extMulTo(
      u,
      0,
      1,
      sub(1, x[0]),
      sub(0, x[1]),
      sub(0, x[2]),
      sub(0, x[3]),
      sub(1, y[0]),
      sub(0, y[1]),
      sub(0, y[2]),
      sub(0, y[3]),
    );
    extMulTo(t, 0, 1, c0, c1, c2, c3, add(t[0]!, u[0]!), add(t[1]!, u[1]!), add(t[2]!, u[2]!), add(t[3]!, u[3]!));
    c0 = t[0]!;
    c1 = t[1]!;
    c2 = t[2]!;
    c3 = t[3]!;
  }
  return [c0, c1, c2, c3];
}

/** Π_j (a_j·b_j·c_j + (1 − a_j)(1 − b_j)(1 − c_j)) over the first k coordinates. */
function tripleFactor(a: readonly Ext[], b: readonly Ext[], c: readonly Ext[], k: number): Ext {
  const t = FACTOR_BOTH,
    u = FACTOR_NONE;
  let c0 = 1,
    c1 = 0,
    c2 = 0,
    c3 = 0;
  for (let j = 0; j < k; j++) {
    const x = a[j]!,
      y = b[j]!,
      z = c[j]!;
    extMulTo(t, 0, 1, x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]);
    extMulTo(t, 0, 1, t[0]!, t[1]!, t[2]!, t[3]!, z[0], z[1], z[2], z[3]);
    extMulTo(
      u,
      0,
      1,
      sub(1, x[0]),
      sub(0, x[1]),
      sub(0, x[2]),
      sub(0, x[3]),
      sub(1, y[0]),
      sub(0, y[1]),
      sub(0, y[2]),
      sub(0, y[3]),
    );
    extMulTo(u, 0, 1, u[0]!, u[1]!, u[2]!, u[3]!, sub(1, z[0]), sub(0, z[1]), sub(0, z[2]), sub(0, z[3]));
    extMulTo(t, 0, 1, c0, c1, c2, c3, add(t[0]!, u[0]!), add(t[1]!, u[1]!), add(t[2]!, u[2]!), add(t[3]!, u[3]!));
    c0 = t[0]!;
    c1 = t[1]!;
    c2 = t[2]!;
    c3 = t[3]!;
  }
  return [c0, c1, c2, c3];
}

/** Scratch of the copy factors (the "all" and "none" products of one coordinate). */
const FACTOR_BOTH = new Uint32Array(4);
const FACTOR_NONE = new Uint32Array(4);

/**
 * Per layer of a structured circuit: true when it has no Mul gate, so that its mul~ is identically
 * zero (the linear block groups are Lin and Pow3 only). The hint `CopiesWiring` takes.
 */
export function mulFreeLayers(circuit: StructuredCircuit): boolean[] {
  return circuit.layers.map((layer) => !layer.gateKind.some((g) => g === GateKind.Mul));
}

/** Wiring of 2^k copies from the wiring of one copy (see the module comment). */
export class CopiesWiring implements WiringOracle {
  private readonly single: WiringOracle;
  private readonly k: number;
  private readonly mulFree: readonly boolean[];

  /**
   * @param mulFree optional, per layer: true where the layer has no Mul gate (`mulFreeLayers` of
   *   the circuit the single wiring describes); there `evalCombined` returns mul = 0 without the
   *   second, copy-factor-weighted combination of the single wiring. Default: none.
   * @throws CircuitError `BAD_OPTION` for k outside [0, 12].
   */
  constructor(single: WiringOracle, copyBits: number, mulFree: readonly boolean[] = []) {
    checkCopyBits(copyBits);
    this.single = single;
    this.k = copyBits;
    this.mulFree = mulFree;
  }

  private split(p: readonly Ext[], what: string): readonly Ext[] {
    if (p.length < this.k)
      throw new CircuitError("BAD_POINT", `${what} has ${p.length} coordinates, fewer than the ${this.k} copy bits`);
    return p.slice(this.k);
  }

  evalPredicate(layer: number, kind: GateKind, z: readonly Ext[], x: readonly Ext[], y: readonly Ext[]): Ext {
    const v = this.single.evalPredicate(
      layer,
      kind,
      this.split(z, "z"),
      this.split(x, "x"),
      kind === GateKind.Mul ? this.split(y, "y") : y.slice(Math.min(this.k, y.length)),
    );
    return extMul(v, kind === GateKind.Mul ? tripleFactor(z, x, y, this.k) : pairFactor(z, x, this.k));
  }

  evalConst(layer: number, z: readonly Ext[]): Ext {
    return this.single.evalConst(layer, this.split(z, "z"));
  }

  evalCombined(layer: number, claims: readonly Claim[], x: readonly Ext[], y: readonly Ext[]): LayerPredicates {
    const xs = this.split(x, "x"),
      ys = this.split(y, "y");
    const unary = claims.map((c) => ({
      point: this.split(c.point, "claim point"),
      coeff: extMul(c.coeff, pairFactor(c.point, x, this.k)),
    }));
    if (this.mulFree[layer] === true) {
      const u = combinedPredicates(this.single, layer, unary, xs, ys);
      return { lin: u.lin, pow3: u.pow3, mul: EXT_ZERO };
    }
    const binary = claims.map((c) => ({
      point: this.split(c.point, "claim point"),
      coeff: extMul(c.coeff, tripleFactor(c.point, x, y, this.k)),
    }));
    const u = combinedPredicates(this.single, layer, unary, xs, ys);
    const m = combinedPredicates(this.single, layer, binary, xs, ys);
    return { lin: u.lin, pow3: u.pow3, mul: m.mul };
  }

  evalConstCombined(layer: number, claims: readonly Claim[]): Ext {
    return combinedConst(
      this.single,
      layer,
      claims.map((c) => ({ point: this.split(c.point, "claim point"), coeff: c.coeff })),
    );
  }
}
