/**
 * Profile v2 verify (docs/profile-v2.md §6–§7), every check in order; the first failure decides.
 * Never throws on a malformed request or result.
 *
 * | Step | Check | Code |
 * |---|---|---|
 * | 0 | request kind = prepared kind | `WRONG_KIND` |
 * | 1 | result public inputs = request public inputs | `PUBLIC_INPUTS_MISMATCH` |
 * | 2–7 | the native statement checks of compat-v1 §13.2 steps 2–7 (`checkStatement`) | their codes |
 * | 8 | the v2 input vector (§5.1) can be built | `INPUT_VECTOR` |
 * | 9 | GKR verification with zero claimed outputs and the prepared wiring | `GKR_<code>` |
 * | 10 | MLE(input)(x*) = eval_x, then MLE(input)(y*) = eval_y | `INPUT_CLAIM_X`, `INPUT_CLAIM_Y` |
 */
import { verifyGkr } from "../../gkr/verifier.js";
import { mleEvalUsed } from "../../gkr/mle-split.js";
import type { OpRequest } from "../../smt/operation.js";
import { buildV2Inputs } from "../../smt/v2/input-batch.js";
import type { SyncResult } from "../prove.js";
import {
  guardedVerdict,
  inputClaimVerdict,
  inputVectorOrRejection,
  rejection,
  statementRejection,
} from "../verify-steps.js";
import type { SyncCheckCode, SyncVerdict } from "../verify.js";
import type { V2DecodeErrorCode } from "../../codec/v2/errors.js";
import type { PreparedV2 } from "./prepared.js";
import { v2StatementTranscript } from "./statement-transcript.js";

/** Profile v2's own rejection codes: aggregates (`OPERATION_COUNT`) and blocks (`verifyBlock`). */
export const V2_REJECT_CODES = [
  "OPERATION_COUNT",
  "EMPTY_BLOCK",
  "FROM_ROOT_MISMATCH",
  "CHAIN_BROKEN",
  "TO_ROOT_MISMATCH",
] as const;

/**
 * A rejection code of the profile v2 verifiers (`verifyV2`, `verifyEncodedV2`, `verifyAggregate`,
 * `verifyBlock`): v2's own, compat-v1's composed checks, and the v2 decoder's prefixed `DECODE_`.
 */
export type V2RejectCode = (typeof V2_REJECT_CODES)[number] | SyncCheckCode | `DECODE_${V2DecodeErrorCode}`;

/** Outcome of a profile v2 verification. */
export type V2Verdict = SyncVerdict<V2RejectCode>;

function verifyUnguarded(prepared: PreparedV2, request: OpRequest, result: SyncResult): V2Verdict {
  const early = statementRejection(prepared, request, result);
  if (early) return early;
  const layout = prepared.compiled.layout;
  const input = inputVectorOrRejection(() => buildV2Inputs(layout, [request]));
  if (!(input instanceof Uint32Array)) return input;
  const zeros = new Uint32Array(2 ** prepared.shape.layerWidthBits[0]!);
  const transcript = v2StatementTranscript(prepared.compiled, prepared.commitment, request.publicInputs, zeros);
  const gkr = verifyGkr(prepared.shape, prepared.wiring, zeros, result.proof, transcript);
  if (!gkr.ok) return rejection(`GKR_${gkr.code}`, gkr.reason);
  const claim = gkr.inputClaim;
  return inputClaimVerdict(
    mleEvalUsed(input, layout.inputTotal, claim.x),
    mleEvalUsed(input, layout.inputTotal, claim.y),
    claim,
  );
}

/**
 * Verifies a v2 result against the original request with the prepared circuit, commitment and
 * wiring; a verdict with a stable code (see the table above).
 * @example
 *   const verdict = verifyV2(prepared, request, proveV2(prepared, request)); // { ok: true }
 */
export function verifyV2(prepared: PreparedV2, request: OpRequest, result: SyncResult): V2Verdict {
  return guardedVerdict<V2Verdict>(
    () => verifyUnguarded(prepared, request, result),
    (reason) => rejection("MALFORMED_REQUEST", reason),
  );
}
