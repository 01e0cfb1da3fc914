/**
 * The registry's proof jobs on the broker (docs/scale-out.md "Registry proof jobs"): the job
 * messages the primary publishes, the result messages workers send back, their bounds and their
 * names on the broker. Everything here is pure (no broker, no registry), so the encoding and the
 * bounds are tested alone.
 *
 * A job is one small JSON object (at most `MAX_REGISTRY_JOB_BYTES`), never a witness: a worker
 * proves from its own copy of the registry.
 * - read: `{"v":1,"id":ID,"kind":"read","reply":TOKEN,"name":NAME,"root":HEX64,"profile":"v1"|"v3"|"v3-zk","expires":MS}`;
 * - block: `{"v":1,"id":ID,"kind":"block","reply":TOKEN,"batch":N,"part":P,"expires":MS}`.
 *
 * `expires` (optional, Unix ms) is when the primary stops waiting for the result: a worker that
 * pulls the job later acks it without proving.
 *
 * `id` names the job (`<primary token>-<n>.<attempt>`, the broker's message id), `reply` the
 * primary's results subject token. A result is `u32 BE length ‖ JSON ‖ proof bytes`, sent in
 * chunks of at most `RESULT_CHUNK_BYTES` (each its own message, headers `Ssgkr-Job` and
 * `Ssgkr-Chunk: i/n`, message id `<job id>/<i>`), at most `MAX_RESULT_BYTES` in all.
 */
import { createHash } from "node:crypto";

/** Work-queue stream of registry proof jobs. */
export const REGISTRY_JOBS_STREAM = "SSGKR_REGISTRY_JOBS";
/** Stream of registry proof results, one subject per primary. */
export const REGISTRY_RESULTS_STREAM = "SSGKR_REGISTRY_RESULTS";
/** Subjects of the jobs stream. */
export const REGISTRY_JOB_WILDCARD = "ssgkr.registry.jobs.*";
/** Subjects of the results stream. */
export const REGISTRY_RESULT_WILDCARD = "ssgkr.registry.results.*";

/** The two kinds of registry proof job. */
export type RegistryJobKind = "read" | "block";
/** The kinds, in the order workers pull them. */
export const REGISTRY_JOB_KINDS: readonly RegistryJobKind[] = ["read", "block"];

/** `ssgkr.registry.jobs.<kind>`. */
export function registryJobSubject(kind: RegistryJobKind): string {
  return `ssgkr.registry.jobs.${kind}`;
}

/** The durable pull consumer of a kind, shared by every worker. */
export function registryJobConsumer(kind: RegistryJobKind): string {
  return `ssgkr-registry-${kind}`;
}

/** `ssgkr.registry.results.<token>`. */
export function registryResultSubject(token: string): string {
  return `ssgkr.registry.results.${token}`;
}

/** Largest job message, bytes (a read job with a name of 1,024 bytes, escaped, is about 6.5 KiB). */
export const MAX_REGISTRY_JOB_BYTES = 8 * 1024;
/** Longest job id and reply token, characters of `[A-Za-z0-9_.-]`. */
export const MAX_JOB_ID_CHARS = 96;
/** Longest name in a read job, UTF-8 bytes (the registry's `MAX_NAME_BYTES`). */
export const MAX_JOB_NAME_BYTES = 1024;
/** Largest batch number and part in a block job. */
export const MAX_JOB_BATCH = 2 ** 32 - 1;
export const MAX_JOB_PART = 1 << 20;
/** Largest whole result (JSON and proof), bytes. */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;
/** Largest result JSON, bytes (a block part's block.json of 2,048 updates with full leaves fits). */
export const MAX_RESULT_JSON_BYTES = 32 * 1024 * 1024;
/** Largest result chunk, bytes (under the broker's default max_payload of 1 MiB, headers included). */
export const RESULT_CHUNK_BYTES = 512 * 1024;
/** Reason prefix of the result to a job over a bound (docs/scale-out.md "Bounded jobs"). */
export const JOB_OVER_BOUND = "job_over_bound";
/** Reason prefix of the result to a job that is not a registry proof job. */
export const JOB_MALFORMED = "job_malformed";
/** Reason prefix of the result to a job delivered more than `--max-deliveries` times. */
export const JOB_DELIVERY_LIMIT = "worker_delivery_limit";

/** The proof modes of a read job. */
export type JobProfile = "v1" | "v3" | "v3-zk";
const PROFILES: readonly JobProfile[] = ["v1", "v3", "v3-zk"];

/** A name's proof at a root. */
export interface ReadProofJob {
  readonly v: 1;
  readonly id: string;
  readonly kind: "read";
  readonly reply: string;
  readonly name: string;
  /** 64 hex characters. */
  readonly root: string;
  readonly profile: JobProfile;
  /** Unix ms after which the primary no longer waits for the result. */
  readonly expires?: number;
}

