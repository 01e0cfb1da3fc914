/**
 * The request file: one proving/verification request as JSON, with the field names of the
 * reference serving harness (compat-v1 §16.2 `input`): kind, depth, leaf_max_fields, key,
 * old_leaf, new_leaf, siblings, old_root, new_root, value_digest.
 *
 * Validated with a schema; the first offending field is reported by its JSON path.
 */
import { z } from "zod";
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

const felt = z
  .number({ error: "must be a number" })
  .int("must be an integer")
  .min(0, "must be non-negative")
  .max(P - 1, `must be a canonical field element (< p = ${P})`);
const digest = z.array(felt).length(8, "must have exactly 8 elements");
const identity = z.union([
  z
    .array(z.number().int().min(0).max(255), { error: "must be 32 bytes (integers 0..255) or 64 hex digits" })
    .length(32, "must have exactly 32 bytes"),
  z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 32 bytes (integers 0..255) or 64 hex digits"),
]);
const leaf = z
  .object({
    tag: z.union([z.literal(0), z.literal(1), z.literal(2)], {
      error: "must be 0 (Empty), 1 (Occupied) or 2 (Tombstone)",
    }),
    payload: z.array(felt),
    identity,
  })
  .strict();
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
const key = z
  .union([z.number(), z.string()], { error: "must be a u64: a JSON integer or a decimal string" })
  .superRefine((v, ctx) => {
    const problem = keyProblem(v);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });

const leafBoundRule = `must be an integer in [${MIN_LEAF_MAX_FIELDS}, ${MAX_CONFIG_LEAF_MAX_FIELDS}] (the work limit on the leaf bound, docs/security.md)`;

const requestSchema = z
  .object({
    kind: z.enum(["membership", "nonmembership", "update"], {
      error: 'must be "membership", "nonmembership" or "update"',
    }),
    depth: z
      .number({ error: `must be an integer in [1, ${MAX_CONFIG_DEPTH}]` })
      .int(`must be an integer in [1, ${MAX_CONFIG_DEPTH}]`)
      .min(1, `must be an integer in [1, ${MAX_CONFIG_DEPTH}]`)
      .max(MAX_CONFIG_DEPTH, `must be an integer in [1, ${MAX_CONFIG_DEPTH}]`)
      .default(24),
    leaf_max_fields: z
      .number({ error: leafBoundRule })
      .int(leafBoundRule)
      .min(MIN_LEAF_MAX_FIELDS, leafBoundRule)
      .max(MAX_CONFIG_LEAF_MAX_FIELDS, leafBoundRule)
      .default(31),
    key,
    old_leaf: leaf,
    new_leaf: leaf,
    siblings: z.array(digest),
    old_root: digest,
    new_root: digest,
    value_digest: digest,
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.siblings.length !== r.depth) {
      ctx.addIssue({
        code: "custom",
        path: ["siblings"],
        message: `must have depth = ${r.depth} entries, got ${r.siblings.length}`,
      });
    }
  });

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
  const r = requestSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const path = jsonPath(issue.path);
    const message =
      issue.path.length === 0
        ? issue.code === "invalid_type"
          ? "a request must be a JSON object"
          : issue.message
        : valueAt(value, issue.path) === undefined
          ? "is required"
          : issue.message;
    throw new RequestError("REQUEST_SCHEMA", `${path}: ${message}`, { path });
  }
  const d = r.data;
  const toLeaf = (l: typeof d.old_leaf): RequestLeaf => ({
    tag: l.tag,
    payload: l.payload,
    identity: identityBytes(l.identity),
  });
  return {
    kind: d.kind,
    depth: d.depth,
    leafMaxFields: d.leaf_max_fields,
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
    identity: Buffer.from(l.identity).toString("hex"),
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
