/**
 * Reading untrusted in-memory proof values without throwing: a value is an extension element
 * only if it is an array of exactly four canonical field elements.
 */
import { isCanonical } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";

/** The value as an `Ext`, or null if it is not an array of four canonical integers in [0, p). */
export function parseExt(value: unknown): Ext | null {
  if (!Array.isArray(value) || value.length !== 4) return null;
  const c0: unknown = value[0],
    c1: unknown = value[1],
    c2: unknown = value[2],
    c3: unknown = value[3];
  if (!isCanonical(c0) || !isCanonical(c1) || !isCanonical(c2) || !isCanonical(c3)) return null;
  return [c0, c1, c2, c3];
}

/** Reads a property of an untrusted object; undefined for non-objects (never throws on plain data). */
export function untrustedProperty(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  return (value as Record<string, unknown>)[key];
}
