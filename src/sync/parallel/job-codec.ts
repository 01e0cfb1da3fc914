/**
 * Compact transferable job encoding: one `OpRequest` as a `Uint32Array` (its buffer is
 * transferred to the worker, not copied). The encoding keeps every part of the request apart
 * (operation leaves, witness leaf, siblings, public inputs), so a request that is not a valid
 * statement reaches the worker exactly as given and fails or is proved exactly as on the
 * sequential path.
 *
 * Layout (u32 words): version 1, operation kind, key (lo, hi); the operation's leaves
 * (Membership: leaf; Update: old leaf, new leaf); the witness leaf; the sibling count, then per
 * sibling its length and values; old_root, new_root (length and values), op_kind_tag, asset_id
 * (lo, hi), value_digest. A leaf is its tag, and for Occupied the payload length and values and
 * the identity length in bytes followed by the bytes packed little-endian four per word.
 *
 * `encodeJob` returns null for a request it cannot represent exactly (values that are not u32
 * integers, keys that are not u64 bigints, unknown tags, shapes that are not arrays): those are
 * sent by structured clone instead.
 */
import { SsgkrError } from "../../errors.js";
import type { Leaf } from "../../smt/leaf.js";
import type { OpRequest, Operation } from "../../smt/operation.js";
import { OpKind, OP_KIND_NAMES, opKindTag } from "../../statement/types.js";

const VERSION = 1;
const U64_LIMIT = 1n << 64n;

class Unrepresentable extends Error {}

function isU32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function u32(v: unknown): number {
  if (!isU32(v)) throw new Unrepresentable();
  return v;
}

function isArrayLike(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || v instanceof Uint32Array;
}

class Writer {
  readonly words: number[] = [];

  word(v: unknown): void {
    this.words.push(u32(v));
  }

  u64(v: unknown): void {
    if (typeof v !== "bigint" || v < 0n || v >= U64_LIMIT) throw new Unrepresentable();
    this.words.push(Number(v & 0xffffffffn), Number(v >> 32n));
  }

  list(v: unknown): void {
    if (!isArrayLike(v)) throw new Unrepresentable();
    this.words.push(v.length);
    for (let i = 0; i < v.length; i++) this.word(v[i]);
  }

  leaf(leaf: unknown): void {
    if (leaf === null || typeof leaf !== "object") throw new Unrepresentable();
    const l = leaf as { tag: unknown; payload?: unknown; identity?: unknown };
    if (l.tag !== 0 && l.tag !== 1 && l.tag !== 2) throw new Unrepresentable();
    this.words.push(l.tag);
    if (l.tag !== 1) return;
    this.list(l.payload);
    const id = l.identity;
    if (!(id instanceof Uint8Array)) throw new Unrepresentable();
    this.words.push(id.length);
    for (let i = 0; i < id.length; i += 4) {
      this.words.push((id[i]! | ((id[i + 1] ?? 0) << 8) | ((id[i + 2] ?? 0) << 16) | ((id[i + 3] ?? 0) << 24)) >>> 0);
    }
  }
}

/**
 * The binary form of a request, or null if it holds values the form cannot carry exactly.
 * @returns a fresh `Uint32Array` (transfer its buffer).
 */
export function encodeJob(request: OpRequest): Uint32Array | null {
  try {
    const w = new Writer();
    if (request === null || typeof request !== "object") return null;
    const op = request.operation;
    if (op === null || typeof op !== "object") return null;
    w.word(VERSION);
    if (op.kind !== OpKind.Membership && op.kind !== OpKind.NonMembership && op.kind !== OpKind.Update) return null;
    w.word(opKindTag(op.kind));
    w.u64(op.key);
    if (op.kind === OpKind.Membership) w.leaf(op.leaf);
    else if (op.kind === OpKind.Update) {
      w.leaf(op.oldLeaf);
      w.leaf(op.newLeaf);
    }
    const witness = request.witness;
    if (witness === null || typeof witness !== "object") return null;
    w.leaf(witness.leaf);
    if (!Array.isArray(witness.siblings)) return null;
    w.word(witness.siblings.length);
    for (const s of witness.siblings) w.list(s);
    const pub = request.publicInputs;
    if (pub === null || typeof pub !== "object") return null;
    w.list(pub.oldRoot);
    w.list(pub.newRoot);
    w.word(pub.opKindTag);
    w.u64(pub.assetId);
    w.list(pub.valueDigest);
    return Uint32Array.from(w.words);
  } catch (err) {
    if (err instanceof Unrepresentable) return null;
    throw err;
  }
}

