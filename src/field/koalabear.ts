/**
 * KoalaBear prime field F_p, p = 2^31 − 2^24 + 1 = 2130706433 (compat-v1 §1–2, Plonky3 0.4.3
 * `koala-bear`). Elements are plain JavaScript numbers holding the canonical residue in [0, p).
 * Montgomery form is never used on this side of the WASM boundary.
 *
 * Multiplication uses a floating-point quotient estimate and exact 32-bit wrap-around
 * arithmetic (`Math.imul`), because the 62-bit product of two residues is not exact as a double.
 */
import { FieldError } from "./errors.js";

/** The modulus p = 2^31 − 2^24 + 1. */
export const P = 0x7f000001;
/** Multiplicative generator of F_p^* (Plonky3 `GENERATOR`). */
export const GENERATOR = 3;
/** Two-adicity of p − 1. */
export const TWO_ADICITY = 24;

/** a + b mod p for canonical inputs. */
export function add(a: number, b: number): number {
  const s = a + b;
  return s >= P ? s - P : s;
}

/** a − b mod p for canonical inputs. */
export function sub(a: number, b: number): number {
  const d = a - b;
  return d < 0 ? d + P : d;
}

/** −a mod p for a canonical input. */
export function neg(a: number): number {
  return a === 0 ? 0 : P - a;
}

/** a·b mod p for canonical inputs. */
export function mul(a: number, b: number): number {
  // The estimate is within 1 of ⌊ab/p⌋ (q < 2^31, so `| 0` truncates exactly like floor), hence
  // ab − q·p lies within a few thousand of [0, p): it fits a signed 32-bit integer and imul
  // wrap-around is exact. Literals instead of module bindings keep this hot path fast in V8.
  const q = (a * b * 4.693279113969803e-10) | 0;
  let r = (Math.imul(a, b) - Math.imul(q, 0x7f000001)) | 0;
  if (r < 0) r += 0x7f000001;
  else if (r >= 0x7f000001) r -= 0x7f000001;
  return r;
}

/** a² mod p. */
export function square(a: number): number {
  return mul(a, a);
}

/** a³ mod p (the Poseidon2 S-box). */
export function cube(a: number): number {
  return mul(mul(a, a), a);
}

/** a^e mod p for a non-negative integer exponent e (number up to 2^53 or bigint). */
export function pow(a: number, e: number | bigint): number {
  let result = 1;
  let base = a;
  if (typeof e === "bigint") {
    if (e < 0n) throw new FieldError("NEGATIVE", `exponent ${e} must be non-negative`);
    while (e > 0n) {
      if (e & 1n) result = mul(result, base);
      base = mul(base, base);
      e >>= 1n;
    }
    return result;
  }
  if (!Number.isSafeInteger(e) || e < 0) {
    throw new FieldError("NEGATIVE", `exponent ${e} must be a non-negative safe integer`);
  }
  while (e > 0) {
    if (e % 2 === 1) result = mul(result, base);
    base = mul(base, base);
    e = Math.floor(e / 2);
  }
  return result;
}

/**
 * Multiplicative inverse a^(p−2).
 * @throws FieldError `DIVISION_BY_ZERO` for a = 0.
 */
export function inverse(a: number): number {
  if (a === 0) throw new FieldError("DIVISION_BY_ZERO", "0 has no inverse in F_p");
  return pow(a, P - 2);
}

/**
 * Inverses of every element (Montgomery's batch trick: one inversion, 3(n−1) multiplications).
 * @throws FieldError `DIVISION_BY_ZERO` if any element is 0 (its index is named).
 */
export function batchInverse(values: ArrayLike<number>): Uint32Array {
  const n = values.length;
  const out = new Uint32Array(n);
  if (n === 0) return out;
  const prefix = new Uint32Array(n);
  let acc = 1;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v === 0)
      throw new FieldError("DIVISION_BY_ZERO", `element at index ${i} is 0 and has no inverse`, { index: i });
    prefix[i] = acc;
    acc = mul(acc, v);
  }
  let inv = inverse(acc);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = mul(inv, prefix[i]!);
    inv = mul(inv, values[i]!);
  }
  return out;
}

/** Reduce any u32 modulo p (Plonky3 `from_u32`). @throws FieldError if x is not a u32. */
export function fromU32(x: number): number {
  if (!Number.isInteger(x) || x < 0 || x > 0xffffffff) {
    throw new FieldError("NOT_A_U32", `fromU32 expects an integer in [0, 2^32), got ${x}`, { value: x });
  }
  return x % P;
}

/** Reduce any u64 (given as bigint) modulo p (Plonky3 `from_u64`). */
export function fromU64(x: bigint): number {
  if (x < 0n || x >= 1n << 64n) {
    throw new FieldError("NOT_A_U64", `fromU64 expects an integer in [0, 2^64), got ${x}`, { value: x.toString() });
  }
  return Number(x % BigInt(P));
}

/**
 * Checks that `x` is a canonical field element: an integer with 0 ≤ x < p.
 * Returns x unchanged; never reduces.
 * @param what names the value in the error message (e.g. `"siblings[3][0]"`).
 * @throws FieldError `NOT_AN_INTEGER`, `NEGATIVE` or `NON_CANONICAL`.
 */
export function element(x: unknown, what = "value"): number {
  if (typeof x !== "number" || !Number.isInteger(x)) {
    throw new FieldError("NOT_AN_INTEGER", `${what} must be an integer field element, got ${String(x)}`, {
      what,
      value: String(x),
    });
  }
  if (x < 0) {
    throw new FieldError("NEGATIVE", `${what} must be in [0, p) with p = ${P}, got negative ${x}`, { what, value: x });
  }
  if (x >= P) {
    throw new FieldError("NON_CANONICAL", `${what} must be canonical (< p = ${P}), got ${x}`, { what, value: x });
  }
  return x;
}

/** True iff x is a canonical field element. */
export function isCanonical(x: unknown): x is number {
  return typeof x === "number" && Number.isInteger(x) && x >= 0 && x < P;
}

/** A uniformly random field element (rejection sampling over 31-bit draws from `crypto`). */
export function random(): number {
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    const v = buf[0]! >>> 1;
    if (v < P) return v;
  }
}
