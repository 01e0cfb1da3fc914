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
import type { OpenedRows } from "../pcs/backend.js";

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

/** The folds of the opened rows (k ≥ 1, at least one row). */
export function foldRowsOnKernels(kernels: Kernels, { rows, width, k, xs, zeta, alphas }: OpenedRows): Ext[] {
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
  const scale = pow((P + 1) / 2, k); // 2^(−k)
  return kernels.heap.using(
    [rows.subarray(0, n * (width << k)), batchInverse(xs), tables],
    [4 * n, 4 << k],
    ([r, x, tb], [out, work]) => {
      kernels.instance.raw.pcs_fold_rows(r!, n, k, width, x!, tb!, out!.ptr, work!.ptr);
      const v = out!.view();
      return Array.from(
        { length: n },
        (_, j): Ext => [
          mul(v[4 * j]!, scale),
          mul(v[4 * j + 1]!, scale),
          mul(v[4 * j + 2]!, scale),
          mul(v[4 * j + 3]!, scale),
        ],
      );
    },
  );
}
