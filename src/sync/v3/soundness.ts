/**
 * The soundness of a profile v3 proof (docs/profile-v3.md §8, docs/security.md "Profile v3"):
 *
 *   ε ≤ ε_GKR + ε_WHIR,
 *
 * ε_GKR the bound of `gkrSoundnessBound` for the copies' shape (K = 2^k copies: every width + k),
 * ε_WHIR = 2^−bits of the WHIR set at the committed halves' k + s − 1 variables (`whirSecurity`,
 * in the set's own regime). The split of the input claims into the public and the committed half
 * is an identity of multilinear polynomials and adds no term; the statement digests and the Merkle
 * trees add the hash assumptions only (Poseidon2-16 collision resistance, docs/security.md).
 */
import { gkrSoundnessBound } from "../../gkr/soundness.js";
import { DEFAULT_WHIR_SET, whirParameterSet, type WhirSetId } from "../../pcs/params.js";
import { whirSecurity } from "../../pcs/security.js";
import type { PreparedV3 } from "./prepared.js";

/** The terms of one v3 proof's soundness bound. */
export interface V3SoundnessBound {
  readonly operations: number;
  readonly copyBits: number;
  /** log2 ε_GKR. */
  readonly gkrLog2Error: number;
  readonly pcsSet: WhirSetId;
  /** Variables of the committed polynomial (k + s − 1). */
  readonly pcsVariables: number;
  /** −log2 ε_WHIR in the set's own regime. */
  readonly pcsBits: number;
  /** −log2 (ε_GKR + ε_WHIR). */
  readonly bits: number;
}

/**
 * The bound for `operations` operations (1..4096) of the prepared circuit under a WHIR set.
 * @throws PcsError `PCS_UNKNOWN_SET`, `PCS_TOO_LARGE`.
 * @example v3Soundness(prepareV3("update", { depth: 48 }), 1024).bits // ≈ 100
 */
export function v3Soundness(
  prepared: PreparedV3,
  operations: number,
  set: WhirSetId = DEFAULT_WHIR_SET,
): V3SoundnessBound {
  let k = 0;
  while (2 ** k < operations) k++;
  const shape = {
    layerWidthBits: prepared.shape.layerWidthBits.map((b) => b + k),
    inputWidthBits: prepared.shape.inputWidthBits + k,
  };
  const gkr = gkrSoundnessBound(shape);
  const m = k + prepared.compiled.layout.inputBits - 1;
  const pcs = whirSecurity(whirParameterSet(set), m);
  const bits = -Math.log2(2 ** gkr.log2Error + 2 ** -pcs.bits);
  return {
    operations,
    copyBits: k,
    gkrLog2Error: gkr.log2Error,
    pcsSet: whirParameterSet(set).id,
    pcsVariables: m,
    pcsBits: pcs.bits,
    bits,
  };
}