/** Thrown by `decodeJob` for words that are not a job encoding (truncated, bad version or tag); code `JOB_ENCODING`. */
export class JobDecodeError extends SsgkrError<"JOB_ENCODING"> {
  constructor(message: string) {
    super("JOB_ENCODING", message);
  }
}

class Reader {
  private at = 0;
  constructor(private readonly w: Uint32Array) {}

  word(): number {
    if (this.at >= this.w.length) throw new JobDecodeError("job encoding is truncated");
    return this.w[this.at++]!;
  }

  u64(): bigint {
    const lo = this.word();
    return (BigInt(this.word()) << 32n) | BigInt(lo);
  }

  words(n: number): Uint32Array {
    if (this.at + n > this.w.length) throw new JobDecodeError("job encoding is truncated");
    const out = this.w.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }

  leaf(): Leaf {
    const tag = this.word();
    if (tag === 0 || tag === 2) return { tag } as Leaf;
    if (tag !== 1) throw new JobDecodeError(`job encoding: leaf tag ${tag}`);
    const payload = Array.from(this.words(this.word()));
    const n = this.word();
    const packed = this.words(Math.ceil(n / 4));
    const identity = new Uint8Array(n);
    for (let i = 0; i < n; i++) identity[i] = (packed[i >> 2]! >>> (8 * (i & 3))) & 0xff;
    return { tag: 1, payload, identity } as Leaf;
  }

  end(): void {
    if (this.at !== this.w.length) throw new JobDecodeError("job encoding has trailing words");
  }
}

/**
 * The request of a binary job (fresh objects; siblings and digests as `Uint32Array`).
 * @throws JobDecodeError for words that `encodeJob` cannot have produced.
 */
export function decodeJob(words: Uint32Array): OpRequest {
  const r = new Reader(words);
  if (r.word() !== VERSION) throw new JobDecodeError("job encoding version must be 1");
  const tag = r.word();
  const kind = OP_KIND_NAMES[tag];
  const key = r.u64();
  let operation: Operation;
  if (kind === OpKind.Membership) operation = { kind, key, leaf: r.leaf() as Extract<Leaf, { tag: 1 }> };
  else if (kind === OpKind.NonMembership) operation = { kind, key };
  else if (kind === OpKind.Update) {
    const oldLeaf = r.leaf();
    operation = { kind, key, oldLeaf, newLeaf: r.leaf() };
  } else throw new JobDecodeError(`job encoding: operation kind ${tag}`);
  const leaf = r.leaf();
  const count = r.word();
  const siblings: Uint32Array[] = [];
  for (let i = 0; i < count; i++) siblings.push(r.words(r.word()));
  const oldRoot = r.words(r.word());
  const newRoot = r.words(r.word());
  const opKindTag = r.word();
  const assetId = r.u64();
  const valueDigest = r.words(r.word());
  r.end();
  return {
    operation,
    witness: { leaf, siblings },
    publicInputs: { oldRoot, newRoot, opKindTag, assetId, valueDigest },
  };
}

/**
 * The binary form of several requests in one buffer (an aggregate sent to a worker): the count,
 * the length of each `encodeJob` form, then the forms back to back. Null if any request cannot
 * be carried exactly (the batch then goes by structured clone).
 * @returns a fresh `Uint32Array` (transfer its buffer).
 */
export function encodeJobs(requests: readonly OpRequest[]): Uint32Array | null {
  if (!Array.isArray(requests)) return null;
  const forms: Uint32Array[] = [];
  let total = 1 + requests.length;
  for (const r of requests) {
    const f = encodeJob(r);
    if (f === null) return null;
    forms.push(f);
    total += f.length;
  }
  const out = new Uint32Array(total);
  out[0] = forms.length;
  let at = 1 + forms.length;
  forms.forEach((f, i) => {
    out[1 + i] = f.length;
    out.set(f, at);
    at += f.length;
  });
  return out;
}

/**
 * The requests of an `encodeJobs` buffer, in order.
 * @throws JobDecodeError for words that `encodeJobs` cannot have produced.
 */
export function decodeJobs(words: Uint32Array): OpRequest[] {
  if (words.length < 1) throw new JobDecodeError("job list encoding is truncated");
  const n = words[0]!;
  if (1 + n > words.length) throw new JobDecodeError("job list encoding is truncated");
  const out: OpRequest[] = [];
  let at = 1 + n;
  for (let i = 0; i < n; i++) {
    const len = words[1 + i]!;
    if (at + len > words.length) throw new JobDecodeError("job list encoding is truncated");
    out.push(decodeJob(words.subarray(at, at + len)));
    at += len;
  }
  if (at !== words.length) throw new JobDecodeError("job list encoding has trailing words");
  return out;
}
