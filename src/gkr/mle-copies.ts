/**
 * MLE of K equal-shaped copies laid side by side (an aggregate's input vector, docs/profile-v2.md
 * §10): values[c·S + j] for c < K = 2^k, j < S = 2^s, with only the first `used` entries of each
 * copy possibly non-zero. With the point z = (z_hi ‖ z_lo) MSB-first (copy index = the top k
 * variables),
 *
 *   MLE(values)(z) = Σ_c eq(z_hi, c) · Σ_{j < used} eq(z_lo, j) · values[c·S + j],
 *
 * so the cost is K·used base × extension products plus the two small eq tables (2^s and 2^k),
 * never a fold of the whole K·S table. The fast path runs the inner sums as WASM inner products
 * (`inner_product` of src/kernels/assembly/vector.ts) against the eq table's four coefficient planes
 * in Montgomery form; `mleEvalCopiesReference` is the plain TypeScript reference, and both equal
 * `mleEvalBase` of the whole table (test/gkr/mle-copies.test.ts).
 */
import { add, mul } from "../field/koalabear.js";
import { type Ext, extAdd, extMul } from "../field/extension.js";
import { Kernels } from "../kernels/kernels.js";
import { KernelError } from "../kernels/errors.js";
import { kernelModuleEnabled } from "../kernels/loader.js";
import { SumcheckError } from "../sumcheck/errors.js";
import { eqTable } from "../sumcheck/mle.js";
import { extMulAddTo } from "../field/ext-inline.js";

/** Shape of a copies table: K = 2^copyBits copies of 2^copySizeBits values, the first `used` meaningful. */
export interface CopiesShape {
  readonly copyBits: number;
  readonly copySizeBits: number;
  readonly used: number;
}

function checkShape(values: ArrayLike<number>, shape: CopiesShape, points: readonly (readonly Ext[])[]): void {
  const { copyBits: k, copySizeBits: s, used } = shape;
  if (!Number.isInteger(k) || !Number.isInteger(s) || k < 0 || s < 0 || k + s > 30)
    throw new SumcheckError("BAD_POINT", `mleEvalCopies: bad copies shape 2^${k} × 2^${s}`);
  if (!Number.isInteger(used) || used < 0 || used > 2 ** s)
    throw new SumcheckError("BAD_TABLE", `mleEvalCopies: used = ${used} is not in [0, 2^${s}]`);
  if (values.length !== 2 ** (k + s))
    throw new SumcheckError("BAD_TABLE", `mleEvalCopies: ${values.length} values, expected 2^${k + s}`);
  for (const p of points) {
    if (p.length !== k + s)
      throw new SumcheckError(
        "BAD_POINT",
        `mleEvalCopies: a point of ${p.length} coordinates for a table of 2^${k + s} values`,
      );
  }
}

/**
 * Plain TypeScript reference of `mleEvalCopies`. Values beyond `used` in each copy must be zero
 * (they are not read). @throws SumcheckError `BAD_POINT`, `BAD_TABLE`.
 */
export function mleEvalCopiesReference(
  values: ArrayLike<number>,
  shape: CopiesShape,
  points: readonly (readonly Ext[])[],
): Ext[] {
  checkShape(values, shape, points);
  const { copyBits: k, copySizeBits: s, used } = shape;
  const S = 2 ** s;
  return points.map((z) => {
    const hi = eqTable(z.slice(0, k)),
      lo = eqTable(z.slice(k));
    const L = lo.data;
    let acc: Ext = [0, 0, 0, 0];
    for (let c = 0; c < 2 ** k; c++) {
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0;
      for (let j = 0; j < used; j++) {
        const v = values[c * S + j]!;
        if (v === 0) continue;
        a0 = add(a0, mul(v, L[j]!));
        a1 = add(a1, mul(v, L[S + j]!));
        a2 = add(a2, mul(v, L[2 * S + j]!));
        a3 = add(a3, mul(v, L[3 * S + j]!));
      }
      acc = extAdd(acc, extMul(hi.get(c), [a0, a1, a2, a3]));
    }
    return acc;
  });
}

let kernels: Kernels | null | undefined;

/** This thread's context for the inner products; null while the kernel module is switched off or when it is not available. */
function kernelsOrNull(): Kernels | null {
  if (!kernelModuleEnabled()) return null;
  if (kernels === undefined) {
    try {
      kernels = Kernels.create({ initialPages: 64 });
    } catch (e) {
      if (!(e instanceof KernelError)) throw e;
      kernels = null;
    }
  }
  return kernels;
}

/**
 * MLE(values) at each of `points` (see the module comment). Values must be canonical (not
 * checked) and zero beyond `used` in each copy. Runs the WASM inner products when the kernel
 * module is available, else the reference.
 * @throws SumcheckError `BAD_POINT`, `BAD_TABLE`.
 */
export function mleEvalCopies(values: Uint32Array, shape: CopiesShape, points: readonly (readonly Ext[])[]): Ext[] {
  checkShape(values, shape, points);
  const kr = kernelsOrNull();
  const { copyBits: k, copySizeBits: s, used } = shape;
  // Region slices start at multiples of 4 words: copies of fewer than 4 values take the reference.
  if (kr === null || used === 0 || s < 2) return mleEvalCopiesReference(values, shape, points);
  const S = 2 ** s,
    K = 2 ** k;
  const stride = 4 * Math.ceil(used / 4);
  const heap = kr.heap,
    inst = kr.instance;
  const vals = heap.allocFrom(values);
  const planes = heap.alloc(4 * stride * points.length);
  try {
    const pv = planes.view();
    points.forEach((z, q) => {
      const lo = eqTable(z.slice(k)).data;
      for (let p = 0; p < 4; p++) pv.set(lo.subarray(p * S, p * S + used), (4 * q + p) * stride);
    });
    inst.toMontgomery(planes, planes);
    // The regions were checked when allocated; the raw kernel runs on byte pointers inside them.
    const ip = inst.raw.inner_product;
    const out: Ext[] = [];
    for (let q = 0; q < points.length; q++) {
      const hi = eqTable(points[q]!.slice(0, k)).data;
      const p0 = planes.ptr + 4 * (4 * q) * stride,
        p1 = p0 + 4 * stride,
        p2 = p1 + 4 * stride,
        p3 = p2 + 4 * stride;
      const acc = new Uint32Array(4);
      for (let c = 0; c < K; c++) {
        const copy = vals.ptr + 4 * c * S;
        const i0 = ip(copy, p0, used) >>> 0,
          i1 = ip(copy, p1, used) >>> 0,
          i2 = ip(copy, p2, used) >>> 0,
          i3 = ip(copy, p3, used) >>> 0;
        extMulAddTo(acc, 0, 1, hi[c]!, hi[K + c]!, hi[2 * K + c]!, hi[3 * K + c]!, i0, i1, i2, i3);
      }
      out.push([acc[0]!, acc[1]!, acc[2]!, acc[3]!]);
    }
    return out;
  } finally {
    heap.release(planes);
    heap.release(vals);
  }
}
