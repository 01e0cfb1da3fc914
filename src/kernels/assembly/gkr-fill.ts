// Phase-1 tables of the GKR layer oracle from a layer image (gate lists, see src/gkr/wasm/image.ts).
import { montMulS, vMontMul } from "./field";
import { accumulate } from "./gkr-ext";
import { transpose, zeroWords } from "./gkr-tables";

/**
 * Fills the phase-1 tables from the gate list: A[in1] += coeff·w[out] (Lin),
 * A[in1] += coeff·V[in2]·w[out] (Mul), Pw[in1] += coeff·w[out] (Pow3), scattered into the
 * interleaved scratch tables Aaos/Paos, then transposed into the plane tables A/Pw (length n).
 * Pw/Paos are touched only when the layer has Pow3 gates.
 */
export function gkr_fill(desc: usize, W: usize, Vb: usize, Aaos: usize, Paos: usize, A: usize, Pw: usize, n: u32, nOut: u32): void {
  const mi = n - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  zeroWords(Aaos, n << 2);
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
    accumulate(Aaos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(load<u32>(rec, 8))));
  }
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
    const c = montMulS(load<u32>(rec, 12), load<u32>(Vb + (<usize>(load<u32>(rec, 8) & mi) << 2)));
    accumulate(Aaos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(c)));
  }
  transpose(A, Aaos, n);
  if (nPow > 0) {
    zeroWords(Paos, n << 2);
    for (let g: u32 = 0; g < nPow; g++) {
      const rec = powPtr + <usize>g * 12;
      const w = v128.load(W + (<usize>(load<u32>(rec) & mo) << 4));
      accumulate(Paos + (<usize>(load<u32>(rec, 4) & mi) << 4), vMontMul(w, i32x4.splat(load<u32>(rec, 8))));
    }
    transpose(Pw, Paos, n);
  }
}
