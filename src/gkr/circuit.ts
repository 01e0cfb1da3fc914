/**
 * Layered-circuit IR (compat-v1 §7).
 *
 * `layers[0]` is the output layer; layer i reads the values of layer i+1, and the last layer
 * reads the input vector. Every layer vector (and the input) is zero-padded to 2^widthBits.
 * Gates accumulate into their output wire:
 *   V_i[w] = Σ consts at w + Σ_Lin coeff·V[in1] + Σ_Mul coeff·V[in1]·V[in2] + Σ_Pow3 coeff·V[in1]³.
 *
 * Gates are stored as a structure of arrays (one typed array per field) because compiled
 * circuits hold hundreds of thousands of gates; `gateAt` gives the object view.
 */
import { P, add, mul } from "../field/koalabear.js";
import { CircuitError } from "./errors.js";

/** Gate kind tags (the values are committed, compat-v1 §7). */
export const GateKind = Object.freeze({
  Lin: 0,
  Mul: 1,
  Pow3: 2,
} as const);
export type GateKind = (typeof GateKind)[keyof typeof GateKind];
export declare namespace GateKind {
  type Lin = typeof GateKind.Lin;
  type Mul = typeof GateKind.Mul;
  type Pow3 = typeof GateKind.Pow3;
}

/** Object view of one gate. For Lin and Pow3, in2 = in1. */
export interface Gate {
  kind: GateKind;
  out: number;
  in1: number;
  in2: number;
  coeff: number;
}

/** One layer: gates and constants in emission order, structure-of-arrays. */
export interface Layer {
  /** log2 of the padded width of this layer's value vector. */
  readonly widthBits: number;
  readonly gateKind: Uint8Array;
  readonly gateOut: Uint32Array;
  readonly gateIn1: Uint32Array;
  readonly gateIn2: Uint32Array;
  /** Canonical coefficients in [0, p). */
  readonly gateCoeff: Uint32Array;
  readonly constWire: Uint32Array;
  /** Canonical constant values in [0, p). */
  readonly constValue: Uint32Array;
}

/** A layered arithmetic circuit (compat-v1 §10.1): gate layers from the output layer down, each reading the layer below; the last reads the input vector of 2^inputWidthBits base elements. Built by the SMT compiler or `CircuitBuilder`; checked by `validateCircuit` (`CircuitError`). */
export interface Circuit {
  /** Output layer first. */
  readonly layers: readonly Layer[];
  /** log2 of the padded input width. */
  readonly inputWidthBits: number;
}

/** width_bits(n) = ⌈log2(max(n, 1))⌉. */
export function widthBits(n: number): number {
  let b = 0;
  while (2 ** b < Math.max(n, 1)) b++;
  return b;
}

/** Number of gates of a layer. */
export function gateCount(layer: Layer): number {
  return layer.gateKind.length;
}

/** Number of constants of a layer. */
export function constCount(layer: Layer): number {
  return layer.constWire.length;
}

/** Object view of gate g of a layer. */
export function gateAt(layer: Layer, g: number): Gate {
  return {
    kind: layer.gateKind[g] as GateKind,
    out: layer.gateOut[g]!,
    in1: layer.gateIn1[g]!,
    in2: layer.gateIn2[g]!,
    coeff: layer.gateCoeff[g]!,
  };
}

/** Width bits of the vector layer i reads (the next layer, or the input). */
export function inputBitsOf(circuit: Circuit, i: number): number {
  return i + 1 < circuit.layers.length ? circuit.layers[i + 1]!.widthBits : circuit.inputWidthBits;
}

/** Builds a Layer from gate and constant lists (copies into typed arrays; does not validate). */
export function makeLayer(
  widthBits: number,
  gates: readonly Gate[],
  consts: readonly { wire: number; value: number }[] = [],
): Layer {
  const n = gates.length;
  const layer: Layer = {
    widthBits,
    gateKind: new Uint8Array(n),
    gateOut: new Uint32Array(n),
    gateIn1: new Uint32Array(n),
    gateIn2: new Uint32Array(n),
    gateCoeff: new Uint32Array(n),
    constWire: new Uint32Array(consts.length),
    constValue: new Uint32Array(consts.length),
  };
  gates.forEach((g, i) => {
    (layer.gateKind as Uint8Array)[i] = g.kind;
    (layer.gateOut as Uint32Array)[i] = g.out;
    (layer.gateIn1 as Uint32Array)[i] = g.in1;
    (layer.gateIn2 as Uint32Array)[i] = g.in2;
    (layer.gateCoeff as Uint32Array)[i] = g.coeff;
  });
  consts.forEach((c, i) => {
    (layer.constWire as Uint32Array)[i] = c.wire;
    (layer.constValue as Uint32Array)[i] = c.value;
  });
  return layer;
}

/**
 * Rejects malformed circuits before proving: no layers, width bits outside [0, 30],
 * unknown gate kinds, unary gates with in2 ≠ in1, wires outside their layer, coefficients or
 * constants ≥ p.
 * @throws CircuitError naming the layer, the gate or constant index and the rule.
 */
