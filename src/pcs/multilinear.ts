/**
 * Multilinear polynomials in the two forms WHIR needs (docs/pcs.md §4.2). Variable j (0-based)
 * is bit j of a hypercube index and bit j of a coefficient index: the coefficient of the monomial
 * Π_(j ∈ S) X_j sits at index Σ_(j ∈ S) 2^j, which is also its power of x in the univariate
 * polynomial F(x) = f̂(x, x², x⁴, …) whose Reed–Solomon codeword is committed.
 *
 * Vectors of extension elements are interleaved: element i's coordinate c at word 4i + c.
 */
import { P, add, mul, sub } from "../field/koalabear.js";
import { extMulAddTo, extMulTo } from "../field/ext-inline.js";
import { extAdd, extMul, extSub, extTimesXPower, type Ext } from "../field/extension.js";
import type { WhirWeightBlock } from "./types.js";
import { pointProblem } from "./checks.js";
import { PcsError } from "./errors.js";

/** Hypercube evaluations → coefficients in place (the Möbius transform over each variable), `width` lanes. */
export function evaluationsToCoefficients(values: Uint32Array, width: number): void {
  const n = values.length / width;
  for (let bit = 1; bit < n; bit <<= 1) {
    for (let i = 0; i < n; i++) {
      if (i & bit) {
        const o = i * width;
        const e = (i ^ bit) * width;
        for (let l = 0; l < width; l++) values[o + l] = sub(values[o + l]!, values[e + l]!);
      }
    }
  }
}

/** Coefficients → hypercube evaluations in place (the inverse transform), `width` lanes. */
export function coefficientsToEvaluations(values: Uint32Array, width: number): void {
  const n = values.length / width;
  for (let bit = 1; bit < n; bit <<= 1) {
    for (let i = 0; i < n; i++) {
      if (i & bit) {
        const o = i * width;
        const e = (i ^ bit) * width;
        for (let l = 0; l < width; l++) values[o + l] = add(values[o + l]!, values[e + l]!);
      }
    }
  }
}

/**
 * g + α·x for base-field values x and interleaved extension values g (a masked opening's h = ρ·f′
 * + g′, docs/pcs.md §12.4), written to `out` (4·|x| words, every one written). The reference of
 * `PcsBackend.scaleAdd`.
 */
export function scaleAddBase(
  alpha: Ext,
  x: ArrayLike<number>,
  g: ArrayLike<number>,
  out: Uint32Array = new Uint32Array(4 * x.length),
): Uint32Array {
  const r0 = alpha[0],
    r1 = alpha[1],
    r2 = alpha[2],
    r3 = alpha[3];
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const o = 4 * i;
    out[o] = add(mul(r0, v), g[o]!);
    out[o + 1] = add(mul(r1, v), g[o + 1]!);
    out[o + 2] = add(mul(r2, v), g[o + 2]!);
    out[o + 3] = add(mul(r3, v), g[o + 3]!);
  }
  return out;
}

/** Widens base-field values to interleaved extension values. */
export function liftToExtension(values: Uint32Array): Uint32Array {
  const out = new Uint32Array(values.length * 4);
  for (let i = 0; i < values.length; i++) out[4 * i] = values[i]!;
  return out;
}

/** Reads element i of an interleaved extension vector. */
export function extAt(v: Uint32Array, i: number): Ext {
  return [v[4 * i]!, v[4 * i + 1]!, v[4 * i + 2]!, v[4 * i + 3]!];
}

/** (z, z², z⁴, …, z^(2^(n−1))): the point at which f̂ takes the value F(z). */
export function powerPoint(z: Ext, n: number): Ext[] {
  const out: Ext[] = [];
  let x = z;
  const t = new Uint32Array(4);
  for (let j = 0; j < n; j++) {
    out.push(x);
    extMulTo(t, 0, 1, x[0], x[1], x[2], x[3], x[0], x[1], x[2], x[3]);
    x = [t[0]!, t[1]!, t[2]!, t[3]!];
  }
  return out;
}

