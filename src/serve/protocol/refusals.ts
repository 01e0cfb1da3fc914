/**
 * Error reasons of server replies other than input errors (compat-v1 §16.3).
 */

/** Server refusal reasons, exactly as they appear in `Reply.error`. */
export const REFUSALS = Object.freeze({
  /** The server's total queue (all kinds) holds `max-queue` jobs. */
  totalQueueFull: "server_total_queue_full",
  /** The ingress stage between the connection readers and the scheduler is full. */
  ingressQueueFull: "server_ingress_queue_full",
  /** The server is stopping and takes no more jobs. */
  stopping: "server_stopping",
  /** The job was still queued when the run limit (or a stop) ended computing. */
  runLimitBeforeCompute: "server_run_limit_before_compute",
} as const);

/** A refusal reason of the server (compat-v1 §16.3), e.g. `server_total_queue_full`. */
export type Refusal = (typeof REFUSALS)[keyof typeof REFUSALS];

/** Prefix of witness failures, applied to every job of the failing batch (`witness: …`). */
export const WITNESS_ERROR_PREFIX = "witness: ";