export function validateCircuit(circuit: Circuit): void {
  const D = circuit.layers.length;
  if (D === 0) throw new CircuitError("EMPTY_CIRCUIT", "circuit has no layers");
  const checkBits = (b: number, what: string) => {
    if (!Number.isInteger(b) || b < 0 || b > 30)
      throw new CircuitError("BAD_WIDTH", `${what} width bits must be an integer in [0, 30], got ${b}`);
  };
  checkBits(circuit.inputWidthBits, "input");
  for (let i = 0; i < D; i++) {
    const layer = circuit.layers[i]!;
    checkBits(layer.widthBits, `layer ${i}`);
    const outSize = 2 ** layer.widthBits;
    const inSize = 2 ** inputBitsOf(circuit, i);
    const n = layer.gateKind.length;
    if (
      layer.gateOut.length !== n ||
      layer.gateIn1.length !== n ||
      layer.gateIn2.length !== n ||
      layer.gateCoeff.length !== n
    ) {
      throw new CircuitError("BAD_WIDTH", `layer ${i}: gate arrays have different lengths`);
    }
    for (let g = 0; g < n; g++) {
      const kind = layer.gateKind[g]!;
      const where = `layer ${i} gate ${g}`;
      if (kind > 2)
        throw new CircuitError("BAD_GATE_KIND", `${where}: unknown gate kind ${kind} (0 Lin, 1 Mul, 2 Pow3)`, {
          layer: i,
          gate: g,
        });
      if (kind !== GateKind.Mul && layer.gateIn2[g] !== layer.gateIn1[g]) {
        throw new CircuitError(
          "UNARY_IN2_MISMATCH",
          `${where}: unary gate has in2 ${layer.gateIn2[g]} ≠ in1 ${layer.gateIn1[g]}`,
          { layer: i, gate: g },
        );
      }
      if (layer.gateOut[g]! >= outSize)
        throw new CircuitError(
          "WIRE_OUT_OF_RANGE",
          `${where}: out wire ${layer.gateOut[g]} outside layer width ${outSize}`,
          { layer: i, gate: g },
        );
      if (layer.gateIn1[g]! >= inSize || layer.gateIn2[g]! >= inSize) {
        throw new CircuitError(
          "WIRE_OUT_OF_RANGE",
          `${where}: input wire outside the width ${inSize} of the layer below`,
          { layer: i, gate: g },
        );
      }
      if (layer.gateCoeff[g]! >= P)
        throw new CircuitError("NON_CANONICAL_COEFF", `${where}: coefficient ${layer.gateCoeff[g]} ≥ p`, {
          layer: i,
          gate: g,
        });
    }
    if (layer.constValue.length !== layer.constWire.length)
      throw new CircuitError("BAD_WIDTH", `layer ${i}: constant arrays have different lengths`);
    for (let c = 0; c < layer.constWire.length; c++) {
      if (layer.constWire[c]! >= outSize)
        throw new CircuitError(
          "WIRE_OUT_OF_RANGE",
          `layer ${i} const ${c}: wire ${layer.constWire[c]} outside layer width ${outSize}`,
          { layer: i, const: c },
        );
      if (layer.constValue[c]! >= P)
        throw new CircuitError("NON_CANONICAL_COEFF", `layer ${i} const ${c}: value ${layer.constValue[c]} ≥ p`, {
          layer: i,
          const: c,
        });
    }
  }
}

/** Evaluates one layer from the vector below (length 2^inputBits) into a new vector of 2^widthBits. */
export function evaluateLayer(layer: Layer, below: Uint32Array): Uint32Array {
  const out = new Uint32Array(2 ** layer.widthBits);
  const { gateKind, gateOut, gateIn1, gateIn2, gateCoeff, constWire, constValue } = layer;
  for (let c = 0; c < constWire.length; c++) out[constWire[c]!] = add(out[constWire[c]!]!, constValue[c]!);
  for (let g = 0; g < gateKind.length; g++) {
    const a = below[gateIn1[g]!]!;
    let v: number;
    switch (gateKind[g]) {
      case GateKind.Lin:
        v = a;
        break;
      case GateKind.Mul:
        v = mul(a, below[gateIn2[g]!]!);
        break;
      default:
        v = mul(mul(a, a), a);
        break;
    }
    const o = gateOut[g]!;
    out[o] = add(out[o]!, mul(gateCoeff[g]!, v));
  }
  return out;
}

/**
 * The input vector zero-padded to 2^inputWidthBits, every value checked canonical.
 * @throws CircuitError `INPUT_WIDTH` if the input is longer than 2^inputWidthBits or holds a non-canonical value.
 */
export function padInput(circuit: Circuit, input: ArrayLike<number>): Uint32Array {
  const size = 2 ** circuit.inputWidthBits;
  if (input.length > size)
    throw new CircuitError(
      "INPUT_WIDTH",
      `input has ${input.length} values, more than the circuit's 2^${circuit.inputWidthBits} = ${size}`,
    );
  const padded = new Uint32Array(size);
  for (let k = 0; k < input.length; k++) {
    const v = input[k]!;
    if (!Number.isInteger(v) || v < 0 || v >= P)
      throw new CircuitError("INPUT_WIDTH", `input[${k}] = ${v} is not a canonical field element`);
    padded[k] = v;
  }
  return padded;
}

/**
 * Evaluates every layer. `input` may be shorter than 2^inputWidthBits (it is zero-padded).
 * Returns the witness: layer vectors output first, the padded input vector last
 * (length layers.length + 1).
 * @throws CircuitError `INPUT_WIDTH` if the input is longer than 2^inputWidthBits or holds a non-canonical value.
 */
export function evaluateCircuit(circuit: Circuit, input: ArrayLike<number>): Uint32Array[] {
  const padded = padInput(circuit, input);
  const values: Uint32Array[] = new Array(circuit.layers.length + 1);
  values[circuit.layers.length] = padded;
  for (let i = circuit.layers.length - 1; i >= 0; i--) {
    const below = values[i + 1]!;
    const layer = circuit.layers[i]!;
    if (below.length !== 2 ** inputBitsOf(circuit, i))
      throw new CircuitError("BAD_WIDTH", `layer ${i} reads a vector of the wrong width`);
    values[i] = evaluateLayer(layer, below);
  }
  return values;
}