/**
 * Adds c · eq(point, b) to acc[b] for every b of the hypercube of point.length variables
 * (acc interleaved extension, 2^n elements): the eq table built from [c] one variable at a time.
 */
export function addScaledEqTable(acc: Uint32Array, point: readonly Ext[], c: Ext): void {
  const n = point.length;
  const size = 1 << n;
  const table = new Uint32Array(4 * size);
  table.set(c, 0);
  for (let j = 0; j < n; j++) {
    const half = 1 << j;
    const [p0, p1, p2, p3] = point[j]!;
    const q0 = sub(1, p0),
      q1 = p1 === 0 ? 0 : P - p1,
      q2 = p2 === 0 ? 0 : P - p2,
      q3 = p3 === 0 ? 0 : P - p3;
    for (let i = half - 1; i >= 0; i--) {
      const a0 = table[4 * i]!,
        a1 = table[4 * i + 1]!,
        a2 = table[4 * i + 2]!,
        a3 = table[4 * i + 3]!;
      extMulTo(table, 4 * (i + half), 1, a0, a1, a2, a3, p0, p1, p2, p3);
      extMulTo(table, 4 * i, 1, a0, a1, a2, a3, q0, q1, q2, q3);
    }
  }
  for (let i = 0; i < 4 * size; i++) acc[i] = add(acc[i]!, table[i]!);
}

/**
 * `eqEval` for a point `a` of base-field coordinates (the queries' points): each factor
 * a·b + (1 − a)(1 − b) = (2a − 1)·b + 1 − a takes four base-field products instead of an
 * extension product.
 */
export function eqEvalBase(a: readonly number[], b: readonly Ext[]): Ext {
  const acc = new Uint32Array(4);
  acc[0] = 1;
  for (let j = 0; j < a.length; j++) {
    const x = a[j]!,
      y = b[j]!;
    const d = sub(add(x, x), 1);
    extMulTo(
      acc,
      0,
      1,
      acc[0]!,
      acc[1]!,
      acc[2]!,
      acc[3]!,
      add(mul(d, y[0]), sub(1, x)),
      mul(d, y[1]),
      mul(d, y[2]),
      mul(d, y[3]),
    );
  }
  return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
}

/** eq(a, b) = Π_j (a_j b_j + (1 − a_j)(1 − b_j)) for two points of equal length. */
export function eqEval(a: readonly Ext[], b: readonly Ext[]): Ext {
  const acc = new Uint32Array(4);
  acc[0] = 1;
  const t = new Uint32Array(4);
  for (let j = 0; j < a.length; j++) {
    const x = a[j]!,
      y = b[j]!;
    // a·b + (1 − a)(1 − b) = 2ab − a − b + 1
    extMulTo(t, 0, 1, x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]);
    const f0 = add(sub(sub(add(t[0]!, t[0]!), x[0]), y[0]), 1),
      f1 = sub(sub(add(t[1]!, t[1]!), x[1]), y[1]),
      f2 = sub(sub(add(t[2]!, t[2]!), x[2]), y[2]),
      f3 = sub(sub(add(t[3]!, t[3]!), x[3]), y[3]);
    extMulTo(acc, 0, 1, acc[0]!, acc[1]!, acc[2]!, acc[3]!, f0, f1, f2, f3);
  }
  return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
}

/** f̂(point) from f̂'s coefficients (interleaved extension, 2^n of them): fixes X_0, X_1, … in turn. */
export function evaluateCoefficients(coeffs: Uint32Array, point: readonly Ext[]): Ext {
  let cur: Uint32Array = coeffs.slice();
  for (let j = 0; j < point.length; j++) cur = foldCoefficients(cur, point[j]!);
  return extAt(cur, 0);
}

/** Coefficients of f̂(α, X_1, …): c'[i] = c[2i] + α·c[2i + 1] (interleaved extension). */
export function foldCoefficients(c: Uint32Array, alpha: Ext): Uint32Array {
  const n = c.length / 8;
  const out = new Uint32Array(4 * n);
  const b0 = alpha[0],
    b1 = alpha[1],
    b2 = alpha[2],
    b3 = alpha[3];
  for (let i = 0; i < n; i++) {
    const o = 8 * i + 4;
    extMulTo(out, 4 * i, 1, c[o]!, c[o + 1]!, c[o + 2]!, c[o + 3]!, b0, b1, b2, b3);
    for (let l = 0; l < 4; l++) out[4 * i + l] = add(out[4 * i + l]!, c[8 * i + l]!);
  }
  return out;
}

