/**
 * Verdicts of the profile v3 verifiers (docs/profile-v3.md §7): the codes v3 adds, and the union
 * with the decoder's (`DECODE_`), the GKR verifier's (`GKR_`) and the opening's (`PCS_…`) codes.
 */
import type { V3DecodeErrorCode } from "../../codec/v3/errors.js";
import type { GkrRejectCode } from "../../gkr/verifier.js";
import type { PcsRejectCode } from "../../pcs/errors.js";

/** Profile v3's own rejection codes (docs/profile-v3.md §7). */
export const V3_REJECT_CODES = [
  "PROOF_KIND",
  "IDENTITY_MISMATCH",
  "OPERATION_COUNT",
  "WRONG_KIND",
  "BAD_STATEMENT",
  "PUBLIC_INPUTS_MISMATCH",
  "COMMITMENT_SHAPE",
  "INPUT_CLAIM_X",
  "INPUT_CLAIM_Y",
  "EMPTY_BLOCK",
  "MALFORMED_REQUEST",
] as const;

/** A rejection code of the v3 verifiers: v3's own, `DECODE_<code>`, `GKR_<code>` and the opening's `PCS_<…>` codes. */
export type V3RejectCode =
  | (typeof V3_REJECT_CODES)[number]
  | `DECODE_${V3DecodeErrorCode}`
  | `GKR_${GkrRejectCode}`
  | PcsRejectCode;

/** Verdict of a v3 proof: accepted, or the first failure, naming the operation where one is to blame. */
export type V3Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: V3RejectCode; readonly reason: string; readonly operation?: number };
