/**
 * Plain TypeScript references of the kernels that have no counterpart in src/field: the sumcheck
 * fold (compat-v1 §10.1 fold form T[j] ← T[j] + r·(T[j+h] − T[j]), h = len/2) in its three
 * variants, and the elementwise extension-vector product. Canonical values in and out.
 */
import { add, mul, sub } from "../field/koalabear.js";
import { extAdd, extMul, extScale, extSub, type Ext } from "../field/extension.js";
import { ExtVector } from "../field/ext-vector.js";
import { KernelError } from "./errors.js";

function halfOf(len: number): number {
  if (len < 2 || len % 2 !== 0)
    throw new KernelError("BAD_LENGTH", `fold needs an even table length ≥ 2, got ${len}`, { len });
  return len / 2;
}

/** Base table, base challenge: out[j] = t[j] + r·(t[j+h] − t[j]). */
export function foldBaseRef(t: Uint32Array, r: number): Uint32Array {
  const h = halfOf(t.length);
  const out = new Uint32Array(h);
  for (let j = 0; j < h; j++) out[j] = add(t[j]!, mul(r, sub(t[h + j]!, t[j]!)));
  return out;
}

/** Base table, extension challenge: out[j] = t[j] + r·(t[j+h] − t[j]) as an extension element. */
export function foldBaseExtRef(t: Uint32Array, r: Ext): ExtVector {
  const h = halfOf(t.length);
  const out = new ExtVector(h);
  for (let j = 0; j < h; j++) {
    const d = sub(t[h + j]!, t[j]!);
    const e = extScale(r, d);
    out.set(j, [add(t[j]!, e[0]), e[1], e[2], e[3]]);
  }
  return out;
}

/** Extension table, extension challenge. */
export function foldExtRef(t: ExtVector, r: Ext): ExtVector {
  const h = halfOf(t.length);
  const out = new ExtVector(h);
  for (let j = 0; j < h; j++) {
    const lo = t.get(j);
    out.set(j, extAdd(lo, extMul(r, extSub(t.get(h + j), lo))));
  }
  return out;
}

/** Elementwise product of two extension vectors of equal length. */
export function extVecMulRef(a: ExtVector, b: ExtVector): ExtVector {
  if (a.length !== b.length)
    throw new KernelError("BAD_LENGTH", `extVecMul: operands have lengths ${a.length} and ${b.length}`);
  const out = new ExtVector(a.length);
  for (let i = 0; i < a.length; i++) out.set(i, extMul(a.get(i), b.get(i)));
  return out;
}