/** Evaluations of f̂(α, X_1, …) from those of f̂: e'[i] = e[2i] + α·(e[2i + 1] − e[2i]) (interleaved extension). */
export function foldEvaluations(e: Uint32Array, alpha: Ext): Uint32Array {
  const n = e.length / 8;
  const out = new Uint32Array(4 * n);
  const b0 = alpha[0],
    b1 = alpha[1],
    b2 = alpha[2],
    b3 = alpha[3];
  for (let i = 0; i < n; i++) {
    const lo = 8 * i;
    extMulTo(
      out,
      4 * i,
      1,
      sub(e[lo + 4]!, e[lo]!),
      sub(e[lo + 5]!, e[lo + 1]!),
      sub(e[lo + 6]!, e[lo + 2]!),
      sub(e[lo + 7]!, e[lo + 3]!),
      b0,
      b1,
      b2,
      b3,
    );
    for (let l = 0; l < 4; l++) out[4 * i + l] = add(out[4 * i + l]!, e[lo + l]!);
  }
  return out;
}

/** F(z) = Σ_i c_i z^i (Horner) for interleaved extension coefficients and z ∈ K. */
export function evaluateUnivariate(coeffs: Uint32Array, z: Ext): Ext {
  const n = coeffs.length / 4;
  const acc = new Uint32Array(4);
  const z0 = z[0],
    z1 = z[1],
    z2 = z[2],
    z3 = z[3];
  for (let i = n - 1; i >= 0; i--) {
    extMulTo(acc, 0, 1, acc[0]!, acc[1]!, acc[2]!, acc[3]!, z0, z1, z2, z3);
    for (let l = 0; l < 4; l++) acc[l] = add(acc[l]!, coeffs[4 * i + l]!);
  }
  return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
}

/** F(x) for interleaved extension coefficients at a base-field point x. */
export function evaluateUnivariateAtBase(coeffs: Uint32Array, x: number): Ext {
  const n = coeffs.length / 4;
  let a0 = 0,
    a1 = 0,
    a2 = 0,
    a3 = 0;
  for (let i = n - 1; i >= 0; i--) {
    a0 = add(mul(a0, x), coeffs[4 * i]!);
    a1 = add(mul(a1, x), coeffs[4 * i + 1]!);
    a2 = add(mul(a2, x), coeffs[4 * i + 2]!);
    a3 = add(mul(a3, x), coeffs[4 * i + 3]!);
  }
  return [a0, a1, a2, a3];
}

/**
 * f̂(point): the multilinear extension of 2^m hypercube evaluations (base-field values, or
 * interleaved extension values with width 4) at a point of K^m, through the coefficients.
 * @throws PcsError `PCS_BAD_POLYNOMIAL` (not 2^m canonical values), `PCS_BAD_CLAIM` (a point without m canonical coordinates).
 * @example evaluateMultilinear(new Uint32Array([3, 5]), [[2, 0, 0, 0]]) // [7, 0, 0, 0]: 3 + 2·(5 − 3)
 */
export function evaluateMultilinear(evaluations: Uint32Array, point: readonly Ext[], width: 1 | 4 = 1): Ext {
  const m = Math.log2(evaluations.length / width);
  if (!(evaluations instanceof Uint32Array) || !Number.isInteger(m))
    throw new PcsError(
      "PCS_BAD_POLYNOMIAL",
      `evaluations must be 2^m values (× ${width} words), got ${evaluations.length} words`,
    );
  for (let i = 0; i < evaluations.length; i++)
    if (evaluations[i]! >= P)
      throw new PcsError(
        "PCS_BAD_POLYNOMIAL",
        `evaluations[${i}] = ${evaluations[i]} is not a canonical field element`,
      );
  const problem = pointProblem(point, m, "point");
  if (problem !== null) throw new PcsError("PCS_BAD_CLAIM", problem);
  const c = width === 1 ? liftToExtension(evaluations) : evaluations.slice();
  evaluationsToCoefficients(c, 4);
  return evaluateCoefficients(c, point);
}

