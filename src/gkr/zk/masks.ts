/**
 * The masks of the zero-knowledge GKR (docs/profile-v3.md §11.3–§11.4; Libra, Xie et al., CRYPTO
 * 2019, §4): per layer i the sumcheck mask g_i(X) = a + Σ_j Σ_(e = 1..δ_j) c_(j,e)·X_j^e over the
 * layer's 2·n_x sumcheck variables, and for layers 1..D − 1 the layer mask
 * R_i(z_0, w) = ρ_00 + ρ_01·w + ρ_10·z_0 + ρ_11·z_0·w that makes V̇_i = Ṽ_i + Z_i·(R_i(z_0, 0) +
 * R_i(z_0, 1)) with Z_i(z) = Π_j z_j·(1 − z_j). Every value here is in K; the closed forms are the
 * ones the prover adds to its round polynomials and the verifier needs for its checks and claims.
 *
 * A layer's masks are one list of coefficients (`maskCoefficients`): a, then c_(j,1..δ_j) for
 * j = 0..2n_x − 1, then ρ_00, ρ_01, ρ_10, ρ_11 (zero for layer 0, which is not masked).
 */
import { EXT_ONE, EXT_ZERO, embed, extAdd, extMul, extSub, type Ext } from "../../field/extension.js";
import { pow } from "../../field/koalabear.js";
import { betaAt } from "../../sumcheck/mle.js";
import { CircuitError } from "../errors.js";

/** Degree bound of an x round but the last (pow3~·V³: 4). */
export const ZK_X_DEGREE = 4;
/** Degree bound of the x block's last round (pow3~·V̇³ with V̇ quadratic there: 1 + 6). */
export const ZK_X_LAST_DEGREE = 7;
/** Degree bound of a y round but the last (mul~·V(y): 2). */
export const ZK_Y_DEGREE = 2;
/** Degree bound of the y block's last round (mul~·V̇(y) with V̇ quadratic there: 3). */
export const ZK_Y_LAST_DEGREE = 3;

/** The least n_x (variables of the layer below, copies included) a zero-knowledge layer takes: R reads z_0, which must be bound before the last round. */
export const ZK_MIN_INPUT_BITS = 2;

/** δ_j of each of the 2·n_x rounds of a layer whose layer below has n_x variables. */
export function zkRoundDegrees(nx: number): number[] {
  if (!Number.isInteger(nx) || nx < ZK_MIN_INPUT_BITS)
    throw new CircuitError(
      "BAD_WIDTH",
      `a zero-knowledge layer needs at least ${ZK_MIN_INPUT_BITS} variables below, got ${String(nx)}`,
    );
  const out: number[] = [];
  for (let j = 0; j < nx; j++) out.push(j === nx - 1 ? ZK_X_LAST_DEGREE : ZK_X_DEGREE);
  for (let j = 0; j < nx; j++) out.push(j === nx - 1 ? ZK_Y_LAST_DEGREE : ZK_Y_DEGREE);
  return out;
}

/** The masks of one layer. */
export interface ZkLayerMasks {
  /** g's constant a. */
  readonly constant: Ext;
  /** c_(j,1..δ_j) of each round j. */
  readonly rounds: readonly (readonly Ext[])[];
  /** [ρ_00, ρ_01, ρ_10, ρ_11] of R (all zero for layer 0). */
  readonly layer: readonly [Ext, Ext, Ext, Ext];
}

/** Number of K coefficients of a layer's masks: 1 + Σ δ_j + 4. */
export function maskCoefficientCount(nx: number): number {
  return 1 + zkRoundDegrees(nx).reduce((a, b) => a + b, 0) + 4;
}

/** The masks as their coefficient list (a, the c_(j,e) in round order, the four ρ). */
export function maskCoefficients(m: ZkLayerMasks): Ext[] {
  return [m.constant, ...m.rounds.flat(), ...m.layer];
}

/**
 * Masks from their coefficient list (the inverse of `maskCoefficients`).
 * @throws CircuitError `BAD_WIDTH` when the list does not have `maskCoefficientCount(nx)` entries.
 */
