import { SsgkrError } from "../errors.js";

/**
 * Misuse of the sumcheck prover or the multilinear tools (the verifier never throws; it returns
 * typed rejections instead).
 *
 * Codes: `DEGREE_TOO_HIGH` (an oracle declares or returns a round polynomial of degree > 4),
 * `BAD_ROUND_MESSAGE` (an oracle returned no evaluations/coefficients or too many),
 * `ROUNDS_EXHAUSTED` (asked for more rounds than the oracle has variables),
 * `BAD_POINT` (a point whose length does not match the table it is applied to),
 * `BAD_TABLE` (a table whose length is not a power of two, or that cannot be folded further).
 */
export class SumcheckError extends SsgkrError<SumcheckErrorCode> {}

/** Every code a `SumcheckError` carries (meanings in docs/errors.md). */
export const SUMCHECK_ERROR_CODES = [
  "DEGREE_TOO_HIGH",
  "BAD_ROUND_MESSAGE",
  "ROUNDS_EXHAUSTED",
  "BAD_POINT",
  "BAD_TABLE",
] as const;

/** The code of a `SumcheckError`. */
export type SumcheckErrorCode = (typeof SUMCHECK_ERROR_CODES)[number];
