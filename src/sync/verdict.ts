/**
 * The verdict of the composed verifiers (src/sync/verify.ts) and of the steps they share with
 * profile v2 (src/sync/verify-steps.ts): their rejection codes, as a runtime list and unions, and
 * the verdict shape. Types and the code list only, so both files import it and neither imports
 * the other.
 */
import type { DecodeErrorCode } from "../codec/errors.js";
import type { GkrRejectCode } from "../gkr/verifier.js";
import type { StatementRejectCode } from "../smt/semantics.js";

/**
 * The composed verifiers' own rejection codes (the table of src/sync/verify.ts; `PROOF_TOO_LARGE`,
 * `IDENTITY_MISMATCH` from `verifyEncoded`, `UNSUPPORTED_CONFIG` from `verifyRequestProof`).
 */
export const SYNC_REJECT_CODES = [
  "WRONG_KIND",
  "PUBLIC_INPUTS_MISMATCH",
  "INPUT_VECTOR",
  "INPUT_CLAIM_X",
  "INPUT_CLAIM_Y",
  "MALFORMED_REQUEST",
  "PROOF_TOO_LARGE",
  "IDENTITY_MISMATCH",
  "UNSUPPORTED_CONFIG",
] as const;

/** A rejection code of the composed checks: their own, the statement checks', and the GKR verifier's prefixed `GKR_`. */
export type SyncCheckCode = (typeof SYNC_REJECT_CODES)[number] | StatementRejectCode | `GKR_${GkrRejectCode}`;

/**
 * A rejection code of `verifyPrepared`, `verifyEncoded` and `verifyRequestProof`: the composed
 * checks' and the strict decoder's (compat-v1 §14.3).
 */
export type SyncRejectCode = SyncCheckCode | DecodeErrorCode;

/** Outcome of a verification: accepted, or rejected with a stable code (`C`) and a reason. */
export type SyncVerdict<C extends string = SyncRejectCode> =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: C; readonly reason: string };
