/**
 * Extension multiplication (K = F_p[X]/(X^4 − 3), compat-v1 §2) with exact double arithmetic,
 * for the verifier's small hot loops.
 *
 * The second operand's coefficients are split into 16-bit halves b = bh·2^16 + bl. Every partial
 * product a·bh < 2^31·2^15 and a·bl < 2^31·2^16, even times 3, is an exact integer in a double,
 * and so are the sums of four of them (< 2^51). Each output coefficient is then
 * reduce(reduce(Σ a·bh)·2^16 + Σ a·bl): about three times faster in V8 than sixteen field `mul`
 * calls, and bit-identical (canonical results in [0, p)). Operands must be canonical.
 */
import { P } from "../field/koalabear.js";

const INV_P = 1 / P;

/**
 * x mod p for a non-negative integer x < 2^53 held in a double. The quotient estimate is off by
 * at most one (x/p < 2^22), and x − q·p is exact, so one correction step suffices.
 */
export function reduce52(x: number): number {
  const q = Math.floor(x * INV_P);
  const r = x - q * P;
  return r < 0 ? r + P : r >= P ? r - P : r;
}

/** Writes a·b into out[o + k·stride] (k = 0..3); operands canonical. */
export function extMulSplitTo(
  out: Uint32Array | Float64Array,
  o: number,
  stride: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  const h0 = b0 >>> 16,
    l0 = b0 & 0xffff,
    h1 = b1 >>> 16,
    l1 = b1 & 0xffff;
  const h2 = b2 >>> 16,
    l2 = b2 & 0xffff,
    h3 = b3 >>> 16,
    l3 = b3 & 0xffff;
  const t1 = 3 * a1,
    t2 = 3 * a2,
    t3 = 3 * a3;
  out[o] = reduce52(reduce52(a0 * h0 + t1 * h3 + t2 * h2 + t3 * h1) * 65536 + (a0 * l0 + t1 * l3 + t2 * l2 + t3 * l1));
  out[o + stride] = reduce52(
    reduce52(a0 * h1 + a1 * h0 + t2 * h3 + t3 * h2) * 65536 + (a0 * l1 + a1 * l0 + t2 * l3 + t3 * l2),
  );
  out[o + 2 * stride] = reduce52(
    reduce52(a0 * h2 + a1 * h1 + a2 * h0 + t3 * h3) * 65536 + (a0 * l2 + a1 * l1 + a2 * l0 + t3 * l3),
  );
  out[o + 3 * stride] = reduce52(
    reduce52(a0 * h3 + a1 * h2 + a2 * h1 + a3 * h0) * 65536 + (a0 * l3 + a1 * l2 + a2 * l1 + a3 * l0),
  );
}

/**
 * Adds a·b (canonical coefficients) into the unreduced accumulator acc[0..3]. Each call adds
 * less than 2^31 per coefficient, so up to 2^21 calls stay exact before a `reduce52`.
 */
export function extMulSplitAcc(
  acc: Float64Array,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  const h0 = b0 >>> 16,
    l0 = b0 & 0xffff,
    h1 = b1 >>> 16,
    l1 = b1 & 0xffff;
  const h2 = b2 >>> 16,
    l2 = b2 & 0xffff,
    h3 = b3 >>> 16,
    l3 = b3 & 0xffff;
  const t1 = 3 * a1,
    t2 = 3 * a2,
    t3 = 3 * a3;
  acc[0] =
    acc[0]! +
    reduce52(reduce52(a0 * h0 + t1 * h3 + t2 * h2 + t3 * h1) * 65536 + (a0 * l0 + t1 * l3 + t2 * l2 + t3 * l1));
  acc[1] =
    acc[1]! +
    reduce52(reduce52(a0 * h1 + a1 * h0 + t2 * h3 + t3 * h2) * 65536 + (a0 * l1 + a1 * l0 + t2 * l3 + t3 * l2));
  acc[2] =
    acc[2]! +
    reduce52(reduce52(a0 * h2 + a1 * h1 + a2 * h0 + t3 * h3) * 65536 + (a0 * l2 + a1 * l1 + a2 * l0 + t3 * l3));
  acc[3] =
    acc[3]! +
    reduce52(reduce52(a0 * h3 + a1 * h2 + a2 * h1 + a3 * h0) * 65536 + (a0 * l3 + a1 * l2 + a2 * l1 + a3 * l0));
}

/** c·v mod p for canonical c, v (c split into 16-bit halves; both partial products exact). */
export function mulSplit(c: number, v: number): number {
  return reduce52(reduce52((c >>> 16) * v) * 65536 + (c & 0xffff) * v);
}

/** Scratch for tuple results of `extMulSplit`. */
const TMP = new Float64Array(4);

/** a·b as a tuple (canonical operands). */
export function extMulSplit(
  a: readonly [number, number, number, number],
  b: readonly [number, number, number, number],
): [number, number, number, number] {
  extMulSplitTo(TMP, 0, 1, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
  return [TMP[0]!, TMP[1]!, TMP[2]!, TMP[3]!];
}
