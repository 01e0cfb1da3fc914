/**
 * The verifier's fold of an iteration's opened rows on the kernels (`pcs_fold_rows`,
 * assembly/pcs-ext.ts): the values `RowFolder` (src/pcs/fold.ts) computes, all rows in one call.
 * The constant tables of α_s·ζ^(−t·2^s) (one per step s and pair t, 2^k − 1 in all) and the
 * inverses of the rows' points are made here; the kernel returns 2^k times each folded value.
 */
import { P, batchInverse, inverse, mul, pow } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { MONTGOMERY_R } from "./constants.js";
import type { Kernels } from "./kernels.js";
import type { Region } from "./memory.js";

/** The 16 words X^j·α (j = 0..3) in Montgomery form: the fold kernel's constant table. */
export function extConstantTable(alpha: Ext): Uint32Array {
  const out = new Uint32Array(16);
  let x: [number, number, number, number] = [alpha[0], alpha[1], alpha[2], alpha[3]];
  for (let j = 0; j < 4; j++) {
    for (let l = 0; l < 4; l++) out[4 * j + l] = mul(x[l]!, MONTGOMERY_R);
    x = [mul(3, x[3]), x[0], x[1], x[2]];
  }
  return out;
}

/** The folds of n rows of 2^k values (k ≥ 1) of `width` words back to back in `rows`, row j at xs[j] ≠ 0, by the challenges `alphas`. */
export function foldRowsOnKernels(
  kernels: Kernels,
  rows: Uint32Array,
  width: 1 | 4,
  k: number,
  xs: readonly number[],
  zeta: number,
  alphas: readonly Ext[],
): Ext[] {
  const n = xs.length;
  const half0 = 1 << (k - 1);
  const tables = new Uint32Array(16 * ((1 << k) - 1));
  const zetaInverse = inverse(zeta);
  for (let s = 0, at = 0; s < k; s++) {
    const step = pow(zetaInverse, 2 ** s);
    const a = alphas[s]!;
    for (let t = 0, z = 1; t < half0 >> s; t++, at++, z = mul(z, step))
      tables.set(extConstantTable([mul(a[0], z), mul(a[1], z), mul(a[2], z), mul(a[3], z)]), 16 * at);
  }
  const heap = kernels.heap;
  const regions: Region[] = [];
  try {
    const r = heap.allocFrom(rows.subarray(0, n * (width << k)));
    regions.push(r);
    const x = heap.allocFrom(batchInverse(xs));
    regions.push(x);
    const tb = heap.allocFrom(tables);
    regions.push(tb);
    const out = heap.alloc(4 * n);
    regions.push(out);
    const work = heap.alloc(4 << k);
    regions.push(work);
    kernels.instance.raw.pcs_fold_rows(r.ptr, n, k, width, x.ptr, tb.ptr, out.ptr, work.ptr);
    const v = out.view();
    const scale = pow((P + 1) / 2, k); // 2^(−k)
    return Array.from(
      { length: n },
      (_, j): Ext => [
        mul(v[4 * j]!, scale),
        mul(v[4 * j + 1]!, scale),
        mul(v[4 * j + 2]!, scale),
        mul(v[4 * j + 3]!, scale),
      ],
    );
  } finally {
    for (const region of regions) heap.release(region);
  }
}
