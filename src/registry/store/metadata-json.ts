/**
 * Reading the JSON metadata rows of a registry store (configuration, head, history entries):
 * the shared checks of both stores (`store.ts`, slot-v1; `name-store.ts`, record-leaf-v2).
 * Every failure is `DB_CORRUPT` naming the registry directory and the row.
 */
import { P } from "../../field/koalabear.js";
import type { Digest } from "../../hash/digest.js";
import { RegistryError } from "../errors.js";

/** The row's JSON object. @throws RegistryError `DB_CORRUPT` if it is not valid JSON or not an object. */
export function parseMetadataJson(raw: Uint8Array, what: string, dir: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw).toString("utf8"));
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new RegistryError("DB_CORRUPT", "not an object");
    return v as Record<string, unknown>;
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: ${what} is not valid JSON (${(e as Error).message})`, {
      dir,
    });
  }
}

/** A count field: a safe integer ≥ 0. */
export function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** A root field: 8 canonical field elements, or undefined if it is anything else. */
export function rootFromJson(v: unknown): Digest | undefined {
  if (!Array.isArray(v) || v.length !== 8) return undefined;
  if (!v.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0 && x < P)) return undefined;
  return Uint32Array.from(v as number[]);
}
