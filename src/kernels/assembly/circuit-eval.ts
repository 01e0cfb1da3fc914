// Circuit-layer evaluation (compat-v1 §7): the witness of one layer from the layer below, in
// Montgomery form. Not part of the sumcheck; it uses the same layer images (src/gkr/wasm/image.ts).
import { P, addS, montMulS } from "./field";
import { zeroWords } from "./gkr-tables";

/** out[o] += v (mod p). */
// @ts-ignore: decorator
@inline function addAt(out: usize, o: u32, v: u32): void {
  const at = out + (<usize>o << 2);
  const s = load<u32>(at) + v;
  store<u32>(at, s >= P ? s - P : s);
}

/**
 * Evaluates one layer (compat-v1 §7) in Montgomery form: out (nOut words) ← Σ consts +
 * Σ_Lin coeff·V[in1] + Σ_Mul coeff·V[in1]·V[in2] + Σ_Pow3 coeff·V[in1]³, V = below (nIn words).
 * Consecutive gates of one kind with the same output are summed in a register and added to
 * memory once per run.
 */
export function gkr_eval_layer(desc: usize, below: usize, out: usize, nIn: u32, nOut: u32): void {
  const mi = nIn - 1, mo = nOut - 1;
  const linPtr = <usize>load<u32>(desc), nLin = load<u32>(desc, 4);
  const mulPtr = <usize>load<u32>(desc, 8), nMul = load<u32>(desc, 12);
  const powPtr = <usize>load<u32>(desc, 16), nPow = load<u32>(desc, 20);
  const constPtr = <usize>load<u32>(desc, 24), nConst = load<u32>(desc, 28);
  zeroWords(out, nOut);
  for (let c: u32 = 0; c < nConst; c++) {
    const rec = constPtr + (<usize>c << 3);
    addAt(out, load<u32>(rec) & mo, load<u32>(rec, 4));
  }
  let cur: u32 = 0, acc: u32 = 0;
  for (let g: u32 = 0; g < nLin; g++) {
    const rec = linPtr + <usize>g * 12;
    const o = load<u32>(rec) & mo;
    const v = montMulS(load<u32>(rec, 8), load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2)));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  for (let g: u32 = 0; g < nMul; g++) {
    const rec = mulPtr + (<usize>g << 4);
    const o = load<u32>(rec) & mo;
    const a = load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2));
    const b = load<u32>(below + (<usize>(load<u32>(rec, 8) & mi) << 2));
    const v = montMulS(load<u32>(rec, 12), montMulS(a, b));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  for (let g: u32 = 0; g < nPow; g++) {
    const rec = powPtr + <usize>g * 12;
    const o = load<u32>(rec) & mo;
    const a = load<u32>(below + (<usize>(load<u32>(rec, 4) & mi) << 2));
    const v = montMulS(load<u32>(rec, 8), montMulS(montMulS(a, a), a));
    if (o != cur) {
      addAt(out, cur, acc);
      cur = o;
      acc = v;
    } else {
      acc = addS(acc, v);
    }
  }
  addAt(out, cur, acc);
}
