/**
 * Input rules of the API's request bodies and parameters, each failure a 400 naming the field.
 */
import { parseRoot } from "../counterparty/claim.js";
import type { RecordValue } from "../registry/mapping.js";
import { HttpError } from "./errors.js";

/** The value of a write body: `{"value": "text"}`, `{"value": null}` or `{"fields": [..]}`. */
export function bodyValue(body: unknown, required: boolean): RecordValue | undefined {
  if (body === undefined || body === null || (typeof body === "object" && Object.keys(body).length === 0)) {
    if (required)
      throw new HttpError("BAD_INPUT", 'body: must be {"value": "text"}, {"value": null} or {"fields": [..]}', {
        field: "body",
      });
    return undefined;
  }
  if (typeof body !== "object" || Array.isArray(body))
    throw new HttpError("BAD_INPUT", "body: must be a JSON object", { field: "body" });
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b);
  const extra = keys.find((k) => k !== "value" && k !== "fields");
  if (extra !== undefined)
    throw new HttpError("BAD_INPUT", `body.${extra}: unknown field (a body has "value" or "fields")`, {
      field: `body.${extra}`,
    });
  if (keys.length !== 1)
    throw new HttpError("BAD_INPUT", 'body: give exactly one of "value" and "fields"', { field: "body" });
  if ("value" in b) {
    if (b.value !== null && typeof b.value !== "string")
      throw new HttpError("BAD_INPUT", "body.value: must be a text or null", { field: "body.value" });
    return b.value as string | null;
  }
  if (!Array.isArray(b.fields))
    throw new HttpError("BAD_INPUT", "body.fields: must be an array of field elements", { field: "body.fields" });
  b.fields.forEach((f, i) => {
    if (typeof f !== "number" || !Number.isInteger(f))
      throw new HttpError("BAD_INPUT", `body.fields[${i}]: must be an integer`, { field: `body.fields[${i}]` });
  });
  return { fields: b.fields as number[] };
}

/** A root query parameter: 64 hex characters, or 8 elements comma-separated or `[a, b, …]`. */
export function queryRoot(text: unknown, field = "query.root"): Uint32Array | undefined {
  if (text === undefined) return undefined;
  if (typeof text !== "string") throw new HttpError("BAD_INPUT", `${field}: give the root once`, { field });
  return parseRoot(text, field);
}

/** A root in a JSON body: 64 hex characters, the other text forms, or an array of 8 elements. */
export function bodyRoot(value: unknown, field: string): Uint32Array | undefined {
  if (value === undefined || value === null) return undefined;
  return parseRoot(value, field);
}

/** A positive integer query parameter with a default and a ceiling. */
export function queryInt(text: unknown, field: string, dflt: number, max: number): number {
  if (text === undefined) return dflt;
  if (typeof text !== "string" || !/^[0-9]+$/.test(text))
    throw new HttpError("BAD_INPUT", `${field}: must be a non-negative integer`, { field });
  const n = text.length > 9 ? Infinity : Number(text);
  if (n > max) throw new HttpError("BAD_INPUT", `${field}: at most ${max}`, { field });
  return n;
}

/**
 * The `profile` query parameter of the proof routes: `v1` (compat-v1, the default: the proof is
 * checked with its request) or `v3` (checked from the statement alone, docs/profile-v3.md).
 * @throws HttpError 400 `BAD_INPUT` naming `query.profile`.
 */
export function queryProfile(text: unknown, field = "query.profile"): "v1" | "v3" {
  if (text === undefined) return "v1";
  if (text === "v1" || text === "v3") return text;
  throw new HttpError("BAD_INPUT", `${field}: must be v1 or v3 (give it once)`, { field });
}

/** The proof a proof route serves: compat-v1, profile v3, or profile v3's zero-knowledge mode. */
export type ProofMode = "v1" | "v3" | "v3-zk";

/**
 * The `profile` and `zk` query parameters of the proof routes as one mode: `zk=1` asks for the
 * zero-knowledge mode of profile v3 (docs/profile-v3.md §11) and implies `profile=v3`; `zk=0`, or
 * no `zk`, leaves the profile as `queryProfile` reads it.
 * @throws HttpError 400 `BAD_INPUT` naming `query.zk` (not 0 or 1, or `zk=1` with a profile other
 *   than v3) or `query.profile`.
 */
export function queryProofMode(profileText: unknown, zkText: unknown): ProofMode {
  if (zkText === undefined || zkText === "0") return queryProfile(profileText);
  if (zkText !== "1")
    throw new HttpError("BAD_INPUT", "query.zk: must be 1 (a zero-knowledge proof) or 0 (give it once)", {
      field: "query.zk",
    });
  if (typeof profileText === "string" && profileText !== "v3")
    throw new HttpError(
      "BAD_INPUT",
      `query.zk: a zero-knowledge proof is a profile v3 proof (v3-zk); it cannot be made with profile=${profileText}`,
      { field: "query.zk" },
    );
  queryProfile(profileText);
  return "v3-zk";
}