/**
 * Adds c · eq(point, b) to acc[b] for a point of base-field coordinates (a query point's power
 * point): the eq table is built in the base field and scaled once, four products per entry
 * instead of sixteen. Same result as `addScaledEqTable` on the embedded point.
 */
export function addScaledEqTableBase(acc: Uint32Array, point: readonly number[], c: Ext): void {
  const n = point.length;
  const size = 1 << n;
  const table = new Uint32Array(size);
  table[0] = 1;
  for (let j = 0; j < n; j++) {
    const half = 1 << j;
    const p = point[j]!;
    const q = sub(1, p);
    for (let i = half - 1; i >= 0; i--) {
      const a = table[i]!;
      table[i + half] = mul(a, p);
      table[i] = mul(a, q);
    }
  }
  const c0 = c[0],
    c1 = c[1],
    c2 = c[2],
    c3 = c[3];
  for (let i = 0; i < size; i++) {
    const t = table[i]!;
    const o = 4 * i;
    acc[o] = add(acc[o]!, mul(t, c0));
    acc[o + 1] = add(acc[o + 1]!, mul(t, c1));
    acc[o + 2] = add(acc[o + 2]!, mul(t, c2));
    acc[o + 3] = add(acc[o + 3]!, mul(t, c3));
  }
}

/** (x, x², x⁴, …, x^(2^(n−1))) for a base-field x. */
export function powerPointBase(x: number, n: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < n; j++) {
    out.push(x);
    x = mul(x, x);
  }
  return out;
}

/** 1, γ, γ², …, γ^(n−1): the combination coefficients of docs/pcs.md §4.7. */
export function extPowers(gamma: Ext, n: number): Ext[] {
  const out: Ext[] = [];
  let acc: Ext = [1, 0, 0, 0];
  const t = new Uint32Array(4);
  for (let i = 0; i < n; i++) {
    out.push(acc);
    extMulTo(t, 0, 1, acc[0], acc[1], acc[2], acc[3], gamma[0], gamma[1], gamma[2], gamma[3]);
    acc = [t[0]!, t[1]!, t[2]!, t[3]!];
  }
  return out;
}

/** The lanes a block covers: one per weight, four per weight for an extension-unit block (§4.8). */
export function blockLanes(b: WhirWeightBlock): number {
  return b.unit === "ext" ? 4 * b.weights.length : b.weights.length;
}

/** A block's weight per lane: its weights, or an extension-unit block's expanded (lane 4c + t weighs weights[c]·X^t). */
export function laneWeights(b: WhirWeightBlock): readonly Ext[] {
  if (b.unit !== "ext") return b.weights;
  const out: Ext[] = new Array(4 * b.weights.length);
  for (let c = 0; c < b.weights.length; c++)
    for (let t = 0; t < 4; t++) out[4 * c + t] = extTimesXPower(b.weights[c]!, t);
  return out;
}

/**
 * acc[offset + i] += c·weights[i] over an interleaved extension table (a block claim's weight,
 * docs/pcs.md §4.7): the hypercube form of the weight Σ_i weights[i]·eq(offset + i, ·).
 */
export function addBlockWeights(acc: Uint32Array, offset: number, weights: readonly Ext[], c: Ext): void {
  for (let i = 0; i < weights.length; i++) {
    const j = 4 * (offset + i);
    const v = extAdd([acc[j]!, acc[j + 1]!, acc[j + 2]!, acc[j + 3]!], extMul(c, weights[i]!));
    acc[j] = v[0];
    acc[j + 1] = v[1];
    acc[j + 2] = v[2];
    acc[j + 3] = v[3];
  }
}

