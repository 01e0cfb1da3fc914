/**
 * Recognising layers with identical gate lists (compat-v1 §7 layers; e.g. the Poseidon2 rounds of
 * one kind within a stretch of equal wire placement), so a derived wiring derives and audits each
 * distinct gate list once. Constants are not compared (round constants differ between layers).
 */
import type { Layer } from "../circuit.js";

function fold(h: number, arr: ArrayLike<number>): number {
  for (let i = 0; i < arr.length; i++) h = Math.imul(h ^ arr[i]!, 0x01000193);
  return h;
}

/** A 32-bit FNV-style fingerprint of the layer's width, input width and gate arrays. */
export function gateFingerprint(layer: Layer, inBits: number): number {
  let h = Math.imul(0x811c9dc5 ^ layer.widthBits, 0x01000193);
  h = Math.imul(h ^ inBits, 0x01000193);
  h = Math.imul(h ^ layer.gateKind.length, 0x01000193);
  h = fold(h, layer.gateKind);
  h = fold(h, layer.gateOut);
  h = fold(h, layer.gateIn1);
  h = fold(h, layer.gateIn2);
  return fold(h, layer.gateCoeff) >>> 0;
}

function same(x: ArrayLike<number>, y: ArrayLike<number>): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** True iff both layers have the same width and exactly the same gates in the same order. */
export function sameGates(a: Layer, b: Layer): boolean {
  return (
    a.widthBits === b.widthBits &&
    same(a.gateKind, b.gateKind) &&
    same(a.gateOut, b.gateOut) &&
    same(a.gateIn1, b.gateIn1) &&
    same(a.gateIn2, b.gateIn2) &&
    same(a.gateCoeff, b.gateCoeff)
  );
}

/** Layers seen so far, by fingerprint, with a value derived from each. */
export class GateLayerIndex<T> {
  private readonly byHash = new Map<number, { layer: Layer; inBits: number; value: T }[]>();

  /** The value stored for a layer with the same gates and input width, if any. */
  find(layer: Layer, inBits: number, hash: number): T | undefined {
    for (const e of this.byHash.get(hash) ?? []) if (e.inBits === inBits && sameGates(e.layer, layer)) return e.value;
    return undefined;
  }

  add(layer: Layer, inBits: number, hash: number, value: T): void {
    let list = this.byHash.get(hash);
    if (!list) this.byHash.set(hash, (list = []));
    list.push({ layer, inBits, value });
  }
}