export function masksFromCoefficients(nx: number, coefficients: readonly Ext[]): ZkLayerMasks {
  const degrees = zkRoundDegrees(nx);
  if (coefficients.length !== maskCoefficientCount(nx))
    throw new CircuitError(
      "BAD_WIDTH",
      `a layer's masks have ${maskCoefficientCount(nx)} coefficients, got ${coefficients.length}`,
    );
  let at = 1;
  const rounds = degrees.map((d) => {
    const c = coefficients.slice(at, at + d);
    at += d;
    return c;
  });
  const l = coefficients.slice(at, at + 4) as Ext[];
  return { constant: coefficients[0]!, rounds, layer: [l[0]!, l[1]!, l[2]!, l[3]!] };
}

/**
 * Draws a layer's masks uniformly from `random` (4 canonical words per coefficient, in
 * coefficient order); `masked` false leaves R zero (layer 0).
 */
export function drawLayerMasks(nx: number, masked: boolean, random: (out: Uint32Array) => void): ZkLayerMasks {
  const count = maskCoefficientCount(nx);
  const words = new Uint32Array(4 * count);
  random(words);
  const coefficients: Ext[] = [];
  for (let c = 0; c < count; c++)
    coefficients.push([words[4 * c]!, words[4 * c + 1]!, words[4 * c + 2]!, words[4 * c + 3]!]);
  if (!masked) for (let c = count - 4; c < count; c++) coefficients[c] = EXT_ZERO;
  return masksFromCoefficients(nx, coefficients);
}

/** 2^e as an element of K. */
export function twoTo(e: number): Ext {
  return embed(pow(2, e));
}

/** S_j = g_j(1) = Σ_e c_(j,e) (g_j(0) = 0). */
function roundSumOf(c: readonly Ext[]): Ext {
  let s: Ext = EXT_ZERO;
  for (const x of c) s = extAdd(s, x);
  return s;
}

/** g_j(r) = Σ_e c_(j,e)·r^e. */
export function roundMaskAt(c: readonly Ext[], r: Ext): Ext {
  let acc: Ext = EXT_ZERO;
  for (let e = c.length - 1; e >= 0; e--) acc = extMul(extAdd(acc, c[e]!), r);
  return acc;
}

/** G = Σ over the hypercube of g = 2^n·a + 2^(n−1)·Σ_j S_j (n = number of rounds). */
export function maskSum(m: ZkLayerMasks): Ext {
  const n = m.rounds.length;
  let s: Ext = EXT_ZERO;
  for (const c of m.rounds) s = extAdd(s, roundSumOf(c));
  return extAdd(extMul(twoTo(n), m.constant), extMul(twoTo(n - 1), s));
}

/** g at a point of n coordinates: a + Σ_j g_j(point_j). */
export function maskAt(m: ZkLayerMasks, point: readonly Ext[]): Ext {
  let acc = m.constant;
  m.rounds.forEach((c, j) => {
    acc = extAdd(acc, roundMaskAt(c, point[j]!));
  });
  return acc;
}

/**
 * g's part of round j's polynomial: Σ over the later Boolean variables of g(r_0..r_(j−1), X, b)
 * = 2^(n−j−1)·(bound + g_j(X)) + 2^(n−j−2)·Σ_(l > j) S_l, where bound = a + Σ_(l < j) g_l(r_l).
 * Coefficients 0..δ_j.
 */
export function maskRoundPoly(m: ZkLayerMasks, j: number, bound: Ext): Ext[] {
  const n = m.rounds.length;
  const c = m.rounds[j]!;
  const scale = twoTo(n - j - 1);
  let constant = extMul(scale, bound);
  if (j < n - 1) constant = extAdd(constant, extMul(twoTo(n - j - 2), tailSums(m)[j + 1]!));
  return [constant, ...c.map((x) => extMul(scale, x))];
}

/** Σ_(l ≥ j) S_l for every j (and 0 at j = n), once per masks. */
const TAILS = new WeakMap<ZkLayerMasks, Ext[]>();
function tailSums(m: ZkLayerMasks): Ext[] {
  let t = TAILS.get(m);
  if (t === undefined) {
    const n = m.rounds.length;
    t = new Array<Ext>(n + 1);
    t[n] = EXT_ZERO;
    for (let l = n - 1; l >= 0; l--) t[l] = extAdd(t[l + 1]!, roundSumOf(m.rounds[l]!));
    TAILS.set(m, t);
  }
  return t;
}

/** R(z_0, w). */
export function layerMaskAt(r: ZkLayerMasks["layer"], z0: Ext, w: Ext): Ext {
  return extAdd(extAdd(r[0], extMul(r[1], w)), extMul(z0, extAdd(r[2], extMul(r[3], w))));
}

