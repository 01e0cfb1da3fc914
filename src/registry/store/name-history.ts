/**
 * The history rows of the name-keyed store (format 4): one row per batch, keyed by the batch
 * (4 bytes big-endian), whose value is binary, about 75 bytes and the name of a single-record
 * batch (format 3 stored the same fields as JSON, about 250 bytes; `registry upgrade` rewrites
 * them, `decodeHistoryJson`):
 *
 *     batch u32 ‖ root 8 × u32 ‖ records, live, deleted, written u48 ‖ committedAt u48 (ms since
 *     1970) ‖ kind length u8 ‖ kind (ASCII) ‖ has name u8 ‖ name (UTF-8, the rest of the row)
 *
 * all little-endian.
 */
import type { Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson, rootFromJson } from "./metadata-json.js";

/** The fields of a history row: the head after the batch and what it did. */
export interface HistoryRow {
  readonly batch: number;
  readonly root: Digest;
  readonly records: number;
  readonly live: number;
  readonly deleted: number;
  readonly kind: string;
  readonly written: number;
  /** ISO 8601 time with milliseconds, as `Date.prototype.toISOString` writes it. */
  readonly committedAt: string;
  readonly name?: string;
}

const FIXED = 4 + 32 + 5 * 6 + 1;
const U48 = 2 ** 48;

/** The binary history row of an entry. */
export function encodeHistoryRow(e: HistoryRow): Buffer {
  const kind = Buffer.from(e.kind, "latin1");
  const name = e.name === undefined ? undefined : Buffer.from(e.name, "utf8");
  const out = Buffer.alloc(FIXED + kind.length + 1 + (name?.length ?? 0));
  let at = out.writeUInt32LE(e.batch, 0);
  for (let k = 0; k < 8; k++) at = out.writeUInt32LE(e.root[k]!, at);
  for (const n of [e.records, e.live, e.deleted, e.written, Date.parse(e.committedAt)]) at = out.writeUIntLE(n, at, 6);
  at = out.writeUInt8(kind.length, at);
  at += kind.copy(out, at);
  at = out.writeUInt8(name === undefined ? 0 : 1, at);
  if (name !== undefined) name.copy(out, at);
  return out;
}

/**
 * Decodes a binary history row.
 * @param what names the row in errors.
 * @throws RegistryError `DB_CORRUPT` (a malformed row).
 */
export function decodeHistoryRow(raw: Uint8Array, what: string): HistoryRow {
  const bad = (): RegistryError => new RegistryError("DB_CORRUPT", `${what} is malformed`, { row: what });
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (b.length < FIXED + 1) throw bad();
  const root = new Uint32Array(8);
  for (let k = 0; k < 8; k++) {
    root[k] = b.readUInt32LE(4 + 4 * k);
    if (root[k]! >= P) throw bad();
  }
  const n = (i: number): number => b.readUIntLE(36 + 6 * i, 6);
  const kindLength = b[FIXED - 1]!;
  if (b.length < FIXED + kindLength + 1) throw bad();
  const kind = b.toString("latin1", FIXED, FIXED + kindLength);
  const hasName = b[FIXED + kindLength]!;
  if (hasName > 1 || (hasName === 0 && b.length !== FIXED + kindLength + 1)) throw bad();
  const ms = n(4);
  if (ms >= U48) throw bad();
  const entry: HistoryRow = {
    batch: b.readUInt32LE(0),
    root,
    records: n(0),
    live: n(1),
    deleted: n(2),
    kind,
    written: n(3),
    committedAt: new Date(ms).toISOString(),
  };
  if (hasName === 0) return entry;
  return { ...entry, name: b.toString("utf8", FIXED + kindLength + 1) };
}

/**
 * Decodes a format-3 history row (JSON; read by the upgrade).
 * @throws RegistryError `DB_CORRUPT` (a malformed row).
 */
export function decodeHistoryJson(raw: Uint8Array, dir: string): HistoryRow {
  const h = parseMetadataJson(raw, "history entry", dir);
  const root = rootFromJson(h["root"]);
  if (
    !isCount(h["batch"]) ||
    root === undefined ||
    !isCount(h["records"]) ||
    !isCount(h["live"]) ||
    !isCount(h["deleted"]) ||
    typeof h["kind"] !== "string" ||
    !isCount(h["written"]) ||
    typeof h["committedAt"] !== "string" ||
    Number.isNaN(Date.parse(h["committedAt"]))
  )
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: a history entry is malformed`, { dir });
  return {
    batch: h["batch"],
    root,
    records: h["records"],
    live: h["live"],
    deleted: h["deleted"],
    kind: h["kind"],
    written: h["written"],
    committedAt: h["committedAt"],
    ...(typeof h["name"] === "string" ? { name: h["name"] } : {}),
  };
}
