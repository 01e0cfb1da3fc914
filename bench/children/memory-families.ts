/**
 * The generic two-layer circuits of the memory benchmark: every layer and the input have
 * 2^bits wires; per output wire o the family's gates read affine permutations of o.
 *   mixed = Lin + Mul, linear = Lin + Lin, product = Mul, cube = Pow3 + Lin plus a constant.
 * Deterministic (fixed xorshift seeds), built directly as typed arrays.
 */
import { P } from "../../src/field/koalabear.js";
import { type Circuit, GateKind, type Layer } from "../../src/gkr/circuit.js";

export type Family = "mixed" | "linear" | "product" | "cube";
export const FAMILIES: readonly Family[] = ["mixed", "linear", "product", "cube"];

/** Gates per output wire of each family (kinds in order). */
const PATTERN: Record<Family, readonly GateKind[]> = {
  mixed: [GateKind.Lin, GateKind.Mul],
  linear: [GateKind.Lin, GateKind.Lin],
  product: [GateKind.Mul],
  cube: [GateKind.Pow3, GateKind.Lin],
};

/** Deterministic 32-bit generator (xorshift32). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** One layer of 2^bits wires reading 2^bits wires: per wire o the family's gates, inputs at affine permutations of o. */
function familyLayer(family: Family, bits: number, seed: number): Layer {
  const n = 2 ** bits;
  const mask = n - 1;
  const kinds = PATTERN[family];
  const g = kinds.length * n;
  const next = rng(seed);
  const perm = () => {
    const a = (next() | 1) & mask,
      b = next() & mask;
    return (o: number) => (Math.imul(a || 1, o) + b) & mask;
  };
  const p1 = perm(),
    p2 = perm(),
    p3 = perm();
  const layer: Layer = {
    widthBits: bits,
    gateKind: new Uint8Array(g),
    gateOut: new Uint32Array(g),
    gateIn1: new Uint32Array(g),
    gateIn2: new Uint32Array(g),
    gateCoeff: new Uint32Array(g),
    constWire: new Uint32Array(family === "cube" ? n : 0),
    constValue: new Uint32Array(family === "cube" ? n : 0),
  };
  const k = layer.gateKind as Uint8Array,
    out = layer.gateOut as Uint32Array,
    i1 = layer.gateIn1 as Uint32Array,
    i2 = layer.gateIn2 as Uint32Array,
    c = layer.gateCoeff as Uint32Array;
  let idx = 0;
  for (let o = 0; o < n; o++) {
    kinds.forEach((kind, j) => {
      k[idx] = kind;
      out[idx] = o;
      i1[idx] = j === 0 ? p1(o) : p2(o);
      i2[idx] = kind === GateKind.Mul ? p3(o) : i1[idx]!;
      c[idx] = next() % P;
      idx++;
    });
    if (family === "cube") {
      (layer.constWire as Uint32Array)[o] = o;
      (layer.constValue as Uint32Array)[o] = next() % P;
    }
  }
  return layer;
}

export function familyCircuit(family: Family, bits: number): Circuit {
  return {
    inputWidthBits: bits,
    layers: [familyLayer(family, bits, 0x9e3779b9), familyLayer(family, bits, 0x7f4a7c15)],
  };
}

export function familyInput(bits: number): Uint32Array {
  const next = rng(12345);
  const v = new Uint32Array(2 ** bits);
  for (let i = 0; i < v.length; i++) v[i] = next() % P;
  return v;
}