/** R(z_0, 0) + R(z_0, 1) = 2ρ_00 + ρ_01 + z_0·(2ρ_10 + ρ_11). */
export function layerMaskSum(r: ZkLayerMasks["layer"], z0: Ext): Ext {
  return extAdd(layerMaskAt(r, z0, EXT_ZERO), layerMaskAt(r, z0, EXT_ONE));
}

/** Z(z) = Π_j z_j·(1 − z_j), which vanishes on the hypercube. */
export function vanishingAt(point: readonly Ext[]): Ext {
  let acc: Ext = EXT_ONE;
  for (const z of point) acc = extMul(acc, extMul(z, extSub(EXT_ONE, z)));
  return acc;
}

/** V̇(z) = Ṽ(z) + Z(z)·(R(z_0, 0) + R(z_0, 1)), from Ṽ(z) (R null: V̇ = Ṽ, the input layer). */
export function maskedValue(plain: Ext, r: ZkLayerMasks["layer"] | null, point: readonly Ext[]): Ext {
  if (r === null) return plain;
  return extAdd(plain, extMul(vanishingAt(point), layerMaskSum(r, point[0]!)));
}

/** One incoming claim of a layer as the masks see it: its point z_k and coefficient c_k. */
export interface ZkIncoming {
  readonly point: readonly Ext[];
  readonly coeff: Ext;
}

/**
 * T(w) = Σ_k c_k·Z(z_k)·R(z_(k,0), w) at w = 0 and 1: the claims' masks that Q_i carries
 * (Q_i(x, y) = β(x)·β(y_1..)·T(y_0)).
 */
export function claimMaskLine(r: ZkLayerMasks["layer"], claims: readonly ZkIncoming[]): [Ext, Ext] {
  let t0: Ext = EXT_ZERO,
    t1: Ext = EXT_ZERO;
  for (const c of claims) {
    const f = extMul(c.coeff, vanishingAt(c.point));
    t0 = extAdd(t0, extMul(f, layerMaskAt(r, c.point[0]!, EXT_ZERO)));
    t1 = extAdd(t1, extMul(f, layerMaskAt(r, c.point[0]!, EXT_ONE)));
  }
  return [t0, t1];
}

/**
 * The weights of layer i's mask claim ν_i = β(x*)·β(y*_(1..))·T(y*_0) + ρ_i·g_i(x*, y*) over its
 * coefficient list (`maskCoefficients` order): ρ_i for a, ρ_i·p_j^e for c_(j,e), and
 * β(x*)·β(y*_(1..))·Σ_k c_k·Z(z_k)·z_(k,0)^α·(y*_0)^b for ρ_αb (zero when `masked` is false).
 * @param point the layer's sumcheck point (x* then y*, n_x coordinates each).
 */
export function maskClaimWeights(
  nx: number,
  rho: Ext,
  point: readonly Ext[],
  claims: readonly ZkIncoming[],
  masked: boolean,
): Ext[] {
  const degrees = zkRoundDegrees(nx);
  const out: Ext[] = [rho];
  degrees.forEach((d, j) => {
    let p = rho;
    for (let e = 1; e <= d; e++) {
      p = extMul(p, point[j]!);
      out.push(p);
    }
  });
  if (!masked) {
    out.push(EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO);
    return out;
  }
  const x = point.slice(0, nx),
    y = point.slice(nx);
  const b = extMul(betaAt(x), betaAt(y.slice(1)));
  const y0 = y[0]!;
  let s0: Ext = EXT_ZERO,
    s1: Ext = EXT_ZERO;
  for (const c of claims) {
    const f = extMul(c.coeff, vanishingAt(c.point));
    s0 = extAdd(s0, f);
    s1 = extAdd(s1, extMul(f, c.point[0]!));
  }
  out.push(extMul(b, s0), extMul(b, extMul(s0, y0)), extMul(b, s1), extMul(b, extMul(s1, y0)));
  return out;
}

/** Σ_c weights[c]·coefficients[c]. */
export function weighted(weights: readonly Ext[], coefficients: readonly Ext[]): Ext {
  let acc: Ext = EXT_ZERO;
  for (let c = 0; c < weights.length; c++) acc = extAdd(acc, extMul(weights[c]!, coefficients[c]!));
  return acc;
}
