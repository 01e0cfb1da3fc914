/**
 * The request file: one proving/verification request as JSON, with the field names of the
 * reference serving harness (compat-v1 §16.2 `input`): kind, depth, leaf_max_fields, key,
 * old_leaf, new_leaf, siblings, old_root, new_root, value_digest.
 *
 * Validated field by field (no schema library, so the browser entry stays small); the first
 * offending field is reported by its JSON path, with the messages of the zod schema this replaced
 * (test/sync/request-schema.test.ts compares the two).
 */
import { P } from "../field/koalabear.js";
import { SsgkrError } from "../errors.js";
import { MIN_LEAF_MAX_FIELDS } from "../smt/leaf.js";
import { MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "./limits.js";
import type { OpKindName } from "../statement/types.js";

/** Schema violation in a request file. Code `REQUEST_SCHEMA`; `details.path` is the JSON path. */
export class RequestError extends SsgkrError<RequestErrorCode> {}

/** Every code a `RequestError` carries (meanings in docs/errors.md). */
export const REQUEST_ERROR_CODES = ["REQUEST_JSON", "REQUEST_SCHEMA"] as const;

/** The code of a `RequestError`. */
export type RequestErrorCode = (typeof REQUEST_ERROR_CODES)[number];

/** A leaf as it appears in a request: tag 0 Empty, 1 Occupied, 2 Tombstone. */
export interface RequestLeaf {
  readonly tag: 0 | 1 | 2;
  /** Canonical field elements (sync state); empty for Empty and Tombstone. */
  readonly payload: readonly number[];
  /** 32 bytes, byte 0 first; all zero for Empty and Tombstone. */
  readonly identity: Uint8Array;
}

/** A parsed request. Digests and siblings are 8 canonical elements each; key is a u64. */
export interface SyncRequest {
  readonly kind: OpKindName;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly key: bigint;
  readonly oldLeaf: RequestLeaf;
  readonly newLeaf: RequestLeaf;
  /** `depth` digests, leaf level first. */
  readonly siblings: readonly Uint32Array[];
  readonly oldRoot: Uint32Array;
  readonly newRoot: Uint32Array;
  readonly valueDigest: Uint32Array;
}

/** One problem of a request: where (a JSON path) and why. */
interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Zod's word for the type of a value (kept so the messages stay those of the earlier schema). */
function typeName(v: unknown): string {
  if (typeof v === "number") return Number.isNaN(v) ? "NaN" : Number.isFinite(v) ? "number" : String(v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") {
    const proto = Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null;
    if (proto !== Object.prototype && proto?.constructor?.name) return proto.constructor.name;
  }
  return typeof v;
}

const expected = (what: string, v: unknown) => `Invalid input: expected ${what}, received ${typeName(v)}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A canonical field element, or why not. */
function feltProblem(v: unknown): string | null {
  if (!finite(v)) return "must be a number";
  if (!Number.isSafeInteger(v)) return "must be an integer";
  if (v < 0) return "must be non-negative";
  if (v > P - 1) return `must be a canonical field element (< p = ${P})`;
  return null;
}

/** The first problem of an array of field elements (of `length` entries when given), or null. */
function feltsIssue(v: unknown, path: PropertyKey[], length?: number): Issue | null {
  if (!Array.isArray(v)) return { path, message: expected("array", v) };
  // Too long is told before the elements are read; too short after them.
  if (length !== undefined && v.length > length) return { path, message: "must have exactly 8 elements" };
  for (let i = 0; i < v.length; i++) {
    const p = feltProblem(v[i]);
    if (p !== null) return { path: [...path, i], message: p };
  }
  if (length !== undefined && v.length !== length) return { path, message: "must have exactly 8 elements" };
  return null;
}

const unrecognized = (keys: readonly string[]) =>
  `Unrecognized key${keys.length > 1 ? "s" : ""}: ${keys.map((k) => `"${k}"`).join(", ")}`;

const IDENTITY_RULE = "must be 32 bytes (integers 0..255) or 64 hex digits";

/** Zod's message for a byte that is an integer but not in 0..255, or null. */
function byteProblem(b: number): string | null {
  if (b > Number.MAX_SAFE_INTEGER) return `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`;
  if (b < Number.MIN_SAFE_INTEGER) return `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`;
  if (b < 0) return "Too small: expected number to be >=0";
  if (b > 255) return "Too big: expected number to be <=255";
  return null;
}

/**
 * The identity: 64 hex digits, or 32 bytes. An array longer than 32, or holding a non-number or
 * a non-integer, is neither form ("Invalid input"); otherwise the first byte out of range, then
 * the count, is named.
 */
function identityIssue(v: unknown, path: PropertyKey[]): Issue | null {
  if (typeof v === "string") return /^[0-9a-fA-F]{64}$/.test(v) ? null : { path, message: IDENTITY_RULE };
  if (!Array.isArray(v) || v.length > 32) return { path, message: "Invalid input" };
  for (let i = 0; i < v.length; i++)
    if (!finite(v[i]) || !Number.isInteger(v[i])) return { path, message: "Invalid input" };
  for (let i = 0; i < v.length; i++) {
    const p = byteProblem(v[i] as number);
    if (p !== null) return { path: [...path, i], message: p };
  }
  return v.length === 32 ? null : { path, message: "must have exactly 32 bytes" };
}

const LEAF_KEYS = ["tag", "payload", "identity"];

function leafIssue(v: unknown, path: PropertyKey[]): Issue | null {
  if (!isObject(v)) return { path, message: expected("object", v) };
  if (v.tag !== 0 && v.tag !== 1 && v.tag !== 2)
    return { path: [...path, "tag"], message: "must be 0 (Empty), 1 (Occupied) or 2 (Tombstone)" };
  const payload = feltsIssue(v.payload, [...path, "payload"]);
  if (payload !== null) return payload;
  const identity = identityIssue(v.identity, [...path, "identity"]);
  if (identity !== null) return identity;
  const extra = Object.keys(v).filter((k) => !LEAF_KEYS.includes(k));
  return extra.length > 0 ? { path, message: unrecognized(extra) } : null;
}

/** Why a JSON value is not a u64 key, or null. Never throws (no BigInt of an unchecked string). */
function keyProblem(v: number | string): string | null {
  if (typeof v === "number") {
    if (!Number.isInteger(v)) return "must be an integer (a u64)";
    if (v < 0) return "must be non-negative (a u64)";
    if (!Number.isSafeInteger(v))
      return "is above 2^53 − 1, where JSON numbers lose precision: write it as a decimal string";
    return null;
  }
  if (!/^[0-9]{1,20}$/.test(v))
    return `must be a u64: a JSON integer or a string of 1 to 20 decimal digits, got ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  if (BigInt(v) >= 1n << 64n) return "exceeds u64 (at most 18446744073709551615)";
  return null;
}

