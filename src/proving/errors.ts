import { SsgkrError } from "../errors.js";

/**
 * Errors of the proving pool (pool.ts, docs/http.md "How it runs").
 *
 * Codes:
 * - `PROVER_BUSY`: the pool's queue of that kind of proof is full (`details.kind`, `details.queued`);
 *   retry later (the HTTP API answers 503 with `Retry-After`).
 * - `PROVER_CLOSED`: the pool was closed before the job ran.
 * - `WORKER_CRASHED`: the worker proving a job exited or failed twice in a row (the job was
 *   retried once on a new worker), or a worker could not start (`details.code` says why).
 * - `PROVER_TIMEOUT`: a pool of remote workers (src/proof-jobs) had no result of the job within
 *   its time (no worker took it, or every one that did died); retry later.
 * - `PROOF_JOB_REFUSED`: a remote worker refused the job as over a bound or malformed
 *   (`job_over_bound`, `job_malformed`, `worker_delivery_limit`), or its result did not match
 *   the job (a block part that does not verify, a proof of another name or root).
 */
export class ProvingError extends SsgkrError<ProvingErrorCode> {}

/** Every code a `ProvingError` carries (meanings in docs/errors.md). */
export const PROVING_ERROR_CODES = [
  "PROVER_BUSY",
  "PROVER_CLOSED",
  "WORKER_CRASHED",
  "PROVER_TIMEOUT",
  "PROOF_JOB_REFUSED",
] as const;

/** The code of a `ProvingError`. */
export type ProvingErrorCode = (typeof PROVING_ERROR_CODES)[number];
