/**
 * Bounds of a job on the broker (docs/scale-out.md "Bounded jobs"): every field a reply echoes,
 * and the job's size, are bounded so that any reply fits the broker's max_payload. The frontend
 * refuses a run id over the bound before it publishes anything; a worker checks every pulled
 * job against the bounds before any proving and terminates an over-bound one on its first
 * delivery with one small error reply. Replies outside a batch (over-bound, delivery limit)
 * never echo an unbounded field: a run id or kind over its bound is replaced by `~` and 32 hex
 * digits of its SHA-256 (the results subject's token, names.ts).
 */
import { createHash } from "node:crypto";
import type { Job } from "../protocol/job.js";
import { MAX_RUN_ID_BYTES } from "../protocol/limits.js";
import { errorReply, type Reply, type ReplyOrigin } from "../protocol/reply.js";

export { MAX_RUN_ID_BYTES };

/** Longest `input.kind`, UTF-8 bytes (the kinds are `membership`, `nonmembership`, `update`). */
export const MAX_KIND_BYTES = 32;

/**
 * Largest job body on the broker, bytes (a job of depth 32 with full leaves is about 6 KiB;
 * the job ids are u64 by the Job schema).
 */
export const MAX_BROKER_JOB_BYTES = 64 * 1024;

/** Reason prefix of the error reply to an over-bound job. */
export const OVER_BOUND_ERROR = "job_over_bound";

const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/**
 * Which bound a job breaks (the first of `run_id`, `input.kind`, body size), or null.
 * @param bodyBytes size of the job's message body.
 */
export function jobOverBound(job: Job, bodyBytes: number): string | null {
  const runBytes = utf8Bytes(job.run_id);
  if (runBytes > MAX_RUN_ID_BYTES) return `run_id of ${runBytes} bytes exceeds ${MAX_RUN_ID_BYTES}`;
  const kindBytes = utf8Bytes(job.input.kind);
  if (kindBytes > MAX_KIND_BYTES) return `input.kind of ${kindBytes} bytes exceeds ${MAX_KIND_BYTES}`;
  if (bodyBytes > MAX_BROKER_JOB_BYTES) return `job body of ${bodyBytes} bytes exceeds ${MAX_BROKER_JOB_BYTES}`;
  return null;
}

/** `text` when it has at most `max` UTF-8 bytes, else `~` and 32 hex digits of its SHA-256. */
export function boundedText(text: string, max: number): string {
  if (utf8Bytes(text) <= max) return text;
  return "~" + createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32);
}

/**
 * An error reply that echoes no unbounded field of the job: `run_id` and `kind` bounded by
 * `boundedText`; the reason cut to 512 characters. Its JSON stays under 2 KiB whatever the job held.
 */
export function boundedErrorReply(job: Job, origin: ReplyOrigin, error: string, fields: Partial<Reply> = {}): Reply {
  const bounded: Job = {
    ...job,
    run_id: boundedText(job.run_id, MAX_RUN_ID_BYTES),
    input: { ...job.input, kind: boundedText(job.input.kind, MAX_KIND_BYTES) },
  };
  return errorReply(bounded, origin, error.slice(0, 512), fields);
}