const leafBoundRule = `must be an integer in [${MIN_LEAF_MAX_FIELDS}, ${MAX_CONFIG_LEAF_MAX_FIELDS}] (the work limit on the leaf bound, docs/security.md)`;
const depthRule = `must be an integer in [1, ${MAX_CONFIG_DEPTH}]`;
const REQUEST_KEYS = [
  "kind",
  "depth",
  "leaf_max_fields",
  "key",
  "old_leaf",
  "new_leaf",
  "siblings",
  "old_root",
  "new_root",
  "value_digest",
];
const KINDS: readonly string[] = ["membership", "nonmembership", "update"];

/** An integer in [lo, hi], or undefined (the default applies). */
const bounded = (v: unknown, lo: number, hi: number) => finite(v) && Number.isInteger(v) && v >= lo && v <= hi;

/**
 * The first problem of a request, in the order of the fields above (a field's own problems first,
 * then unknown fields, then the siblings' count), or null.
 */
function requestIssue(r: unknown): Issue | null {
  if (!isObject(r)) return { path: [], message: "a request must be a JSON object" };
  if (!(typeof r.kind === "string" && KINDS.includes(r.kind)))
    return { path: ["kind"], message: 'must be "membership", "nonmembership" or "update"' };
  if (r.depth !== undefined && !bounded(r.depth, 1, MAX_CONFIG_DEPTH)) return { path: ["depth"], message: depthRule };
  if (r.leaf_max_fields !== undefined && !bounded(r.leaf_max_fields, MIN_LEAF_MAX_FIELDS, MAX_CONFIG_LEAF_MAX_FIELDS))
    return { path: ["leaf_max_fields"], message: leafBoundRule };
  if (!(finite(r.key) || typeof r.key === "string"))
    return { path: ["key"], message: "must be a u64: a JSON integer or a decimal string" };
  const kp = keyProblem(r.key);
  if (kp !== null) return { path: ["key"], message: kp };
  const leaves = leafIssue(r.old_leaf, ["old_leaf"]) ?? leafIssue(r.new_leaf, ["new_leaf"]);
  if (leaves !== null) return leaves;
  if (!Array.isArray(r.siblings)) return { path: ["siblings"], message: expected("array", r.siblings) };
  for (let i = 0; i < r.siblings.length; i++) {
    const s = feltsIssue(r.siblings[i], ["siblings", i], 8);
    if (s !== null) return s;
  }
  const digests =
    feltsIssue(r.old_root, ["old_root"], 8) ??
    feltsIssue(r.new_root, ["new_root"], 8) ??
    feltsIssue(r.value_digest, ["value_digest"], 8);
  if (digests !== null) return digests;
  const extra = Object.keys(r).filter((k) => !REQUEST_KEYS.includes(k));
  if (extra.length > 0) return { path: [], message: unrecognized(extra) };
  const depth = (r.depth as number | undefined) ?? 24;
  if (r.siblings.length !== depth)
    return { path: ["siblings"], message: `must have depth = ${depth} entries, got ${r.siblings.length}` };
  return null;
}

