/**
 * The one encoding of a root in text and JSON. A root is its 32 bytes: the 8 canonical KoalaBear
 * elements of the digest, each as a little-endian u32, element 0 first. It is written as those
 * bytes in 64 lowercase hex characters (`formatRoot`) in every CLI line, JSON field, HTTP body and
 * page, and in base64 inside a checkpoint (`rootBytes`, `rootFromBytes`).
 *
 * `parseRoot` reads a root wherever one is taken: the 64 hex characters (either case), the list of
 * 8 decimal elements (`[a, b, …]`, `a,b,…` or space-separated), or a JSON array of 8 elements.
 * Each word must be a canonical element (< p); anything else is `RegistryError` `BAD_ROOT` whose
 * message and `details.field` name the option or field the root came from. This file loads no
 * database code (it runs in the browser page too).
 */
import { P } from "../field/koalabear.js";
import type { Digest } from "../hash/digest.js";
import { RegistryError } from "./errors.js";

/** Bytes of a root (8 elements × 4 bytes). */
export const ROOT_BYTES = 32;

/** Characters of a root in hex. */
export const ROOT_HEX_CHARS = 64;

const HEX = /^[0-9a-fA-F]+$/;

function bad(field: string, message: string): RegistryError {
  return new RegistryError("BAD_ROOT", `${field}: ${message}`, { field });
}

function shown(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * The 32 bytes of a root: each element as a little-endian u32, element 0 first. Takes what
 * `parseRoot` reads.
 * @throws RegistryError `BAD_ROOT` if `root` is not 8 canonical elements.
 */
export function rootBytes(root: ArrayLike<number> | string, field = "root"): Uint8Array {
  const d = parseRoot(root, field);
  const out = new Uint8Array(ROOT_BYTES);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) view.setUint32(4 * i, d[i]!, true);
  return out;
}

/**
 * The root of 32 bytes (the inverse of `rootBytes`).
 * @throws RegistryError `BAD_ROOT` naming `field` for a length other than 32 or a word ≥ p.
 */
export function rootFromBytes(bytes: Uint8Array, field = "root"): Digest {
  if (bytes.length !== ROOT_BYTES) throw bad(field, `a root is ${ROOT_BYTES} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const d = new Uint32Array(8);
  for (let i = 0; i < 8; i++) {
    const w = view.getUint32(4 * i, true);
    if (w >= P)
      throw bad(
        field,
        `word ${i} (bytes ${4 * i}–${4 * i + 3}, little-endian) is ${w}, not a canonical field element (< p = ${P})`,
      );
    d[i] = w;
  }
  return d;
}

/**
 * A root as 64 lowercase hex characters (its 32 bytes). Takes what `parseRoot` reads.
 * @throws RegistryError `BAD_ROOT` if `root` is not 8 canonical elements.
 * @example
 *   formatRoot(store.head().root); // "3a1f…" (64 characters)
 */
export function formatRoot(root: ArrayLike<number> | string): string {
  let out = "";
  for (const b of rootBytes(root)) out += HEX_PAIRS[b]!;
  return out;
}

/** "00".."ff". */
const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function fromHex(text: string, field: string): Digest {
  if (text.length !== ROOT_HEX_CHARS)
    throw bad(field, `a root in hex is ${ROOT_HEX_CHARS} hex characters (32 bytes), got ${text.length} characters`);
  const bytes = new Uint8Array(ROOT_BYTES);
  for (let i = 0; i < ROOT_BYTES; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return rootFromBytes(bytes, field);
}

function fromElements(values: ArrayLike<unknown>, field: string): Digest {
  if (values.length !== 8) throw bad(field, `a root has 8 field elements, got ${values.length}`);
  const d = new Uint32Array(8);
  for (let i = 0; i < 8; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= P)
      throw bad(field, `element ${i} is ${String(v)}, not a canonical field element (an integer in [0, ${P}))`);
    d[i] = v;
  }
  return d;
}

function fromText(text: string, field: string): Digest {
  const t = text.trim();
  if (t !== "" && HEX.test(t) && !(/^[0-9]+$/.test(t) && t.length <= 10)) return fromHex(t, field);
  const body = t.replace(/^\[/, "").replace(/\]$/, "").trim();
  const parts = body === "" ? [] : body.split(/[\s,]+/).filter((p) => p !== "");
  if (parts.length !== 8 || !parts.every((p) => /^[0-9]{1,10}$/.test(p))) {
    throw bad(
      field,
      `a root is 64 hex characters (its 32 bytes) or 8 canonical field elements as "[a, b, …]" or "a,b,…", got ${shown(text)}`,
    );
  }
  return fromElements(parts.map(Number), field);
}

/**
 * Reads a root: 64 hex characters, a list of 8 decimal elements (`[a, b, …]`, `a,b,…`), or an
 * array of 8 elements (a JSON array, a `Uint32Array`, any array-like).
 * @param field the option or field the root came from (`--root`, `query.root`, `body.trusted_root`), named in errors.
 * @throws RegistryError `BAD_ROOT` naming `field` (`details.field`): wrong length, a word or element not canonical (≥ p), not a root at all.
 * @example
 *   parseRoot("[1, 2, 3, 4, 5, 6, 7, 8]", "--root");
 *   parseRoot("0100000002000000030000000400000005000000060000000700000008000000", "--root"); // the same root
 */
export function parseRoot(input: unknown, field = "root"): Digest {
  if (typeof input === "string") return fromText(input, field);
  if (typeof input === "object" && input !== null && typeof (input as { length?: unknown }).length === "number")
    return fromElements(input as ArrayLike<unknown>, field);
  throw bad(field, "a root is 64 hex characters or 8 field elements");
}
