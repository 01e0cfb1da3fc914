/**
 * Comparison of circuit identities (compat-v1 §13.3 `verify_encoded_sync_op`).
 */
import { digestEquals } from "../hash/digest.js";
import type { CircuitIdentity } from "../statement/types.js";

/**
 * True iff two circuit identities agree in all seven fields: op_kind_tag, depth, circuit_version,
 * leaf_encoding_version, leaf_max_fields, strategy id and the 8-element commitment.
 * A decoded identity must equal `circuit_identity(prepared)` before any proof check (compat-v1 §13.3).
 * Never throws.
 */
export function identityEquals(a: CircuitIdentity, b: CircuitIdentity): boolean {
  return (
    a.opKindTag === b.opKindTag &&
    a.depth === b.depth &&
    a.circuitVersion === b.circuitVersion &&
    a.leafEncodingVersion === b.leafEncodingVersion &&
    a.leafMaxFields === b.leafMaxFields &&
    a.strategyId === b.strategyId &&
    a.commitment.length === 8 &&
    digestEquals(a.commitment, b.commitment)
  );
}
