/**
 * The rows of the name-keyed store (format 4) as bytes: the format's name and version, the
 * row-seal tags of its tables and the keys of its `meta` rows, the keys of leaf and branch rows,
 * the sealing of `meta` and `history` rows, a leaf row's value (record row ‖ leaf digest ‖
 * creating batch), the head row (JSON) and the history rows (name-history.ts), and how errors
 * name a kept chunk.
 */
import type { Database, Transaction } from "lmdb" with { "resolution-mode": "require" };
import type { Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson, rootFromJson } from "./metadata-json.js";
import { decodeRecord, writeSlotKey, type StoredRecord } from "./record-codec.js";
import { seal, sealedLength, unseal } from "./row-seal.js";
import type { RowSealing } from "./environment.js";
import { decodeHistoryRow, encodeHistoryRow } from "./name-history.js";
import { keptKeyParts } from "./kept-chunks.js";
import type { LeafRow, NameHead, NameHistoryEntry } from "./name-types.js";

/** The `format` of a registry's configuration row. */
export const FORMAT = "ssgkr-registry";
/** The name-keyed store's current format version. */
export const FORMAT_VERSION = 4;
/** Row-seal tags of the `meta`, `leaves`, `branches` and `history` rows. */
export const T_META = 1;
export const T_LEAF = 2;
export const T_BRANCH = 3;
export const T_HISTORY = 4;
/** Row-seal tag of a change-log row (tags 5 and 6 were format 3's versions and pruning lists, 7 is a kept chunk). */
export const T_CHANGES = 8;
/** Keys of the `meta` rows of the configuration, head, retention and window. */
export const KEY_CONFIG = Buffer.from("config");
export const KEY_HEAD = Buffer.from("head");
export const KEY_RETENTION = Buffer.from("retention");
export const KEY_WINDOW = Buffer.from("window");
/** Bytes of a leaf row's creating batch. */
export const CREATED_BYTES = 4;

/** 8-byte BE key of a tree key. */
export function leafKey(key: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  writeSlotKey(b, 0, key);
  return b;
}

/** Key of a branch row: height byte ‖ prefix (8-byte BE). */
export function branchKey(h: number, p: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = h;
  writeSlotKey(b, 1, p);
  return b;
}

/** The name-keyed store's row sealing: a checksum over table tag, key and value (row-seal.ts). */
export const NAME_SEALING: RowSealing = {
  seal: (table, key, value) => seal(table === "meta" ? T_META : T_HISTORY, key, value),
  open: (table, key, row, what) =>
    unseal(table === "meta" ? T_META : T_HISTORY, key, row, typeof what === "string" ? what : what()),
  historyRowName: (key) => `history row ${Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(0)}`,
};

/** Reads the 8 words (u32 LE) at byte `at` into d: the first non-canonical word, or −1 when all are canonical. */
function digestWords(bytes: Uint8Array, at: number, d: Uint32Array): number {
  for (let k = 0; k < 8; k++, at += 4) {
    const w = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
    if (w >= P) return w;
    d[k] = w;
  }
  return -1;
}

/** The digest (8 × u32 LE, each word canonical) at byte `at`. @throws RegistryError `DB_CORRUPT`. */
export function readDigest(bytes: Uint8Array, at: number, what: string): Digest {
  const d = new Uint32Array(8);
  const bad = digestWords(bytes, at, d);
  if (bad >= 0) throw new RegistryError("DB_CORRUPT", `${what} holds a non-canonical word ${bad}`, { row: what });
  return d;
}

/** `readDigest` without the row's name: undefined for a non-canonical word. */
export function canonicalDigest(bytes: Uint8Array, at: number): Digest | undefined {
  const d = new Uint32Array(8);
  return digestWords(bytes, at, d) < 0 ? d : undefined;
}

