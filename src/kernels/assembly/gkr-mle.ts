// The multilinear extension of a base vector at an extension point (the input claim, compat-v1 §10).
import { OUT_RESULT } from "../abi";
import { fromMontS } from "./field";
import { fold_base_ext, fold_ext } from "./fold";
import { fromMontV } from "./gkr-tables";

const OUT_RES: usize = <usize>OUT_RESULT << 2;

/**
 * MLE of the base table Vb (Montgomery, 2^nbits words) at `point` (nbits canonical extension
 * coordinates, MSB first), by folding into tmp (2^(nbits+1) words); result words 0..3 canonical.
 */
export function gkr_mle_base(Vb: usize, tmp: usize, point: usize, nbits: u32, out: usize): void {
  const res = out + OUT_RES;
  if (nbits == 0) {
    v128.store(res, i32x4.replace_lane(i32x4.splat(0), 0, fromMontS(load<u32>(Vb))));
    return;
  }
  let h: u32 = 1 << (nbits - 1);
  fold_base_ext(tmp, Vb, h, load<u32>(point), load<u32>(point, 4), load<u32>(point, 8), load<u32>(point, 12));
  for (let j: u32 = 1; j < nbits; j++) {
    h >>= 1;
    const c = point + (<usize>j << 4);
    fold_ext(tmp, tmp, h, load<u32>(c), load<u32>(c, 4), load<u32>(c, 8), load<u32>(c, 12));
  }
  v128.store(res, fromMontV(v128.load(tmp)));
}
