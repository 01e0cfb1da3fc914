/**
 * The object an inner-proof-v1 message carries (compat-v1 §13.3 `encode_sync_result`, §14.1).
 */
import type { GkrProof } from "../gkr/proof.js";
import type { CircuitIdentity, PublicInputs } from "../statement/types.js";

/**
 * An encoded sync result: the circuit identity the proof claims, the public inputs (statement)
 * and the GKR proof. `publicInputs.assetId` is a u64 (bigint), written as two raw u32 halves.
 */
export interface EncodedResult {
  readonly identity: CircuitIdentity;
  readonly publicInputs: PublicInputs;
  readonly proof: GkrProof;
}
