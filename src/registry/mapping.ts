/**
 * Record → leaf mapping, version 1 (docs/registry.md §"Record → leaf").
 *
 * A record is (name, value). Its leaf is Occupied{payload, identity} (compat-v1 §6.1) with
 * - identity = Keccak-256(UTF-8 bytes of the name), 32 bytes;
 * - payload = [code] ‖ binding of the value, where the value is one of
 *   - null              → [0]                                  (a null value is a valid value)
 *   - text (a string)   → [code, limbs(Keccak-256(UTF-8 text))] (10 elements), code 1 github.com,
 *                         2 gitlab.com, 3 bitbucket.org, 4 any other text (host of a URL-like text,
 *                         see `textCode`);
 *   - fields (elements) → [5, f_1, …, f_k]                      (the elements verbatim, k ≥ 0).
 * The leaf encoding has 1 + |payload| + 9 elements and must not exceed the leaf bound B
 * (default 31): text needs B ≥ 20; fields allow k ≤ B − 11 (20 at B = 31).
 */
import { isUtf8 } from "./utf8.js";
import { keccak256 } from "../kernels/keccak-batch.js";
import { P } from "../field/koalabear.js";
import { IDENTITY_LIMBS, limbsInto, occupied, type OccupiedLeaf } from "../smt/leaf.js";
import { RegistryError } from "./errors.js";

/** A record value: null, a text (UTF-8 string), or a list of canonical field elements. */
export type RecordValue = null | string | { readonly fields: readonly number[] };

/** payload[0]: what the rest of the payload binds. */
export const ValueCode = Object.freeze({
  Null: 0,
  GitHub: 1,
  GitLab: 2,
  Bitbucket: 3,
  Text: 4,
  Fields: 5,
} as const);
export type ValueCode = (typeof ValueCode)[keyof typeof ValueCode];
export declare namespace ValueCode {
  type Null = typeof ValueCode.Null;
  type GitHub = typeof ValueCode.GitHub;
  type GitLab = typeof ValueCode.GitLab;
  type Bitbucket = typeof ValueCode.Bitbucket;
  type Text = typeof ValueCode.Text;
  type Fields = typeof ValueCode.Fields;
}

/** How a value is stored: null, UTF-8 text, or field elements as little-endian u32 words. */
export const ValueForm = Object.freeze({
  Null: 0,
  Text: 1,
  Fields: 2,
} as const);
export type ValueForm = (typeof ValueForm)[keyof typeof ValueForm];
export declare namespace ValueForm {
  type Null = typeof ValueForm.Null;
  type Text = typeof ValueForm.Text;
  type Fields = typeof ValueForm.Fields;
}

/** Longest name in UTF-8 bytes. */
export const MAX_NAME_BYTES = 1024;
/** Longest text value in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 65535;
/** Payload length of a text value: code + 9 digest limbs. */
export const TEXT_PAYLOAD_FIELDS = 1 + IDENTITY_LIMBS;
/** Smallest registry leaf bound: tag + text payload + identity limbs. */
export const MIN_REGISTRY_LEAF_MAX_FIELDS = 1 + TEXT_PAYLOAD_FIELDS + IDENTITY_LIMBS;

/** Mapping identifier stored in the registry configuration. */
export const MAPPING_ID = "record-leaf-v1";

/** Largest number of field elements a `fields` value may have under leaf bound B (B − 11). */
export function maxValueFields(leafMaxFields: number): number {
  return leafMaxFields - 2 - IDENTITY_LIMBS;
}

/** Leaf encoding length (tag included) of a value with this payload length. */
export function encodingLength(payloadFields: number): number {
  return 1 + payloadFields + IDENTITY_LIMBS;
}

const encoder = new TextEncoder();

