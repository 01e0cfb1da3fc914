/**
 * Names on the broker (docs/scale-out.md): two JetStream streams, a subject per operation kind
 * for jobs, a subject per run for results, one durable pull consumer per kind shared by every
 * worker, and the message ids JetStream's duplicate window de-duplicates on.
 */
import { createHash } from "node:crypto";
import { OP_KIND_NAMES, type OpKindName } from "../../statement/types.js";

/** Work-queue stream of jobs (one subject per kind; a job is removed once acked). */
export const JOBS_STREAM = "SSGKR_JOBS";
/** Stream of results (Reply JSON frame + proof frame, as protocol 1), one subject per run. */
export const RESULTS_STREAM = "SSGKR_RESULTS";

export const JOB_SUBJECTS_WILDCARD = "ssgkr.jobs.*";
export const RESULT_SUBJECTS_WILDCARD = "ssgkr.results.*";

/** The kinds in kind-tag order. */
export const NATS_KINDS: readonly OpKindName[] = OP_KIND_NAMES;

/** `ssgkr.jobs.<kind>`. */
export function jobSubject(kind: OpKindName): string {
  return `ssgkr.jobs.${kind}`;
}

/** Durable pull consumer of a kind, shared by every worker. */
export function jobConsumer(kind: OpKindName): string {
  return `ssgkr-${kind}`;
}

/**
 * The subject token of a run id: the id itself when it is 1..64 of `[A-Za-z0-9_-]`, else `~` and
 * 32 hex digits of its SHA-256 (subjects cannot hold `.`, `*`, `>` or white space).
 */
export function runToken(runId: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(runId)) return runId;
  return "~" + createHash("sha256").update(runId, "utf8").digest("hex").slice(0, 32);
}

/** `ssgkr.results.<run token>`. */
export function resultSubject(runId: string): string {
  return `ssgkr.results.${runToken(runId)}`;
}

/** Message id of a job and of its result: `run_id/job_id`. */
export function messageId(runId: string, jobId: bigint | number): string {
  return `${runId}/${String(jobId)}`;
}