/**
 * The block weight's multilinear extension at `point` (m coordinates, variable j = bit j):
 * MLE(weights)(point_0 … point_(b−1)) · eq(offset's top bits, point_b … point_(m−1)), in O(2^b + m).
 */
export function blockWeightAt(offset: number, weights: readonly Ext[], point: readonly Ext[]): Ext {
  const b = Math.log2(weights.length);
  let table: Uint32Array = new Uint32Array(4 * weights.length);
  weights.forEach((w, i) => table.set(w, 4 * i));
  for (let j = 0; j < b; j++) table = foldEvaluations(table, point[j]!);
  const q = offset / weights.length;
  const bits = Array.from({ length: point.length - b }, (_, j) => [Math.floor(q / 2 ** j) % 2, 0, 0, 0] as Ext);
  return extMul(extAt(table, 0), eqEval(bits, point.slice(b)));
}

/**
 * Σ over `blocks` of `blockWeightAt(offset, laneWeights(block), point)`, with one eq table per
 * block length shared by every block of that length: O(Σ 2^b + m·#blocks). An extension-unit
 * block (§4.8) of 2^b lanes is evaluated without expanding it: lane 4c + t has eq factor
 * eq(t, point_0 point_1)·eq(c, point_2 … point_(b−1)), so its MLE at point is
 * (Σ_t X^t·eq(t, point_0 point_1)) · Σ_c weights[c]·eq(c, point_2 …): 2^(b−2) products.
 * @param tables eq tables to reuse across calls at the same point (filled as needed; keyed by
 *   length, and by −length for the tables of point_2 … of extension-unit blocks).
 */
export function blocksWeightAt(
  blocks: readonly WhirWeightBlock[],
  point: readonly Ext[],
  tables: Map<number, Uint32Array> = new Map(),
): Ext {
  const acc = new Uint32Array(4);
  const part = new Uint32Array(4);
  let lowX: Ext | null = null;
  for (const blk of blocks) {
    const n = blk.weights.length;
    const packed = blk.unit === "ext";
    const low = packed ? 2 : 0;
    const key = packed ? -n : n;
    const lanes = packed ? 4 * n : n;
    const b = Math.log2(lanes);
    let eq = tables.get(key);
    if (eq === undefined) {
      eq = new Uint32Array(4 * n);
      addScaledEqTable(eq, point.slice(low, b), [1, 0, 0, 0]);
      tables.set(key, eq);
    }
    part.fill(0);
    for (let i = 0; i < n; i++) {
      const w = blk.weights[i]!;
      extMulAddTo(part, 0, 1, w[0], w[1], w[2], w[3], eq[4 * i]!, eq[4 * i + 1]!, eq[4 * i + 2]!, eq[4 * i + 3]!);
    }
    if (packed) {
      lowX ??= extensionLanesFactor(point[0]!, point[1]!);
      extMulTo(part, 0, 1, part[0]!, part[1]!, part[2]!, part[3]!, lowX[0], lowX[1], lowX[2], lowX[3]);
    }
    const q = blk.offset / lanes;
    const bits = Array.from({ length: point.length - b }, (_, j) => [Math.floor(q / 2 ** j) % 2, 0, 0, 0] as Ext);
    const top = eqEval(bits, point.slice(b));
    extMulAddTo(acc, 0, 1, part[0]!, part[1]!, part[2]!, part[3]!, top[0], top[1], top[2], top[3]);
  }
  return [acc[0]!, acc[1]!, acc[2]!, acc[3]!];
}

/** Σ_t X^t·eq(t, (x0, x1)) over t = 0..3 (bit j of t is variable j): an extension-unit block's factor of its first two variables. */
function extensionLanesFactor(x0: Ext, x1: Ext): Ext {
  const one: Ext = [1, 0, 0, 0];
  const n0 = extSub(one, x0),
    n1 = extSub(one, x1);
  const eqs = [extMul(n0, n1), extMul(x0, n1), extMul(n0, x1), extMul(x0, x1)];
  let out: Ext = [0, 0, 0, 0];
  for (let t = 0; t < 4; t++) out = extAdd(out, extTimesXPower(eqs[t]!, t));
  return out;
}
