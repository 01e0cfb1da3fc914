/**
 * Discharging the GKR input claim (compat-v1 §13.2 step 10): MLE(input)(x*) = eval_x, then
 * MLE(input)(y*) = eval_y.
 */
import { isCanonical } from "../field/koalabear.js";
import { extEq } from "../field/extension.js";
import { mleEvalBase } from "../sumcheck/mle.js";
import type { InputClaim } from "./proof.js";

/**
 * True iff both evaluations of the input vector's MLE match the claim. `input` is zero-padded to
 * 2^len(x*); a longer input, a non-canonical value or mismatched point lengths give false (never throws).
 */
export function checkInputClaim(input: ArrayLike<number>, claim: InputClaim): boolean {
  const n = claim.x.length;
  if (claim.y.length !== n || n > 30 || input.length > 2 ** n) return false;
  const padded = new Uint32Array(2 ** n);
  for (let k = 0; k < input.length; k++) {
    const v = input[k];
    if (!isCanonical(v)) return false;
    padded[k] = v;
  }
  return extEq(mleEvalBase(padded, claim.x), claim.evalX) && extEq(mleEvalBase(padded, claim.y), claim.evalY);
}
