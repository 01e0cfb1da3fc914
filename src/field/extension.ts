/**
 * Degree-4 binomial extension K = F_p[X]/(X^4 − 3) (compat-v1 §2; Plonky3 0.4.3
 * `BinomialExtensionField<KoalaBear, 4>`).
 *
 * A scalar is a 4-tuple `[c0, c1, c2, c3]` of canonical base elements meaning
 * c0 + c1·X + c2·X² + c3·X³ (basis order 1, X, X², X³). Functions never mutate their inputs.
 */
import { P, add, inverse, mul, neg, sub, element, random } from "./koalabear.js";
import { FieldError } from "./errors.js";

/** An extension element (c0, c1, c2, c3), each canonical in [0, p). */
export type Ext = readonly [number, number, number, number];

/** W with X^4 = W. */
export const W = 3;
/** 3^((p−1)/4): X^p = DTH_ROOT · X (Frobenius). */
export const DTH_ROOT = 2113994754;

/** The extension element 0 = [0, 0, 0, 0]. */
export const EXT_ZERO: Ext = [0, 0, 0, 0];
/** The extension element 1 = [1, 0, 0, 0]. */
export const EXT_ONE: Ext = [1, 0, 0, 0];

/** Embeds a base element a as (a, 0, 0, 0). */
export function embed(a: number): Ext {
  return [a, 0, 0, 0];
}

/** Builds an extension element from four canonical coefficients (validated). */
export function ext(c: ArrayLike<number>, what = "extension element"): Ext {
  if (c.length !== 4) throw new FieldError("BAD_LENGTH", `${what} must have 4 coefficients, got ${c.length}`);
  return [
    element(c[0], `${what}.c0`),
    element(c[1], `${what}.c1`),
    element(c[2], `${what}.c2`),
    element(c[3], `${what}.c3`),
  ];
}

/** a + b in the quartic extension (coefficient-wise mod p; compat-v1 §3.2). Inputs are canonical `Ext` (4 numbers in [0, p)); not checked. */
export function extAdd(a: Ext, b: Ext): Ext {
  return [add(a[0], b[0]), add(a[1], b[1]), add(a[2], b[2]), add(a[3], b[3])];
}

/** a − b in the quartic extension (coefficient-wise mod p). Inputs are canonical `Ext`; not checked. */
export function extSub(a: Ext, b: Ext): Ext {
  return [sub(a[0], b[0]), sub(a[1], b[1]), sub(a[2], b[2]), sub(a[3], b[3])];
}

/** −a in the quartic extension. Input is a canonical `Ext`; not checked. */
export function extNeg(a: Ext): Ext {
  return [neg(a[0]), neg(a[1]), neg(a[2]), neg(a[3])];
}

/** a · s for a base scalar s. */
export function extScale(a: Ext, s: number): Ext {
  return [mul(a[0], s), mul(a[1], s), mul(a[2], s), mul(a[3], s)];
}

/** a · b (schoolbook with X^4 = 3). */
export function extMul(a: Ext, b: Ext): Ext {
  // Indexed reads (array destructuring would go through the iterator protocol); each coordinate
  // is at most 10 canonical products' worth (< 2^35), exact in a double, reduced once.
  const a0 = a[0],
    a1 = a[1],
    a2 = a[2],
    a3 = a[3];
  const b0 = b[0],
    b1 = b[1],
    b2 = b[2],
    b3 = b[3];
  return [
    (mul(a0, b0) + W * (mul(a1, b3) + mul(a2, b2) + mul(a3, b1))) % P,
    (mul(a0, b1) + mul(a1, b0) + W * (mul(a2, b3) + mul(a3, b2))) % P,
    (mul(a0, b2) + mul(a1, b1) + mul(a2, b0) + W * mul(a3, b3)) % P,
    (mul(a0, b3) + mul(a1, b2) + mul(a2, b1) + mul(a3, b0)) % P,
  ];
}

/** a² in the quartic extension (X⁴ = 3, compat-v1 §3.2). Input is a canonical `Ext`; not checked. */
export function extSquare(a: Ext): Ext {
  return extMul(a, a);
}

/**
 * a·X^t for t = 0..3 in K = F[X]/(X^4 − 3): the coordinates move up by t and those that wrap are
 * multiplied by W = 3 (a coordinate shift, no general product).
 */
export function extTimesXPower(a: Ext, t: number): Ext {
  const out: [number, number, number, number] = [0, 0, 0, 0];
  for (let j = 0; j < 4; j++) out[(j + t) & 3] = j + t >= 4 ? (W * a[j]!) % P : a[j]!;
  return out;
}

/**
 * True if a and b are the same extension element (both canonical).
 * @example
 *   extEq(extAdd(a, EXT_ZERO), a); // true
 */
export function extEq(a: Ext, b: Ext): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

/** True if a = 0 (a canonical `Ext`). */
export function extIsZero(a: Ext): boolean {
  return a[0] === 0 && a[1] === 0 && a[2] === 0 && a[3] === 0;
}

/** Frobenius^k: coefficient i is multiplied by DTH_ROOT^(i·k). */
function frobenius(a: Ext, k: number): Ext {
  const w = [1, DTH_ROOT, mul(DTH_ROOT, DTH_ROOT), mul(mul(DTH_ROOT, DTH_ROOT), DTH_ROOT)];
  return [a[0], mul(a[1], w[k % 4]!), mul(a[2], w[(2 * k) % 4]!), mul(a[3], w[(3 * k) % 4]!)];
}

/**
 * a^(−1) through the norm: a^(−1) = φ(a)φ²(a)φ³(a) / N(a).
 * @throws FieldError `DIVISION_BY_ZERO` for a = 0.
 */
export function extInverse(a: Ext): Ext {
  if (extIsZero(a)) throw new FieldError("DIVISION_BY_ZERO", "0 has no inverse in the extension field");
  const b = extMul(extMul(frobenius(a, 1), frobenius(a, 2)), frobenius(a, 3));
  const norm = extMul(a, b)[0];
  return extScale(b, inverse(norm));
}

/** a^e for a non-negative integer exponent. */
export function extPow(a: Ext, e: number): Ext {
  let result: Ext = EXT_ONE;
  let base = a;
  while (e > 0) {
    if (e % 2 === 1) result = extMul(result, base);
    base = extMul(base, base);
    e = Math.floor(e / 2);
  }
  return result;
}

/** A uniformly random extension element. */
export function extRandom(): Ext {
  return [random(), random(), random(), random()];
}