/** The request's JSON fields once `requestIssue` found none. */
interface RequestJson {
  kind: OpKindName;
  depth?: number;
  leaf_max_fields?: number;
  key: number | string;
  old_leaf: { tag: 0 | 1 | 2; payload: number[]; identity: number[] | string };
  new_leaf: { tag: 0 | 1 | 2; payload: number[]; identity: number[] | string };
  siblings: number[][];
  old_root: number[];
  new_root: number[];
  value_digest: number[];
}

function jsonPath(path: readonly PropertyKey[]): string {
  let s = "$";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
  return s;
}

/** The value at a JSON path, or undefined where the path leaves the value. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function identityBytes(v: readonly number[] | string): Uint8Array {
  if (typeof v === "string") return Uint8Array.from(v.match(/../g)!.map((h) => parseInt(h, 16)));
  return Uint8Array.from(v);
}

/**
 * Validates a JSON value as a request.
 * @throws RequestError `REQUEST_SCHEMA` naming the first offending field by JSON path (e.g. `$.siblings[3][0]`).
 */
export function parseRequest(value: unknown): SyncRequest {
  const issue = requestIssue(value);
  if (issue !== null) {
    const path = jsonPath(issue.path);
    const message = issue.path.length > 0 && valueAt(value, issue.path) === undefined ? "is required" : issue.message;
    throw new RequestError("REQUEST_SCHEMA", `${path}: ${message}`, { path });
  }
  const d = value as RequestJson;
  const toLeaf = (l: typeof d.old_leaf): RequestLeaf => ({
    tag: l.tag,
    payload: l.payload,
    identity: identityBytes(l.identity),
  });
  return {
    kind: d.kind,
    depth: d.depth ?? 24,
    leafMaxFields: d.leaf_max_fields ?? 31,
    key: BigInt(d.key),
    oldLeaf: toLeaf(d.old_leaf),
    newLeaf: toLeaf(d.new_leaf),
    siblings: d.siblings.map((s) => Uint32Array.from(s)),
    oldRoot: Uint32Array.from(d.old_root),
    newRoot: Uint32Array.from(d.new_root),
    valueDigest: Uint32Array.from(d.value_digest),
  };
}

/** Parses request JSON text. @throws RequestError `REQUEST_JSON` for invalid JSON, `REQUEST_SCHEMA` otherwise. */
export function parseRequestText(text: string): SyncRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RequestError("REQUEST_JSON", `$: is not valid JSON: ${(err as Error).message}`, { path: "$" });
  }
  return parseRequest(value);
}

/** Renders a request as JSON (keys as JSON integers when safe, else decimal strings; identity as hex). */
export function requestToJson(r: SyncRequest): Record<string, unknown> {
  const leafJson = (l: RequestLeaf) => ({
    tag: l.tag,
    payload: [...l.payload],
    identity: Array.from(l.identity, (b) => b.toString(16).padStart(2, "0")).join(""),
  });
  return {
    kind: r.kind,
    depth: r.depth,
    leaf_max_fields: r.leafMaxFields,
    key: r.key <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r.key) : r.key.toString(),
    old_leaf: leafJson(r.oldLeaf),
    new_leaf: leafJson(r.newLeaf),
    siblings: r.siblings.map((s) => Array.from(s)),
    old_root: Array.from(r.oldRoot),
    new_root: Array.from(r.newRoot),
    value_digest: Array.from(r.valueDigest),
  };
}
