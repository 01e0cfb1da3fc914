/**
 * Vector operations over base-field elements stored in `Uint32Array` (canonical values).
 * These are the plain TypeScript references for the WASM kernels in `src/kernels`.
 */
import { add, mul, sub } from "./koalabear.js";
import { FieldError } from "./errors.js";

function sameLength(a: ArrayLike<number>, b: ArrayLike<number>, op: string): void {
  if (a.length !== b.length) {
    throw new FieldError("BAD_LENGTH", `${op}: operands have lengths ${a.length} and ${b.length}`);
  }
}

/** out[i] = a[i] + b[i]. */
export function vecAdd(a: Uint32Array, b: Uint32Array, out = new Uint32Array(a.length)): Uint32Array {
  sameLength(a, b, "vecAdd");
  for (let i = 0; i < a.length; i++) out[i] = add(a[i]!, b[i]!);
  return out;
}

/** out[i] = a[i] − b[i]. */
export function vecSub(a: Uint32Array, b: Uint32Array, out = new Uint32Array(a.length)): Uint32Array {
  sameLength(a, b, "vecSub");
  for (let i = 0; i < a.length; i++) out[i] = sub(a[i]!, b[i]!);
  return out;
}

/** out[i] = a[i] · b[i]. */
export function vecMul(a: Uint32Array, b: Uint32Array, out = new Uint32Array(a.length)): Uint32Array {
  sameLength(a, b, "vecMul");
  for (let i = 0; i < a.length; i++) out[i] = mul(a[i]!, b[i]!);
  return out;
}

/** out[i] = s · a[i]. */
export function vecScale(a: Uint32Array, s: number, out = new Uint32Array(a.length)): Uint32Array {
  for (let i = 0; i < a.length; i++) out[i] = mul(a[i]!, s);
  return out;
}

/** Σ a[i] · b[i]. */
export function innerProduct(a: Uint32Array, b: Uint32Array): number {
  sameLength(a, b, "innerProduct");
  let acc = 0;
  for (let i = 0; i < a.length; i++) acc = add(acc, mul(a[i]!, b[i]!));
  return acc;
}
