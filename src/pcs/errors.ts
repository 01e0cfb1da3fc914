import { SsgkrError } from "../errors.js";

/**
 * Thrown by the polynomial commitment (src/pcs) for input it cannot use: an unknown parameter
 * set, a polynomial too large for KoalaBear's two-adic subgroup, evaluation vectors of the wrong
 * length, claims whose points have the wrong number of coordinates, proof and commitment bytes
 * that do not decode (docs/pcs.md §7, §12.5), a vector too small for a hiding commitment (§12.2), a second opening of a hiding commitment, a bad pool option, a closed pool or a worker that died.
 */
export class PcsError extends SsgkrError<PcsErrorCode> {}

/** Every code a `PcsError` carries (meanings in docs/errors.md). */
export const PCS_ERROR_CODES = [
  "PCS_UNKNOWN_SET",
  "PCS_TOO_LARGE",
  "PCS_TOO_SMALL_TO_HIDE",
  "PCS_ALREADY_OPENED",
  "PCS_BAD_POLYNOMIAL",
  "PCS_BAD_CLAIM",
  "PCS_DECODE",
  "PCS_WEAKER_THAN_ACCEPTED",
  "PCS_BAD_OPTION",
  "PCS_POOL_CLOSED",
  "PCS_WORKER_CRASHED",
] as const;

/** The code of a `PcsError`. */
export type PcsErrorCode = (typeof PCS_ERROR_CODES)[number];

/** Every code a failed opening verdict carries (meanings in docs/errors.md). */
export const PCS_REJECT_CODES = [
  "PCS_DECODE",
  "PCS_SET_NOT_ACCEPTED",
  "PCS_BAD_CLAIM",
  "PCS_SHAPE",
  "PCS_PROOF_OF_WORK",
  "PCS_MERKLE",
  "PCS_FINAL_POLYNOMIAL",
  "PCS_FINAL_CLAIM",
] as const;

/** The code of a rejected opening. */
export type PcsRejectCode = (typeof PCS_REJECT_CODES)[number];
