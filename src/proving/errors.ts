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
 */
export class ProvingError extends SsgkrError<ProvingErrorCode> {}

/** Every code a `ProvingError` carries (meanings in docs/errors.md). */
export const PROVING_ERROR_CODES = ["PROVER_BUSY", "PROVER_CLOSED", "WORKER_CRASHED"] as const;

/** The code of a `ProvingError`. */
export type ProvingErrorCode = (typeof PROVING_ERROR_CODES)[number];
