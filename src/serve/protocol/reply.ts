/**
 * The Reply message (compat-v1 §16.3) and its two frames: u32 BE length + Reply JSON (≤ 2 MiB),
 * then u32 BE length + raw inner-proof-v1 bytes (≤ 16 MiB, length = `encoded_bytes`; 0 for
 * error replies). Field names are the wire names; u64 fields are bigints.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { ProtocolError } from "./errors.js";
import { encodeFrame, frameHeader } from "./framing.js";
import { decodeUtf8, type Job } from "./job.js";
import { parseJson, stringifyJson } from "./json.js";
import { MAX_PROOF_BYTES, MAX_REPLY_JSON_BYTES, PROTOCOL_VERSION, PROTOCOL_VERSION_V2 } from "./limits.js";
import { parseWith, u32, u64, usize } from "./schema-parts.js";

/** A Reply (§16.3). Timestamps are unix ns (u64), durations ns (u64). */
export interface Reply {
  readonly protocol: number;
  readonly run_id: string;
  readonly job_id: bigint;
  readonly fixture_id: number;
  /** The job's `input.kind`. */
  readonly kind: string;
  /** `--host-id`, else `$HOSTNAME`, else `unspecified-host`. */
  readonly host_id: string;
  /** u32 process id of the server. */
  readonly process_id: number;
  /** 1, 2, … per flushed batch (0 for replies outside a batch). */
  readonly batch_id: bigint;
  readonly batch_size: number;
  readonly server_received_unix_ns: bigint;
  readonly server_enqueued_unix_ns: bigint;
  readonly flush_unix_ns: bigint;
  /** = flush time. */
  readonly witness_start_unix_ns: bigint;
  readonly witness_end_unix_ns: bigint;
  readonly prove_end_unix_ns: bigint;
  readonly encode_end_unix_ns: bigint;
  readonly server_send_start_unix_ns: bigint;
  /** Admission to flush, ns. */
  readonly server_queue_ns: bigint;
  readonly batch_witness_ns: bigint;
  readonly batch_prove_ns: bigint;
  readonly batch_encode_ns: bigint;
  /** Length of the proof frame body. */
  readonly encoded_bytes: number;
  /** Lowercase hex SHA-256 of the proof bytes ("" for error replies). */
  readonly canonical_sha256: string;
  /** null, or the reason of an error reply. */
  readonly error: string | null;
}

/** Field names of a Reply in wire order. */
export const REPLY_FIELDS = [
  "protocol",
  "run_id",
  "job_id",
  "fixture_id",
  "kind",
  "host_id",
  "process_id",
  "batch_id",
  "batch_size",
  "server_received_unix_ns",
  "server_enqueued_unix_ns",
  "flush_unix_ns",
  "witness_start_unix_ns",
  "witness_end_unix_ns",
  "prove_end_unix_ns",
  "encode_end_unix_ns",
  "server_send_start_unix_ns",
  "server_queue_ns",
  "batch_witness_ns",
  "batch_prove_ns",
  "batch_encode_ns",
  "encoded_bytes",
  "canonical_sha256",
  "error",
] as const satisfies readonly (keyof Reply)[];

/** Zod schema of a Reply (on `parseJson` output; u64 fields become bigints). */
export const replySchema: z.ZodType<Reply> = z.object({
  protocol: u32,
  run_id: z.string(),
  job_id: u64,
  fixture_id: usize,
  kind: z.string(),
  host_id: z.string(),
  process_id: u32,
  batch_id: u64,
  batch_size: usize,
  server_received_unix_ns: u64,
  server_enqueued_unix_ns: u64,
  flush_unix_ns: u64,
  witness_start_unix_ns: u64,
  witness_end_unix_ns: u64,
  prove_end_unix_ns: u64,
  encode_end_unix_ns: u64,
  server_send_start_unix_ns: u64,
  server_queue_ns: u64,
  batch_witness_ns: u64,
  batch_prove_ns: u64,
  batch_encode_ns: u64,
  encoded_bytes: usize,
  canonical_sha256: z.string(),
  error: z.string().nullable(),
}) as unknown as z.ZodType<Reply>;

/** Where a reply comes from: the server's identity. */
export interface ReplyOrigin {
  readonly hostId: string;
  readonly processId: number;
}

