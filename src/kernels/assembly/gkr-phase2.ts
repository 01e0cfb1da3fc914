// Start of phase 2 (y rounds) for a GKR layer with Mul gates (compat-v1 §10.4).
import { OUT_RESULT } from "../abi";
import { vAdd, vMontMul } from "./field";
import { accumulate, extMulAoS } from "./gkr-ext";
import { fromMontV, transpose, zeroWords } from "./gkr-tables";

const OUT_RES: usize = <usize>OUT_RESULT << 2;

/**
 * Start of phase 2 for a layer with Mul gates, with eqx = eq(x*, ·) (interleaved, length n):
 * L* = Σ_Lin coeff·w[out]·eqx[in1] and P* = Σ_Pow3 coeff·w[out]·eqx[in1] (result words 0..7,
 * canonical), and the plane table M[y] = Σ_{Mul, in2 = y} coeff·w[out]·eqx[in1] (via Maos).
 */
export function gkr_phase2_start(desc: usize, W: usize, eqx: usize, Maos: usize, M: usize, n: u32, nOut: u32, out: usize): void {
  const mi = n - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  let lin = i32x4.splat(0), pw = lin;
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 8)));
    lin = vAdd(lin, extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  for (let g: u32 = 0; g < nPow; g++) {
    const rec = powPtr + <usize>g * 12;
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 8)));
    pw = vAdd(pw, extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  zeroWords(Maos, n << 2);
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const e = vMontMul(v128.load(eqx + (<usize>(load<u32>(rec, 4) & mi) << 4)), i32x4.splat(load<u32>(rec, 12)));
    accumulate(Maos + (<usize>(load<u32>(rec, 8) & mi) << 4), extMulAoS(e, v128.load(W + (<usize>(load<u32>(rec) & mo) << 4))));
  }
  transpose(M, Maos, n);
  const res = out + OUT_RES;
  v128.store(res, fromMontV(lin));
  v128.store(res, fromMontV(pw), 16);
}