/** True iff the string has no lone surrogate (it has a UTF-8 form). */
export function isWellFormedString(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * UTF-8 bytes of a name.
 * @throws RegistryError `BAD_NAME` if the name is not a string, is empty, is longer than 1,024
 * UTF-8 bytes, or contains a lone surrogate (not encodable as UTF-8).
 */
export function nameBytes(name: string): Uint8Array {
  if (typeof name !== "string" || name.length === 0)
    throw new RegistryError("BAD_NAME", `a record name must be a non-empty string, got ${JSON.stringify(name)}`);
  if (!isWellFormedString(name))
    throw new RegistryError(
      "BAD_NAME",
      `record name ${JSON.stringify(name)} contains a lone surrogate and has no UTF-8 form`,
    );
  const bytes = encoder.encode(name);
  checkNameBytes(bytes, 0, bytes.length);
  return bytes;
}

/**
 * Checks the UTF-8 bytes of a name: 1..1024 bytes of valid UTF-8.
 * @throws RegistryError `BAD_NAME`.
 */
export function checkNameBytes(bytes: Uint8Array, start: number, end: number): void {
  const n = end - start;
  if (n === 0) throw new RegistryError("BAD_NAME", "a record name must not be empty");
  if (n > MAX_NAME_BYTES)
    throw new RegistryError("BAD_NAME", `record name has ${n} UTF-8 bytes; at most ${MAX_NAME_BYTES} are allowed`, {
      bytes: n,
    });
  if (!isUtf8(bytes.subarray(start, end))) throw new RegistryError("BAD_NAME", "record name is not valid UTF-8");
}

/**
 * Checks the UTF-8 bytes of a text value: at most 65,535 bytes of valid UTF-8.
 * @throws RegistryError `BAD_VALUE`.
 */
export function checkTextBytes(bytes: Uint8Array, start: number, end: number): void {
  const n = end - start;
  if (n > MAX_TEXT_BYTES)
    throw new RegistryError("BAD_VALUE", `text value has ${n} UTF-8 bytes; at most ${MAX_TEXT_BYTES} are allowed`, {
      bytes: n,
    });
  if (!isUtf8(bytes.subarray(start, end))) throw new RegistryError("BAD_VALUE", "text value is not valid UTF-8");
}

/**
 * Checks a `fields` value against the leaf bound.
 * @throws RegistryError `VALUE_TOO_LARGE` for more than B − 11 elements; `BAD_VALUE` for a value
 * that is not an integer in [0, p).
 */
export function checkFields(fields: ArrayLike<number>, leafMaxFields: number): void {
  const max = maxValueFields(leafMaxFields);
  if (fields.length > max) {
    throw new RegistryError(
      "VALUE_TOO_LARGE",
      `value has ${fields.length} field elements; the leaf encoding would have ${encodingLength(1 + fields.length)} fields, over the leaf bound B = ${leafMaxFields} (at most ${max} value elements)`,
      { fields: fields.length, leafMaxFields },
    );
  }
  for (let i = 0; i < fields.length; i++) {
    const v = fields[i];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= P) {
      throw new RegistryError(
        "BAD_VALUE",
        `value field ${i} = ${String(v)} is not a canonical field element (an integer in [0, ${P}))`,
        { index: i },
      );
    }
  }
}

const HOSTS: readonly (readonly [string, ValueCode])[] = [
  ["github.com", ValueCode.GitHub],
  ["gitlab.com", ValueCode.GitLab],
  ["bitbucket.org", ValueCode.Bitbucket],
];

const lowerAscii = (b: number) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
const isSchemeByte = (b: number) =>
  (b >= 0x61 && b <= 0x7a) ||
  (b >= 0x41 && b <= 0x5a) ||
  (b >= 0x30 && b <= 0x39) ||
  b === 0x2b ||
  b === 0x2d ||
  b === 0x2e;
const isAlpha = (b: number) => (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a);

/**
 * The code of a text value (1 github.com, 2 gitlab.com, 3 bitbucket.org, 4 anything else), from
 * the host of a URL-like text: `scheme://[userinfo@]host[:port][/…]` or `user@host:path`; a
 * leading `www.` is ignored and hosts compare ASCII-case-insensitively. Works on UTF-8 bytes.
 */
export function textCode(bytes: Uint8Array, start = 0, end = bytes.length): ValueCode {
  let hostStart = -1;
  let hostEnd = -1;
  // scheme "://"
  let i = start;
  if (i < end && isAlpha(bytes[i]!)) {
    while (i < end && isSchemeByte(bytes[i]!)) i++;
    if (i + 2 < end && bytes[i] === 0x3a && bytes[i + 1] === 0x2f && bytes[i + 2] === 0x2f) {
      const authStart = i + 3;
      let authEnd = authStart;
      while (authEnd < end && bytes[authEnd] !== 0x2f && bytes[authEnd] !== 0x3f && bytes[authEnd] !== 0x23) authEnd++;
      hostStart = authStart;
      for (let k = authStart; k < authEnd; k++) if (bytes[k] === 0x40) hostStart = k + 1;
      hostEnd = hostStart;
      while (hostEnd < authEnd && bytes[hostEnd] !== 0x3a) hostEnd++;
    }
  }
  if (hostStart < 0) {
    // scp-like user@host:path (no "/" before the "@" and the ":")
    let at = -1;
    for (let k = start; k < end; k++) {
      const b = bytes[k]!;
      if (b === 0x2f) break;
      if (b === 0x40 && at < 0) at = k;
      if (b === 0x3a && at >= 0) {
        hostStart = at + 1;
        hostEnd = k;
        break;
      }
    }
  }
  if (hostStart < 0) return ValueCode.Text;
  if (
    hostEnd - hostStart > 4 &&
    lowerAscii(bytes[hostStart]!) === 0x77 &&
    lowerAscii(bytes[hostStart + 1]!) === 0x77 &&
    lowerAscii(bytes[hostStart + 2]!) === 0x77 &&
    bytes[hostStart + 3] === 0x2e
  )
    hostStart += 4;
  for (const [host, code] of HOSTS) {
    if (hostEnd - hostStart !== host.length) continue;
    let same = true;
    for (let k = 0; k < host.length && same; k++) same = lowerAscii(bytes[hostStart + k]!) === host.charCodeAt(k);
    if (same) return code;
  }
  return ValueCode.Text;
}

