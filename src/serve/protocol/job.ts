/**
 * The Job message (compat-v1 §16.2): one request offered to a proof server. Field names are
 * the wire names. u64 fields are bigints (lossless beyond 2^53, see json.ts).
 *
 * The schema checks types and shapes only, as the reference's decoder does (serde: every field
 * present, integer ranges u8/u32/u64, `identity` exactly 32 bytes, every digest exactly 8
 * elements, unknown fields ignored). Field-element ranges, payload length, leaf tags and the
 * profile (depth, key range) are the server-side input rules of `input.ts`, answered with an
 * error reply instead.
 */
import { z } from "zod";
import { ProtocolError } from "./errors.js";
import { encodeFrame } from "./framing.js";
import { parseJson, stringifyJson } from "./json.js";
import { MAX_JOB_BYTES } from "./limits.js";
import { parseWith, u32, u64, u8, usize } from "./schema-parts.js";

/** A leaf on the wire: tag 0 Empty, 1 Occupied, 2 Tombstone. */
export interface WireLeaf {
  /** u8 (only 0/1/2 pass the input rules). */
  readonly tag: number;
  /** u32 values (sync state; canonical field elements for a valid job). */
  readonly payload: readonly number[];
  /** Exactly 32 integers 0..255 (byte 0 first). */
  readonly identity: readonly number[];
}

/** `Job.input`: the request (operation, witness, public inputs) in wire form. */
export interface JobInput {
  /** `membership` | `nonmembership` | `update` (any string passes the schema; other kinds get an input error). */
  readonly kind: string;
  /** u64 asset id (slot index). */
  readonly key: bigint;
  /** The witness leaf. */
  readonly old_leaf: WireLeaf;
  readonly new_leaf: WireLeaf;
  /** `depth` digests of 8 u32, leaf-adjacent first. */
  readonly siblings: readonly (readonly number[])[];
  /** 8 u32 each. */
  readonly old_root: readonly number[];
  readonly new_root: readonly number[];
  readonly value_digest: readonly number[];
}

/** A Job (§16.2). */
export interface Job {
  /** u32; 1 (other values close the connection). */
  readonly protocol: number;
  /** Non-empty (empty closes the connection). */
  readonly run_id: string;
  /** u64, unique per offered request. */
  readonly job_id: bigint;
  /** Corpus index (usize, at most 2^53 − 1 here). */
  readonly fixture_id: number;
  /** Run repeat number (usize, at most 2^53 − 1 here). */
  readonly repeat: number;
  /** Excluded from timed statistics. */
  readonly warmup: boolean;
  /** u64 unix ns. */
  readonly scheduled_unix_ns: bigint;
  /** u64 unix ns. */
  readonly deadline_unix_ns: bigint;
  readonly input: JobInput;
}

const digestSchema = z.array(u32).length(8, "must have exactly 8 elements");

const leafSchema = z.object({
  tag: u8,
  payload: z.array(u32),
  identity: z.array(u8).length(32, "must have exactly 32 bytes"),
});

/** Zod schema of `Job.input` (on `parseJson` output). */
export const jobInputSchema = z.object({
  kind: z.string(),
  key: u64,
  old_leaf: leafSchema,
  new_leaf: leafSchema,
  siblings: z.array(digestSchema),
  old_root: digestSchema,
  new_root: digestSchema,
  value_digest: digestSchema,
});

/** Zod schema of a Job (on `parseJson` output; u64 fields become bigints). */
export const jobSchema: z.ZodType<Job> = z.object({
  protocol: u32,
  run_id: z.string(),
  job_id: u64,
  fixture_id: usize,
  repeat: usize,
  warmup: z.boolean(),
  scheduled_unix_ns: u64,
  deadline_unix_ns: u64,
  input: jobInputSchema,
}) as unknown as z.ZodType<Job>;

/**
 * A Job from a parsed JSON value.
 * @throws ProtocolError `BAD_JOB` naming the JSON path of the first missing or mistyped field.
 */
export function jobFromValue(value: unknown): Job {
  return parseWith(jobSchema, value, "BAD_JOB", "not a Job:");
}

/**
 * A Job from a frame body (UTF-8 JSON).
 * @throws ProtocolError `BAD_JSON` (invalid UTF-8 or JSON), `BAD_JOB`.
 */
export function decodeJob(body: Uint8Array): Job {
  return jobFromValue(parseJson(decodeUtf8(body)));
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 decoding. @throws ProtocolError `BAD_JSON` for invalid UTF-8. */
export function decodeUtf8(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new ProtocolError("BAD_JSON", "frame body is not valid UTF-8", {});
  }
}

/** JSON text of a Job, fields in wire order, u64 as integer literals. */
export function jobToJson(job: Job): string {
  const i = job.input;
  const leaf = (l: WireLeaf) => ({ tag: l.tag, payload: l.payload, identity: l.identity });
  return stringifyJson({
    protocol: job.protocol,
    run_id: job.run_id,
    job_id: job.job_id,
    fixture_id: job.fixture_id,
    repeat: job.repeat,
    warmup: job.warmup,
    scheduled_unix_ns: job.scheduled_unix_ns,
    deadline_unix_ns: job.deadline_unix_ns,
    input: {
      kind: i.kind,
      key: i.key,
      old_leaf: leaf(i.old_leaf),
      new_leaf: leaf(i.new_leaf),
      siblings: i.siblings,
      old_root: i.old_root,
      new_root: i.new_root,
      value_digest: i.value_digest,
    },
  });
}

/**
 * The request frame of a Job: u32 BE length + JSON.
 * @throws ProtocolError `MESSAGE_TOO_LONG` if the JSON exceeds 2 MiB.
 */
export function encodeJobFrame(job: Job): Buffer {
  return encodeFrame(Buffer.from(jobToJson(job), "utf8"), MAX_JOB_BYTES);
}
