import type { EncodeErrorCode } from "../../codec/errors.js";
import { SsgkrError } from "../../errors.js";
import type { FieldErrorCode } from "../../field/errors.js";
import type { CircuitErrorCode } from "../../gkr/errors.js";
import type { KernelErrorCode } from "../../kernels/errors.js";
import type { CompileErrorCode, SmtErrorCode } from "../../smt/errors.js";
import type { SumcheckErrorCode } from "../../sumcheck/errors.js";
import type { SyncErrorCode } from "../../statement/errors.js";

/**
 * Errors of the worker pool and of shared prepared circuits. Codes: `BAD_OPTION` (a pool option
 * out of range), `BAD_SHARED` (a shared prepared circuit descriptor that does not describe a
 * circuit), `POOL_CLOSED` (submission to a closed pool), `POOL_BROKEN` (workers keep crashing
 * without completing a job; the pool stopped respawning them).
 */
export class ParallelError extends SsgkrError<ParallelErrorCode> {}

/** Every code a `ParallelError` carries (meanings in docs/errors.md). */
export const PARALLEL_ERROR_CODES = [
  "BAD_OPTION",
  "BAD_SHARED",
  "POOL_CLOSED",
  "POOL_BROKEN",
  "NOT_ATTACHED",
  "NOT_IN_WORKER",
] as const;

/** The code of a `ParallelError`. */
export type ParallelErrorCode = (typeof PARALLEL_ERROR_CODES)[number];

/**
 * The failure of one job of a parallel batch, reported with the job's input index
 * (`details.index`). `code` is the code of the error the job raised in its worker (e.g.
 * `WITNESS`, `WRONG_KIND`, the same code the sequential path throws; `details.origin` is that
 * error's class name), or one of the pool's own codes:
 * - `WORKER_CRASHED`: the worker running the job exited or threw outside the job (e.g. out of
 *   memory); `details.exitCode`, `details.reason`. The worker is replaced.
 * - `POOL_CLOSED`: the pool was closed before the job completed.
 * - `POOL_BROKEN`: the pool stopped respawning workers (see `ParallelError`).
 * - `JOB_ENCODING`: the job could not be sent to a worker (a value that cannot be cloned).
 */
export class JobError extends SsgkrError<JobErrorCode> {}

/** The pool's own codes of a `JobError` (meanings in docs/errors.md). */
export const JOB_ERROR_CODES = ["WORKER_CRASHED", "POOL_CLOSED", "POOL_BROKEN", "JOB_ENCODING", "UNEXPECTED"] as const;

/**
 * The code of a `JobError`: one of the pool's own (`UNEXPECTED`: the job threw something that
 * is not an `SsgkrError`, a bug), or the code of the error the job raised in its worker.
 */
export type JobErrorCode =
  | (typeof JOB_ERROR_CODES)[number]
  | ParallelErrorCode
  | SyncErrorCode
  | SmtErrorCode
  | CompileErrorCode
  | CircuitErrorCode
  | SumcheckErrorCode
  | FieldErrorCode
  | KernelErrorCode
  | EncodeErrorCode;
