/**
 * The request validator of src/sync/request.ts (field by field, no schema library, so the browser
 * entry does not carry zod) against the zod schema it replaced, kept here as the reference: on
 * valid requests and on random alterations of them (wrong types, out-of-range numbers, missing
 * and unknown fields, wrong lengths), both accept the same values and reject the others with the
 * same JSON path and message.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { z } from "zod";
import { parseRequest, RequestError } from "../../src/sync/request.js";
import { P } from "../../src/field/index.js";
import { MIN_LEAF_MAX_FIELDS } from "../../src/smt/leaf.js";
import { MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "../../src/sync/limits.js";

// The schema as it was in src/sync/request.ts.
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
    if (r.siblings.length !== r.depth)
      ctx.addIssue({
        code: "custom",
        path: ["siblings"],
        message: `must have depth = ${r.depth} entries, got ${r.siblings.length}`,
      });
  });

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** The reference verdict: "ok" or "PATH: message", as parseRequest formatted zod's first issue. */
function reference(value: unknown): string {
  const r = requestSchema.safeParse(value);
  if (r.success) return "ok";
  const issue = r.error.issues[0]!;
  let path = "$";
  for (const p of issue.path) path += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
  const message =
    issue.path.length === 0
      ? issue.code === "invalid_type"
        ? "a request must be a JSON object"
        : issue.message
      : valueAt(value, issue.path) === undefined
        ? "is required"
        : issue.message;
  return `${path}: ${message}`;
}

function actual(value: unknown): string {
  try {
    parseRequest(value);
    return "ok";
  } catch (e) {
    if (!(e instanceof RequestError)) throw e;
    assert.equal(e.code, "REQUEST_SCHEMA");
    return e.message;
  }
}

function base(depth = 2): Record<string, unknown> {
  return {
    kind: "membership",
    depth,
    key: 1,
    old_leaf: { tag: 1, payload: [42, 1], identity: "09".repeat(32) },
    new_leaf: { tag: 1, payload: [42, 1], identity: new Array(32).fill(9) },
    siblings: Array.from({ length: depth }, (_, l) => new Array(8).fill(13 * l + 1)),
    old_root: new Array(8).fill(1),
    new_root: new Array(8).fill(1),
    value_digest: new Array(8).fill(2),
  };
}

/** Values a field may be replaced with. */
const odd = fc.oneof(
  fc.constantFrom(
    null,
    true,
    "",
    "x",
    "membership",
    "update",
    "12",
    "18446744073709551616",
    "09".repeat(32),
    "0g".repeat(32),
    0,
    1,
    2,
    3,
    -1,
    1.5,
    255,
    256,
    P - 1,
    P,
    2 ** 53,
    9,
    24,
    31,
    64,
    65,
    [],
    {},
  ),
  fc.integer({ min: -3, max: 300 }),
  fc.array(fc.constantFrom(0, 1, 9, 255, 256, -1, 1.5, "a", null, P), { maxLength: 34 }),
  fc.array(fc.array(fc.constantFrom(0, 1, 1.5, P, "a"), { minLength: 7, maxLength: 9 }), { maxLength: 3 }),
);

/** A path into the base request to alter (a field, a leaf's field, an element). */
const where = fc.constantFrom<readonly (string | number)[]>(
  ["kind"],
  ["depth"],
  ["leaf_max_fields"],
  ["key"],
  ["old_leaf"],
  ["new_leaf"],
  ["old_leaf", "tag"],
  ["old_leaf", "payload"],
  ["old_leaf", "payload", 0],
  ["old_leaf", "identity"],
  ["new_leaf", "identity"],
  ["new_leaf", "identity", 3],
  ["new_leaf", "extra"],
  ["siblings"],
  ["siblings", 0],
  ["siblings", 1, 4],
  ["siblings", 2],
  ["old_root"],
  ["old_root", 7],
  ["new_root", 8],
  ["value_digest"],
  ["extra"],
);

function altered(changes: readonly { path: readonly (string | number)[]; value: unknown; drop: boolean }[]) {
  const r = structuredClone(base()) as Record<string | number, unknown>;
  for (const { path, value, drop } of changes) {
    let o = r;
    for (const p of path.slice(0, -1)) {
      const next = o[p];
      if (next === null || typeof next !== "object") break;
      o = next as Record<string | number, unknown>;
    }
    const last = path.at(-1)!;
    if (drop) delete o[last];
    else o[last] = structuredClone(value);
  }
  return r;
}

test("the validator accepts and rejects as the zod schema did, with the same path and message", () => {
  const fixed: unknown[] = [base(), base(24), [1], null, "x", 5, { ...base(), depth: undefined }];
  for (const v of fixed) assert.equal(actual(v), reference(v), JSON.stringify(v)?.slice(0, 200));
  let rejected = 0;
  fc.assert(
    fc.property(
      fc.array(fc.record({ path: where, value: odd, drop: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      (changes) => {
        const v = altered(changes);
        const want = reference(v);
        if (want !== "ok") rejected++;
        assert.equal(actual(v), want, JSON.stringify(v).slice(0, 400));
      },
    ),
    { numRuns: 3000 },
  );
  assert.ok(rejected > 1000, `most alterations are rejected (${rejected})`);
});