/** A row in LMDB's read buffer (`getBinaryFast`, no copy): valid until the next read. */
export function readVolatile(
  table: Database<Buffer, Buffer>,
  key: Buffer,
  txn?: { transaction: Transaction },
): Buffer | undefined {
  return (table as unknown as { getBinaryFast(k: Buffer, o?: object): Buffer | undefined }).getBinaryFast(key, txn);
}

/** How errors name a `kept` row. */
export function keptRowName(key: Uint8Array): string {
  if (key.length !== 6) return "kept row (malformed key)";
  const { batch, chunk } = keptKeyParts(key);
  return `kept row of batch ${batch} (chunk ${chunk})`;
}

/** Decodes and checks a leaf row (record row ‖ digest ‖ creating batch ‖ checksum). */
export function decodeLeafRow(k: Uint8Array, raw: Uint8Array, key: number): LeafRow {
  const what = `leaf row of key ${key}`;
  return decodeLeafValue(unseal(T_LEAF, k, raw, what), what);
}

/**
 * Checks that a leaf row's value (its checksum stripped) holds a record row, a digest and its
 * creating batch. @throws RegistryError `DB_CORRUPT` naming `what`.
 */
export function checkLeafValue(v: Uint8Array, what: string): void {
  if (v.length < 32 + CREATED_BYTES + 4)
    throw new RegistryError("DB_CORRUPT", `${what} is too short (${v.length} bytes)`, { row: what });
}

/** A leaf row's digest alone: its checksum and length checked, its record not decoded. */
export function leafRowDigest(k: Uint8Array, raw: Uint8Array, key: number): Digest {
  const n = sealedLength(T_LEAF, k, raw);
  if (n >= 32 + CREATED_BYTES + 4) {
    const d = canonicalDigest(raw, n - CREATED_BYTES - 32);
    if (d !== undefined) return d;
  }
  const what = `leaf row of key ${key}`;
  const v = unseal(T_LEAF, k, raw, what);
  checkLeafValue(v, what);
  return readDigest(v, v.length - CREATED_BYTES - 32, what);
}

/** Decodes a leaf row's value (its checksum stripped). */
export function decodeLeafValue(v: Uint8Array, what: string): LeafRow {
  checkLeafValue(v, what);
  let record: StoredRecord;
  const end = v.length - CREATED_BYTES - 32;
  try {
    record = decodeRecord(v.subarray(0, end));
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: ${(e as Error).message}`, { row: what });
  }
  return { record, digest: readDigest(v, end, what), created: createdOf(v) };
}

/** The creating batch of a leaf row's value. */
export function createdOf(v: Uint8Array): number {
  const n = v.length;
  return (v[n - 4]! | (v[n - 3]! << 8) | (v[n - 2]! << 16) | (v[n - 1]! << 24)) >>> 0;
}

/** The head row's value (JSON). */
export function encodeHead(h: NameHead): Buffer {
  return Buffer.from(
    JSON.stringify({ batch: h.batch, root: Array.from(h.root), records: h.records, live: h.live, deleted: h.deleted }),
  );
}

/** Decodes the head row's value. @throws RegistryError `DB_CORRUPT`. */
export function decodeHead(raw: Uint8Array, dir: string): NameHead {
  const h = parseMetadataJson(raw, "head", dir);
  const root = rootFromJson(h["root"]);
  if (
    !isCount(h["batch"]) ||
    root === undefined ||
    !isCount(h["records"]) ||
    !isCount(h["live"]) ||
    !isCount(h["deleted"])
  ) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: head is malformed`, { dir });
  }
  return { batch: h["batch"], root, records: h["records"], live: h["live"], deleted: h["deleted"] };
}

/** A history row's value (binary, name-history.ts). */
export function encodeHistory(e: NameHistoryEntry): Buffer {
  return encodeHistoryRow(e);
}

/** Decodes a history row's value. @throws RegistryError `DB_CORRUPT`. */
export function decodeHistory(raw: Uint8Array, dir: string): NameHistoryEntry {
  return decodeHistoryRow(raw, `a history row of the registry at ${dir}`);
}
