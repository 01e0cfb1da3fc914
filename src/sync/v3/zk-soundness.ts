/**
 * The soundness of a v3-zk proof (docs/profile-v3.md §11.7):
 *
 *   ε ≤ ε_GKR,zk + ε_WHIR′,
 *
 * ε_GKR,zk = (s_out(0) + Σ_i Σ_j δ_(i,j) + (D − 1) + D + (c − 1)) / |K|: the output point, every
 * round polynomial of degree δ (`zkRoundDegrees`: 6·n_x + 4 per layer), the D − 1 combinations of
 * a layer's two claims, the D combinations ρ_i of a layer's sum with its committed mask sum G_i
 * (g_i is fixed by the commitment before ρ_i is drawn), and the batching of the opening's
 * c = D + 2 claims; ε_WHIR′ = 2^−bits of the hiding commitment and masked opening at f's m_z
 * variables (`whirHidingSecurity`: the masked proximity test of ρ·f′ + g′ and WHIR at n, m_z in the
 * layout "top-block" the prover takes by default, m_z + 1 in the layout "extra-variable").
 */
import { LOG2_CHALLENGE_FIELD } from "../../gkr/soundness.js";
import { zkRoundDegrees } from "../../gkr/zk/masks.js";
import { whirHidingSecurity } from "../../pcs/hiding-params.js";
import { DEFAULT_HIDING_WHIR_SET, whirParameterSet, type WhirSetId } from "../../pcs/params.js";
import { inputBitsOf } from "../../gkr/circuit.js";
import type { PreparedV3 } from "./prepared.js";
import { copyBits } from "./message-steps.js";
import { v3ZkHidingLayout, v3ZkVectorLayout } from "./zk-layout.js";
import type { WhirHidingLayout } from "../../pcs/types.js";

/** The terms of one v3-zk proof's soundness bound. */
export interface V3ZkSoundnessBound {
  readonly operations: number;
  readonly copyBits: number;
  /** The numerator of ε_GKR,zk (see the module comment). */
  readonly gkrNumerator: number;
  /** log2 ε_GKR,zk. */
  readonly gkrLog2Error: number;
  readonly pcsSet: WhirSetId;
  /** m_z: variables of the committed vector f (the committed halves and the masks). */
  readonly pcsVariables: number;
  /** The hiding commitment's layout (`v3ZkHidingLayout` unless given). */
  readonly hidingLayout: WhirHidingLayout;
  /** −log2 ε_WHIR′ in the set's own regime. */
  readonly pcsBits: number;
  /** −log2 (ε_GKR,zk + ε_WHIR′). */
  readonly bits: number;
}

/**
 * The bound for `operations` operations (1..4096) of the prepared circuit in zero-knowledge mode.
 * @throws PcsError `PCS_UNKNOWN_SET`, `PCS_TOO_LARGE` (f too large for the set's hiding commitment),
 *   `PCS_TOO_SMALL_TO_HIDE` (a `layout` that does not fit).
 * @example v3ZkSoundness(prepareV3("membership", { depth: 48 }), 1).bits // ≈ 100
 */
export function v3ZkSoundness(
  prepared: PreparedV3,
  operations: number,
  set: WhirSetId = DEFAULT_HIDING_WHIR_SET,
  layout?: WhirHidingLayout,
): V3ZkSoundnessBound {
  const k = copyBits(operations);
  const circuit = prepared.compiled.circuit;
  const D = circuit.layers.length;
  const inputBits = circuit.layers.map((_, i) => inputBitsOf(circuit, i));
  let degrees = 0;
  for (const s of inputBits) for (const d of zkRoundDegrees(s + k)) degrees += d;
  const numerator = circuit.layers[0]!.widthBits + k + degrees + (D - 1) + D + (D + 1);
  const gkrLog2Error = Math.log2(numerator) - LOG2_CHALLENGE_FIELD;
  const z = v3ZkVectorLayout(prepared.compiled.layout, inputBits, k);
  const hidingLayout = layout ?? v3ZkHidingLayout(z, whirParameterSet(set));
  const pcs = whirHidingSecurity(whirParameterSet(set), z.vectorBits, hidingLayout);
  return {
    operations,
    copyBits: k,
    gkrNumerator: numerator,
    gkrLog2Error,
    pcsSet: whirParameterSet(set).id,
    pcsVariables: z.vectorBits,
    hidingLayout,
    pcsBits: pcs.bits,
    bits: -Math.log2(2 ** gkrLog2Error + 2 ** -pcs.bits),
  };
}
