import { SsgkrError } from "../../errors.js";
import type { ParallelErrorCode } from "../../sync/parallel/errors.js";

/**
 * Errors of the load generator (compat-v1 §16.5). Codes: `BAD_OPTION` (an option outside its
 * range or malformed; `details.option` names it), `OUT_EXISTS` (the output directory or one of its
 * files already exists), `OUT_WRITE` (an output file could not be written), `CONNECT` (a target
 * could not be reached before the run), `CONTROLS` (a control proof was not as required),
 * `NOT_ATTACHED` (a verification worker was asked about a circuit it does not hold).
 */
export class LoadError extends SsgkrError<LoadErrorCode> {}

/** Every code a `LoadError` carries (meanings in docs/errors.md). */
export const LOAD_ERROR_CODES = [
  "BAD_OPTION",
  "OUT_EXISTS",
  "OUT_WRITE",
  "CONNECT",
  "CONTROLS",
  "RESUME",
  "NOT_ATTACHED",
] as const;

/** The code of a `LoadError`. */
export type LoadErrorCode = (typeof LOAD_ERROR_CODES)[number];

/**
 * Why the verification pool gave no verdict (`PoolVerdict` with `ok: false`): the pool's own
 * codes, or the code of the error the verification raised in its worker.
 */
export const VERIFY_POOL_CODES = ["VERIFIER_CRASHED", "POOL_CLOSED", "JOB_ENCODING", "UNEXPECTED"] as const;

/** The code of a verification the pool could not run. */
export type VerifyPoolCode = (typeof VERIFY_POOL_CODES)[number] | LoadErrorCode | ParallelErrorCode;
