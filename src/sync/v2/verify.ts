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
import { SsgkrError } from "../../errors.js";
import { extEq } from "../../field/extension.js";
import { digestEquals } from "../../hash/digest.js";
import { verifyGkr } from "../../gkr/verifier.js";
import { mleEvalBase } from "../../sumcheck/mle.js";
import type { OpRequest } from "../../smt/operation.js";
import { checkStatement } from "../../smt/semantics.js";
import { buildV2Input } from "../../smt/v2/input.js";
import type { SyncResult } from "../prove.js";
import type { PublicInputs } from "../types.js";
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
export type V2RejectCode =
  | (typeof V2_REJECT_CODES)[number]
  | SyncCheckCode
  | `DECODE_${V2DecodeErrorCode}`;

/** Outcome of a profile v2 verification. */
export type V2Verdict = SyncVerdict<V2RejectCode>;

function rejection(code: V2RejectCode, reason: string): V2Verdict {
  return { ok: false, code, reason };
}

function publicInputsEqual(a: PublicInputs, b: PublicInputs): boolean {
  return digestEquals(a.oldRoot, b.oldRoot) && digestEquals(a.newRoot, b.newRoot) && a.opKindTag === b.opKindTag
    && a.assetId === b.assetId && digestEquals(a.valueDigest, b.valueDigest);
}

function verifyUnguarded(prepared: PreparedV2, request: OpRequest, result: SyncResult): V2Verdict {
  if (request?.operation?.kind !== prepared.kind) {
    return rejection("WRONG_KIND", `the request is of kind ${String(request?.operation?.kind)}, the prepared circuit of kind ${prepared.kind}`);
  }
  if (!result || typeof result !== "object" || !result.publicInputs || !publicInputsEqual(result.publicInputs, request.publicInputs)) {
    return rejection("PUBLIC_INPUTS_MISMATCH", "the proof's public inputs differ from the request's");
  }
  const statement = checkStatement(request, prepared.config);
  if (!statement.valid) return rejection(statement.code, statement.message);
  let input: Uint32Array;
  try {
    input = buildV2Input(prepared.compiled.layout, request);
  } catch (err) {
    if (err instanceof SsgkrError) return rejection("INPUT_VECTOR", `the input vector cannot be built: ${err.message}`);
    throw err;
  }
  const zeros = new Uint32Array(2 ** prepared.shape.layerWidthBits[0]!);
  const transcript = v2StatementTranscript(prepared.compiled, prepared.commitment, request.publicInputs, zeros);
  const gkr = verifyGkr(prepared.shape, prepared.wiring, zeros, result.proof, transcript);
  if (!gkr.ok) return rejection(`GKR_${gkr.code}`, gkr.reason);
  const claim = gkr.inputClaim;
  if (!extEq(mleEvalBase(input, claim.x), claim.evalX)) return rejection("INPUT_CLAIM_X", "MLE(input)(x*) differs from the last layer's eval_x");
  if (!extEq(mleEvalBase(input, claim.y), claim.evalY)) return rejection("INPUT_CLAIM_Y", "MLE(input)(y*) differs from the last layer's eval_y");
  return { ok: true };
}

/**
 * Verifies a v2 result against the original request with the prepared circuit, commitment and
 * wiring; a verdict with a stable code (see the table above).
 * @example
 *   const verdict = verifyV2(prepared, request, proveV2(prepared, request)); // { ok: true }
 */
export function verifyV2(prepared: PreparedV2, request: OpRequest, result: SyncResult): V2Verdict {
  try {
    return verifyUnguarded(prepared, request, result);
  } catch (err) {
    if (err instanceof SsgkrError || err instanceof TypeError || err instanceof RangeError) {
      return rejection("MALFORMED_REQUEST", `malformed request or proof: ${(err as Error).message}`);
    }
    throw err;
  }
}
