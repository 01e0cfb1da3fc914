/**
 * The part of a circuit the GKR verifier needs besides its wiring oracle: layer width bits
 * (output layer first) and the input width bits.
 */
import type { Circuit } from "./circuit.js";

/** What the GKR verifier needs of a circuit besides its wiring: the width bits of each layer (output first) and of the input (compat-v1 §10.5). */
export interface CircuitShape {
  /** width_bits of each layer, output layer first. */
  readonly layerWidthBits: readonly number[];
  /** log2 of the padded input width. */
  readonly inputWidthBits: number;
}

/** The shape of a circuit. */
export function shapeOf(circuit: Circuit): CircuitShape {
  return { layerWidthBits: circuit.layers.map((l) => l.widthBits), inputWidthBits: circuit.inputWidthBits };
}

/** Width bits of the vector layer i reads (layer i+1, or the input for the last layer). */
export function shapeInputBits(shape: CircuitShape, i: number): number {
  return i + 1 < shape.layerWidthBits.length ? shape.layerWidthBits[i + 1]! : shape.inputWidthBits;
}