/** A part of a committed batch's v3 block. */
export interface BlockPartJob {
  readonly v: 1;
  readonly id: string;
  readonly kind: "block";
  readonly reply: string;
  readonly batch: number;
  readonly part: number;
  /** Unix ms after which the primary no longer waits for the result. */
  readonly expires?: number;
}

export type RegistryJob = ReadProofJob | BlockPartJob;

/**
 * A decoded job, or why it is refused: `over_bound` (a size or field bound, `JOB_OVER_BOUND`) or
 * `malformed` (not a registry proof job, `JOB_MALFORMED`). A refusal carries the job's id and
 * reply token when both are well-formed, so that its one error result can be sent.
 */
export type DecodedJob =
  | { readonly ok: true; readonly job: RegistryJob }
  | {
      readonly ok: false;
      readonly refusal: "over_bound" | "malformed";
      readonly reason: string;
      readonly id?: string;
      readonly reply?: string;
    };

const TOKEN = /^[A-Za-z0-9_.-]+$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Whether `s` is a well-formed job id or reply token. */
export function isJobToken(s: unknown): s is string {
  return typeof s === "string" && s.length >= 1 && s.length <= MAX_JOB_ID_CHARS && TOKEN.test(s);
}

/**
 * A primary's results token: its own text when well-formed and at most 32 characters, else `h`
 * and 24 hex digits of its SHA-256.
 */
export function primaryToken(text: string): string {
  if (/^[A-Za-z0-9_-]{1,32}$/.test(text)) return text;
  return "h" + createHash("sha256").update(text, "utf8").digest("hex").slice(0, 24);
}

/** A job's message body. */
export function encodeJob(job: RegistryJob): Uint8Array {
  return Buffer.from(JSON.stringify(job), "utf8");
}

/**
 * Decodes and checks a job message before any work: its size first, then JSON, version, kind
 * and every field against its bound.
 */
export function decodeJob(data: Uint8Array): DecodedJob {
  if (data.length > MAX_REGISTRY_JOB_BYTES)
    return refuse("over_bound", `job body of ${data.length} bytes exceeds ${MAX_REGISTRY_JOB_BYTES}`);
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8"));
  } catch {
    return refuse("malformed", "the job is not JSON");
  }
  if (o === null || typeof o !== "object" || Array.isArray(o)) return refuse("malformed", "the job is not an object");
  const j = o as Record<string, unknown>;
  const id = isJobToken(j.id) ? j.id : undefined;
  const reply = isJobToken(j.reply) ? j.reply : undefined;
  const tag = { ...(id !== undefined ? { id } : {}), ...(reply !== undefined ? { reply } : {}) };
  if (j.v !== 1) return refuse("malformed", `version ${short(j.v)} is not 1`, tag);
  if (typeof j.id !== "string" || typeof j.reply !== "string")
    return refuse("malformed", "id and reply must be strings", tag);
  if (id === undefined) return refuse("over_bound", `id must be 1..${MAX_JOB_ID_CHARS} of [A-Za-z0-9_.-]`, tag);
  if (reply === undefined) return refuse("over_bound", `reply must be 1..${MAX_JOB_ID_CHARS} of [A-Za-z0-9_.-]`, tag);
  if (j.expires !== undefined && (!Number.isSafeInteger(j.expires) || (j.expires as number) < 0))
    return refuse("malformed", "expires must be a non-negative integer (Unix ms)", tag);
  const expires = j.expires === undefined ? {} : { expires: j.expires as number };
  if (j.kind === "read") {
    const allowed = ["v", "id", "kind", "reply", "name", "root", "profile", "expires"];
    const extra = Object.keys(j).find((k) => !allowed.includes(k));
    if (extra !== undefined) return refuse("malformed", `unknown field ${short(extra)}`, tag);
    if (typeof j.name !== "string" || j.name.length === 0)
      return refuse("malformed", "name must be a non-empty string", tag);
    const nb = Buffer.byteLength(j.name, "utf8");
    if (nb > MAX_JOB_NAME_BYTES) return refuse("over_bound", `name of ${nb} bytes exceeds ${MAX_JOB_NAME_BYTES}`, tag);
    if (typeof j.root !== "string" || !HEX64.test(j.root))
      return refuse("malformed", "root must be 64 lower-case hex characters", tag);
    if (!PROFILES.includes(j.profile as JobProfile))
      return refuse("malformed", `profile ${short(j.profile)} is not v1, v3 or v3-zk`, tag);
    return {
      ok: true,
      job: { v: 1, id, kind: "read", reply, name: j.name, root: j.root, profile: j.profile as JobProfile, ...expires },
    };
  }
  if (j.kind === "block") {
    const allowed = ["v", "id", "kind", "reply", "batch", "part", "expires"];
    const extra = Object.keys(j).find((k) => !allowed.includes(k));
    if (extra !== undefined) return refuse("malformed", `unknown field ${short(extra)}`, tag);
    if (!Number.isSafeInteger(j.batch) || !Number.isSafeInteger(j.part))
      return refuse("malformed", "batch and part must be integers", tag);
    const batch = j.batch as number;
    const part = j.part as number;
    if (batch < 1 || batch > MAX_JOB_BATCH)
      return refuse("over_bound", `batch ${batch} is outside [1, ${MAX_JOB_BATCH}]`, tag);
    if (part < 0 || part > MAX_JOB_PART)
      return refuse("over_bound", `part ${part} is outside [0, ${MAX_JOB_PART}]`, tag);
    return { ok: true, job: { v: 1, id, kind: "block", reply, batch, part, ...expires } };
  }
  return refuse("malformed", `kind ${short(j.kind)} is not read or block`, tag);
}

