/**
 * The Reply of one job of a computed batch (compat-v1 §16.3), for every transport: a proof
 * reply with the batch's times, or an error reply (`witness: …`, `prove: …`).
 */
import type { Job } from "../protocol/job.js";
import { nowUnixNs } from "../protocol/clock.js";
import { baseReply, errorReply, sha256Hex, type Reply, type ReplyOrigin } from "../protocol/reply.js";
import type { BatchTimes, JobResult } from "./compute.js";

/** A job's place in a computed batch. */
export interface BatchSlot {
  readonly job: Job;
  readonly result: JobResult;
  readonly batchId: bigint;
  readonly batchSize: number;
  readonly times: BatchTimes;
  readonly receivedNs: bigint;
  readonly enqueuedNs: bigint;
  /** Admission to flush, ns. */
  readonly queueNs: bigint;
}

/** The reply and its proof bytes (empty for an error reply); `server_send_start_unix_ns` is now. */
export function batchReply(s: BatchSlot, origin: ReplyOrigin): { readonly reply: Reply; readonly proof: Uint8Array } {
  if (!s.result.ok) {
    return {
      reply: errorReply(s.job, origin, s.result.error, {
        server_received_unix_ns: s.receivedNs,
        server_enqueued_unix_ns: s.enqueuedNs,
        server_send_start_unix_ns: nowUnixNs(),
      }),
      proof: new Uint8Array(0),
    };
  }
  const proof = s.result.bytes;
  const t = s.times;
  const sha = sha256Hex(proof);
  return {
    reply: baseReply(s.job, origin, {
      batch_id: s.batchId,
      batch_size: s.batchSize,
      server_received_unix_ns: s.receivedNs,
      server_enqueued_unix_ns: s.enqueuedNs,
      flush_unix_ns: t.flushUnixNs,
      witness_start_unix_ns: t.flushUnixNs,
      witness_end_unix_ns: t.witnessEndUnixNs,
      prove_end_unix_ns: t.proveEndUnixNs,
      encode_end_unix_ns: t.encodeEndUnixNs,
      server_queue_ns: s.queueNs,
      batch_witness_ns: t.witnessNs,
      batch_prove_ns: t.proveNs,
      batch_encode_ns: t.encodeNs,
      encoded_bytes: proof.length,
      canonical_sha256: sha,
      server_send_start_unix_ns: nowUnixNs(),
    }),
    proof,
  };
}
