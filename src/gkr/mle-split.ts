/**
 * MLE of one base vector at an extension point through split eq tables, reading only its first
 * `used` values (a single v2 operation's input claim, docs/profile-v2.md §12):
 *
 *   MLE(v)(z) = Σ_h eq(z_hi, h) · Σ_{l < 2^L} eq(z_lo, l) · v[h·2^L + l],
 *
 * z = (z_hi ‖ z_lo) MSB first, L = min(4, n) low coordinates. The two eq tables cost about
 * 2^(n−L) + 2^L extension products (`eqTableRange`, src/gkr/wiring/split-eq.ts); each inner sum is
 * exact in doubles (every value split into 16-bit halves, 2^L ≤ 16 products of < 2^47 per half)
 * and reduced once. The plain reference is `mleEvalBase` (a fold of the whole zero-padded table);
 * test/gkr/mle-split.test.ts compares them on random and edge inputs.
 */
import { P } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import { extMulSplitTo, reduce52 } from "../field/ext-split.js";
import { SumcheckError } from "../sumcheck/errors.js";
import { eqTableRange } from "./wiring/split-eq.js";

const LO_BITS = 4;
const ACC = new Float64Array(4);
const TMP = new Float64Array(4);

/**
 * MLE(values)(point) where values has 2^point.length entries of which only the first `used` may be
 * non-zero (the rest are not read). Values canonical (not checked).
 * @throws SumcheckError `BAD_POINT` for more than 30 coordinates or a table of the wrong length,
 *   `BAD_TABLE` for `used` outside [0, 2^n].
 */
export function mleEvalUsed(values: ArrayLike<number>, used: number, point: readonly Ext[]): Ext {
  const n = point.length;
  if (n > 30) throw new SumcheckError("BAD_POINT", `mleEvalUsed: ${n} variables exceed the limit of 30`);
  if (values.length !== 2 ** n)
    throw new SumcheckError(
      "BAD_POINT",
      `mleEvalUsed: a point of ${n} coordinates needs a table of 2^${n} values, got ${values.length}`,
    );
  if (!Number.isInteger(used) || used < 0 || used > 2 ** n)
    throw new SumcheckError("BAD_TABLE", `mleEvalUsed: used = ${used} is not in [0, 2^${n}]`);
  const L = Math.min(LO_BITS, n),
    S = 2 ** L;
  const hiCount = Math.ceil(used / S);
  if (hiCount === 0) return [0, 0, 0, 0];
  const hi = eqTableRange(point, 0, n - L, hiCount),
    lo = eqTableRange(point, n - L, n);
  const H = hi.length,
    hd = hi.data,
    ld = lo.data;
  ACC.fill(0);
  for (let h = 0; h < hiCount; h++) {
    let h0 = 0,
      h1 = 0,
      h2 = 0,
      h3 = 0,
      l0 = 0,
      l1 = 0,
      l2 = 0,
      l3 = 0;
    const base = h * S,
      end = Math.min(S, used - base);
    for (let l = 0; l < end; l++) {
      const v = values[base + l]!;
      if (v === 0) continue;
      const vh = v >>> 16,
        vl = v & 0xffff;
      const e0 = ld[l]!,
        e1 = ld[S + l]!,
        e2 = ld[2 * S + l]!,
        e3 = ld[3 * S + l]!;
      h0 += vh * e0;
      h1 += vh * e1;
      h2 += vh * e2;
      h3 += vh * e3;
      l0 += vl * e0;
      l1 += vl * e1;
      l2 += vl * e2;
      l3 += vl * e3;
    }
    const i0 = reduce52(reduce52(h0) * 65536 + l0),
      i1 = reduce52(reduce52(h1) * 65536 + l1);
    const i2 = reduce52(reduce52(h2) * 65536 + l2),
      i3 = reduce52(reduce52(h3) * 65536 + l3);
    extMulSplitTo(TMP, 0, 1, hd[h]!, hd[H + h]!, hd[2 * H + h]!, hd[3 * H + h]!, i0, i1, i2, i3);
    for (let c = 0; c < 4; c++) {
      const a = ACC[c]! + TMP[c]!;
      ACC[c] = a >= P ? a - P : a;
    }
  }
  return [ACC[0]!, ACC[1]!, ACC[2]!, ACC[3]!];
}

/**
 * MLE(values)(point) for a table whose non-zero values may sit anywhere (the claimed outputs of a
 * GKR proof, all zero for the sync verifiers): the used prefix ends after the last non-zero value
 * (one scan, no table built), then `mleEvalUsed`. Values canonical (the GKR verifier checks them).
 * Reference: `mleEvalBase` (test/gkr/mle-split.test.ts).
 * @throws SumcheckError as `mleEvalUsed`.
 */
export function mleEvalTrimmed(values: ArrayLike<number>, point: readonly Ext[]): Ext {
  let used = values.length;
  while (used > 0 && values[used - 1] === 0) used--;
  return mleEvalUsed(values, used, point);
}