function refuse(
  refusal: "over_bound" | "malformed",
  reason: string,
  tag: { id?: string; reply?: string } = {},
): DecodedJob {
  return { ok: false, refusal, reason, ...tag };
}

/** A value as at most 40 characters of JSON (an error never echoes an unbounded field). */
function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** What a worker answers: a proof (its JSON without the proof bytes, and the bytes) or an error. */
export type JobResult =
  | {
      readonly id: string;
      readonly ok: true;
      readonly worker: string;
      /** The proof's JSON fields: a `NameProof` or a `ProvedBlockPart` without its proof bytes. */
      readonly value: Record<string, unknown>;
      readonly proof: Uint8Array;
    }
  | {
      readonly id: string;
      readonly ok: false;
      readonly worker: string;
      readonly code: string;
      readonly message: string;
      readonly details: Record<string, unknown>;
    };

/** One result message: its headers and body. */
export interface ResultChunk {
  readonly job: string;
  readonly index: number;
  readonly count: number;
  readonly data: Uint8Array;
}

/**
 * The chunks of a result (at most `chunkBytes` each).
 * @throws RangeError when the result is over `MAX_RESULT_BYTES` or its JSON over `MAX_RESULT_JSON_BYTES`.
 */
export function encodeResult(r: JobResult, chunkBytes = RESULT_CHUNK_BYTES): ResultChunk[] {
  const { proof, ...head } = r as JobResult & { proof?: Uint8Array };
  const json = Buffer.from(JSON.stringify(head), "utf8");
  if (json.length > MAX_RESULT_JSON_BYTES)
    throw new RangeError(`result JSON of ${json.length} bytes exceeds ${MAX_RESULT_JSON_BYTES}`);
  const bytes = proof ?? new Uint8Array(0);
  const total = 4 + json.length + bytes.length;
  if (total > MAX_RESULT_BYTES) throw new RangeError(`result of ${total} bytes exceeds ${MAX_RESULT_BYTES}`);
  const all = Buffer.allocUnsafe(total);
  all.writeUInt32BE(json.length, 0);
  json.copy(all, 4);
  all.set(bytes, 4 + json.length);
  const count = Math.max(1, Math.ceil(total / chunkBytes));
  return Array.from({ length: count }, (_, i) => ({
    job: r.id,
    index: i,
    count,
    data: all.subarray(i * chunkBytes, Math.min(total, (i + 1) * chunkBytes)),
  }));
}

/**
 * Decodes a whole result (its chunks' bytes in order), or undefined when it is malformed (wrong
 * lengths, not JSON, fields of the wrong type).
 */
export function decodeResult(all: Uint8Array): JobResult | undefined {
  if (all.length < 4 || all.length > MAX_RESULT_BYTES) return undefined;
  const b = Buffer.from(all.buffer, all.byteOffset, all.byteLength);
  const n = b.readUInt32BE(0);
  if (n > MAX_RESULT_JSON_BYTES || 4 + n > b.length) return undefined;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(b.subarray(4, 4 + n).toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== "object" || !isJobToken(o.id) || typeof o.worker !== "string") return undefined;
  const worker = o.worker.slice(0, 200);
  if (o.ok === true) {
    if (o.value === null || typeof o.value !== "object" || Array.isArray(o.value)) return undefined;
    return {
      id: o.id,
      ok: true,
      worker,
      value: o.value as Record<string, unknown>,
      proof: new Uint8Array(b.subarray(4 + n)),
    };
  }
  if (o.ok === false && typeof o.code === "string" && typeof o.message === "string") {
    const details = o.details !== null && typeof o.details === "object" ? (o.details as Record<string, unknown>) : {};
    return { id: o.id, ok: false, worker, code: o.code.slice(0, 64), message: o.message.slice(0, 2000), details };
  }
  return undefined;
}

/**
 * The `Ssgkr-Chunk: i/n` header's numbers, or undefined when malformed or over the bound
 * (`n` at most ⌈MAX_RESULT_BYTES / 1 KiB⌉).
 */
export function parseChunkHeader(text: string | undefined): { index: number; count: number } | undefined {
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(text ?? "");
  if (m === null) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count || count > MAX_RESULT_BYTES / 1024) return undefined;
  return { index, count };
}