/** Keccak-256 of the UTF-8 bytes of a name: the leaf identity. @throws RegistryError `BAD_NAME`. */
export function nameIdentity(name: string): Uint8Array {
  return keccak256(nameBytes(name));
}

/**
 * The payload of a text value from its UTF-8 bytes (the text already known to be well formed):
 * [code, limbs(Keccak-256(bytes))], the digest given by `digest` (called once the bytes pass).
 * @throws RegistryError `BAD_VALUE` (too long, not UTF-8), `VALUE_TOO_LARGE` (a bound B < 20).
 */
export function textPayload(bytes: Uint8Array, leafMaxFields: number, digest: () => Uint8Array): number[] {
  checkTextBytes(bytes, 0, bytes.length);
  if (encodingLength(TEXT_PAYLOAD_FIELDS) > leafMaxFields) {
    throw new RegistryError(
      "VALUE_TOO_LARGE",
      `a text value needs a leaf encoding of ${encodingLength(TEXT_PAYLOAD_FIELDS)} fields, over the leaf bound B = ${leafMaxFields}`,
      { leafMaxFields },
    );
  }
  const out = new Array<number>(TEXT_PAYLOAD_FIELDS);
  out[0] = textCode(bytes);
  limbsInto(digest(), 0, TEXT_LIMBS, 0);
  for (let i = 0; i < IDENTITY_LIMBS; i++) out[1 + i] = TEXT_LIMBS[i]!;
  return out;
}
const TEXT_LIMBS = new Uint32Array(IDENTITY_LIMBS);

/**
 * The payload of a value (reference implementation; the bulk importer computes the same in
 * leaf-hasher.ts).
 * @param leafMaxFields registry leaf bound B (the encoding must fit).
 * @throws RegistryError `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function valuePayload(value: RecordValue, leafMaxFields: number): number[] {
  return valuePayloadWith(value, leafMaxFields, keccak256);
}

/**
 * `valuePayload` with the text's Keccak-256 given by `textDigest` (its UTF-8 bytes in, 32 bytes
 * out): a batch of records hashes their texts in one call and passes the digests here.
 * @throws RegistryError `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function valuePayloadWith(
  value: RecordValue,
  leafMaxFields: number,
  textDigest: (utf8: Uint8Array) => Uint8Array,
): number[] {
  if (value === null) return [ValueCode.Null];
  if (typeof value === "string") {
    if (!isWellFormedString(value))
      throw new RegistryError("BAD_VALUE", "text value contains a lone surrogate and has no UTF-8 form");
    const bytes = encoder.encode(value);
    return textPayload(bytes, leafMaxFields, () => textDigest(bytes));
  }
  if (typeof value === "object" && Array.isArray((value as { fields?: unknown }).fields)) {
    checkFields(value.fields, leafMaxFields);
    return [ValueCode.Fields, ...value.fields];
  }
  throw new RegistryError(
    "BAD_VALUE",
    `a record value must be null, a string or { fields: number[] }, got ${typeof value}`,
  );
}

/**
 * The leaf of a record: Occupied{valuePayload(value), Keccak-256(name)}.
 * @throws RegistryError `BAD_NAME`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function recordLeaf(name: string, value: RecordValue, leafMaxFields: number): OccupiedLeaf {
  return occupied(valuePayload(value, leafMaxFields), nameIdentity(name));
}

/** Human-readable form of a value: `null`, the text as a JSON string, or `fields[1, 2]`. */
export function describeValue(value: RecordValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  return `fields[${value.fields.join(", ")}]`;
}
