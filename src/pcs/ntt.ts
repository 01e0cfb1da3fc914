/**
 * The number-theoretic transform over KoalaBear (docs/pcs.md §4.1): values[i] ← Σ_j c_j ω^(i·j)
 * for the subgroup of order n = 2^logN, in place, natural order in and out, on `width`
 * interleaved lanes (width 1: base-field vectors; width 4: extension vectors, coordinate-wise,
 * since ω is in the base field). Radix-2 decimation in time after a bit-reversal permutation.
 * `evaluateNaive` is the O(n²) definition the tests compare it with.
 */
import { add, mul, sub } from "../field/koalabear.js";
import { powers, rootOfUnity } from "./domain.js";

/** Forward NTT in place on `width` interleaved lanes of 2^logN elements (the reference; `pcsNtt` in src/pcs/backend.ts dispatches to this thread's backend). */
export function nttReference(values: Uint32Array, width: number, logN: number): void {
  const n = 1 << logN;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      for (let l = 0; l < width; l++) {
        const a = values[i * width + l]!;
        values[i * width + l] = values[j * width + l]!;
        values[j * width + l] = a;
      }
    }
  }
  for (let logLen = 1; logLen <= logN; logLen++) {
    const len = 1 << logLen;
    const half = len >> 1;
    const twiddles = powers(rootOfUnity(logLen), half);
    for (let start = 0; start < n; start += len) {
      for (let k = 0; k < half; k++) {
        const t = twiddles[k]!;
        const lo = (start + k) * width;
        const hi = (start + k + half) * width;
        for (let l = 0; l < width; l++) {
          const u = values[lo + l]!;
          const x = mul(values[hi + l]!, t);
          values[lo + l] = add(u, x);
          values[hi + l] = sub(u, x);
        }
      }
    }
  }
}

/** The definition: out[i] = Σ_j c_j ω^(i·j) on `width` lanes, O(n²) (tests only). */
export function evaluateNaive(coeffs: Uint32Array, width: number, logN: number): Uint32Array {
  const n = 1 << logN;
  const w = rootOfUnity(logN);
  const out = new Uint32Array(n * width);
  const count = coeffs.length / width;
  let x = 1;
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < width; l++) {
      let acc = 0;
      for (let j = count - 1; j >= 0; j--) acc = add(mul(acc, x), coeffs[j * width + l]!);
      out[i * width + l] = acc;
    }
    x = mul(x, w);
  }
  return out;
}
