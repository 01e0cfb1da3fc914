/**
 * Composed verifier (compat-v1 §13.2), every check in order; the first failure decides. It never
 * throws on a malformed request or result: it returns a typed verdict with a stable code.
 *
 * | Step | Check | Code |
 * |---|---|---|
 * | 0 | request kind = prepared kind | `WRONG_KIND` |
 * | 1 | result public inputs = request public inputs (all five fields) | `PUBLIC_INPUTS_MISMATCH` |
 * | 2 | op_kind_tag = operation kind; asset_id = operation key | `OP_KIND_MISMATCH`, `ASSET_ID_MISMATCH` |
 * | 3 | kind ≠ Update ⇒ new_root = old_root | `ROOT_CHANGED` |
 * | 4 | depth < 64 ⇒ asset_id < 2^depth | `KEY_OUT_OF_RANGE` |
 * | 5 | value_digest as §13.2 step 5 (unhashable leaf never matches) | `VALUE_DIGEST_MISMATCH`, `LEAF_ENCODING` |
 * | 6 | NonMembership: witness leaf Empty or Tombstone | `WITNESS_NOT_ABSENT` |
 * | 7 | Update: witness leaf = old_leaf | `WITNESS_NOT_OLD_LEAF` |
 * | 8 | the input vector (§9.2) can be built | `INPUT_VECTOR` |
 * | 9 | GKR verification with zero claimed outputs (§10.5) | `GKR_<code>` (e.g. `GKR_END_CHECK_FAILED`) |
 * | 10 | MLE(input)(x*) = eval_x, then MLE(input)(y*) = eval_y | `INPUT_CLAIM_X`, `INPUT_CLAIM_Y` |
 *
 * A request whose values are malformed gets `MALFORMED_REQUEST`.
 */
import { verifyGkr } from "../gkr/verifier.js";
import { mleEvalBase } from "../sumcheck/mle.js";
import type { OpRequest } from "../smt/operation.js";
import { buildInputVectorFor } from "../smt/witness.js";
import type { SyncConfig } from "../smt/config.js";
import { type PreparedSync, prepare } from "./prepared.js";
import type { SyncResult } from "./prove.js";
import { statementTranscript } from "./statement-transcript.js";
import type { SyncVerdict } from "./verdict.js";
import {
  guardedVerdict,
  inputClaimVerdict,
  inputVectorOrRejection,
  rejection,
  statementRejection,
} from "./verify-steps.js";

export { SYNC_REJECT_CODES, type SyncCheckCode, type SyncRejectCode, type SyncVerdict } from "./verdict.js";

function verifyUnguarded(prepared: PreparedSync, request: OpRequest, result: SyncResult): SyncVerdict {
  const early = statementRejection(prepared, request, result);
  if (early) return early;
  const input = inputVectorOrRejection(() =>
    buildInputVectorFor(prepared.compiled.layout, prepared.config.leafMaxFields, request),
  );
  if (!(input instanceof Uint32Array)) return input;

  const zeros = new Uint32Array(2 ** prepared.shape.layerWidthBits[0]!);
  const transcript = statementTranscript(
    prepared.circuit,
    prepared.kind,
    prepared.config.depth,
    prepared.commitment,
    request.publicInputs,
    zeros,
  );
  const gkr = verifyGkr(prepared.shape, prepared.wiring, zeros, result.proof, transcript);
  if (!gkr.ok) return rejection(`GKR_${gkr.code}`, gkr.reason);
  const claim = gkr.inputClaim;
  return inputClaimVerdict(mleEvalBase(input, claim.x), mleEvalBase(input, claim.y), claim);
}

/**
 * verify_sync_op_prepared with a reason: checks `result` against the original `request` with the
 * prepared circuit, commitment and wiring.
 */
export function verifyPrepared(prepared: PreparedSync, request: OpRequest, result: SyncResult): SyncVerdict {
  return guardedVerdict(
    () => verifyUnguarded(prepared, request, result),
    (reason) => rejection("MALFORMED_REQUEST", reason),
  );
}

/** verify_sync_op: compiles and commits afresh, then verifies; a plain boolean. */
export function verifySync(request: OpRequest, result: SyncResult, config: Partial<SyncConfig> = {}): boolean {
  let prepared: PreparedSync;
  try {
    prepared = prepare(request.operation.kind, config);
  } catch {
    return false;
  }
  return verifyPrepared(prepared, request, result).ok;
}