/**
 * A Reply with the job's binding (protocol, run_id, job_id, fixture_id, kind), the origin, and
 * every other field at its default (0, "", null); `fields` overrides them. The protocol is 2 for
 * a job of protocol 2 (profile v2), else 1 (servers answer only jobs of the protocol they speak).
 */
export function baseReply(job: Job, origin: ReplyOrigin, fields: Partial<Reply> = {}): Reply {
  return {
    protocol: job.protocol === PROTOCOL_VERSION_V2 ? PROTOCOL_VERSION_V2 : PROTOCOL_VERSION,
    run_id: job.run_id,
    job_id: job.job_id,
    fixture_id: job.fixture_id,
    kind: job.input.kind,
    host_id: origin.hostId,
    process_id: origin.processId,
    batch_id: 0n,
    batch_size: 0,
    server_received_unix_ns: 0n,
    server_enqueued_unix_ns: 0n,
    flush_unix_ns: 0n,
    witness_start_unix_ns: 0n,
    witness_end_unix_ns: 0n,
    prove_end_unix_ns: 0n,
    encode_end_unix_ns: 0n,
    server_send_start_unix_ns: 0n,
    server_queue_ns: 0n,
    batch_witness_ns: 0n,
    batch_prove_ns: 0n,
    batch_encode_ns: 0n,
    encoded_bytes: 0,
    canonical_sha256: "",
    error: null,
    ...fields,
  };
}

/** An error reply: the base reply with `error` set (empty proof, `encoded_bytes` 0). */
export function errorReply(job: Job, origin: ReplyOrigin, error: string, fields: Partial<Reply> = {}): Reply {
  return baseReply(job, origin, { ...fields, error, encoded_bytes: 0, canonical_sha256: "" });
}

/** Lowercase hex SHA-256 of proof bytes (`canonical_sha256`). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** JSON text of a Reply, fields in wire order, u64 as integer literals. */
export function replyToJson(reply: Reply): string {
  const o: Record<string, unknown> = {};
  for (const k of REPLY_FIELDS) o[k] = reply[k];
  return stringifyJson(o);
}

/**
 * The two frames of a reply as a list of buffers to write in order (JSON frame, proof length,
 * proof bytes; the proof is not copied).
 * @throws ProtocolError `PROOF_LENGTH_MISMATCH` if `proof.length ≠ reply.encoded_bytes`,
 *   `MESSAGE_TOO_LONG` if the JSON exceeds 2 MiB or the proof 16 MiB.
 */
export function encodeReplyFrames(reply: Reply, proof: Uint8Array): Buffer[] {
  if (proof.length !== reply.encoded_bytes) {
    throw new ProtocolError(
      "PROOF_LENGTH_MISMATCH",
      `proof of ${proof.length} bytes with encoded_bytes = ${reply.encoded_bytes}`,
      { length: proof.length, encodedBytes: reply.encoded_bytes },
    );
  }
  if (proof.length > MAX_PROOF_BYTES) {
    throw new ProtocolError(
      "MESSAGE_TOO_LONG",
      `proof of ${proof.length} bytes exceeds the bound of ${MAX_PROOF_BYTES} bytes`,
      { length: proof.length, limit: MAX_PROOF_BYTES },
    );
  }
  const json = encodeFrame(Buffer.from(replyToJson(reply), "utf8"), MAX_REPLY_JSON_BYTES);
  const body = Buffer.isBuffer(proof) ? proof : Buffer.from(proof.buffer, proof.byteOffset, proof.length);
  return proof.length === 0 ? [json, frameHeader(0)] : [json, frameHeader(proof.length), body];
}

/**
 * A Reply from a parsed JSON value.
 * @throws ProtocolError `BAD_REPLY` naming the JSON path of the first missing or mistyped field.
 */
export function replyFromValue(value: unknown): Reply {
  return parseWith(replySchema, value, "BAD_REPLY", "not a Reply:");
}

/** A Reply from its frame body. @throws ProtocolError `BAD_JSON`, `BAD_REPLY`. */
export function decodeReply(body: Uint8Array): Reply {
  return replyFromValue(parseJson(decodeUtf8(body)));
}
