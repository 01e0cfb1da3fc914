/**
 * Zod building blocks for the wire types: integer ranges as the reference's serde types
 * (u8, u32, u64, usize) accept them, on values parsed by `parseJson` (u64 beyond 2^53 arrive
 * as bigints).
 */
import { z } from "zod";
import { ProtocolError, type ProtocolErrorCode } from "./errors.js";
import { U64_MAX } from "./limits.js";

/** u8: an integer in [0, 255]. */
export const u8 = z
  .number({ error: "must be an integer" })
  .int("must be an integer")
  .min(0, "must be a u8")
  .max(255, "must be a u8");

/** u32: an integer in [0, 2^32 − 1]. */
export const u32 = z
  .number({ error: "must be an integer" })
  .int("must be an integer")
  .min(0, "must be a u32")
  .max(0xffffffff, "must be a u32");

/**
 * usize limited to safe integers: an integer in [0, 2^53 − 1] (the reference's usize fields
 * `fixture_id`, `repeat`, `batch_size`, `encoded_bytes`; larger values are refused rather than
 * rounded).
 */
export const usize = z
  .number({ error: "must be an integer" })
  .int("must be an integer")
  .min(0, "must be non-negative")
  .max(Number.MAX_SAFE_INTEGER, "must be at most 2^53 − 1");

/** u64, losslessly: a safe non-negative integer or a bigint in [0, 2^64 − 1]; always a bigint after parsing. */
export const u64 = z
  .union(
    [
      z.number().int("must be an integer").min(0, "must be a u64").max(Number.MAX_SAFE_INTEGER),
      z.bigint().min(0n, "must be a u64").max(U64_MAX, "must be a u64"),
    ],
    { error: "must be a u64 integer" },
  )
  .transform((v) => BigInt(v));

/** A JSON path ("$.input.siblings[3][0]") of a zod issue path. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let s = "$";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
  return s;
}

/** Runs a schema; the first issue becomes a ProtocolError with `code` naming the JSON path. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, code: ProtocolErrorCode, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = jsonPath(issue.path);
  throw new ProtocolError(code, `${what} ${path}: ${issue.message}`, { path });
}
