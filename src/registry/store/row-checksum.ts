/**
 * Row checksums of registry tables: every stored value is `payload ‖ CRC-32(key ‖ payload)`
 * (CRC-32/ISO-HDLC, the polynomial of zlib and gzip, as u32 little-endian). The key is part of
 * the checksum, so a row copied or moved under another key fails its check too.
 *
 * The checksum guards against accidental damage (a flipped bit, a torn or misplaced page, an
 * edited file): a damaged row is reported as `DB_CORRUPT` naming the row before its content is
 * used. It does not authenticate anything against someone who can write the database; the
 * tree root does that for the registry's content.
 *
 * Usable by any LMDB-backed store: `sealRow`/`sealInPlace` on write, `openRow` on read.
 */
import { crc32 } from "node:zlib";
import { RegistryError } from "../errors.js";

/** Bytes a checksum adds to a row. */
export const ROW_CHECKSUM_BYTES = 4;

/** Name of the checksum in stored configurations. */
export const ROW_CHECKSUM_ID = "crc32-key-value";

/** Slicing-by-8 tables: TABLE[256·t + n] = CRC of byte n followed by t zero bytes. */
const TABLE = (() => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++)
    for (let k = 1; k < 8; k++) t[256 * k + n] = t[t[256 * (k - 1) + n]! & 0xff]! ^ (t[256 * (k - 1) + n]! >>> 8);
  return t;
})();

/** Rows up to this length are checksummed in TypeScript (a native call costs more for short rows). */
const SHORT = 128;

/** CRC-32 of bytes[start, end) continuing from `crc` (0 to start): crc(a ‖ b) = crc(b, crc(a)). */
export function crc32Range(bytes: Uint8Array, start: number, end: number, crc = 0): number {
  if (end - start > SHORT) return crc32(bytes.subarray(start, end), crc);
  const T = TABLE;
  let c = ~crc;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const a = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) ^ c;
    c =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + bytes[i + 4]!]! ^
      T[512 + bytes[i + 5]!]! ^
      T[256 + bytes[i + 6]!]! ^
      T[bytes[i + 7]!]!;
  }
  for (; i < end; i++) c = T[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function rowCrc(key: Uint8Array, row: Uint8Array, start: number, end: number): number {
  return crc32Range(row, start, end, crc32Range(key, 0, key.length));
}

/** `payload ‖ checksum` as a fresh Buffer. */
export function sealRow(key: Uint8Array, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(payload.length + ROW_CHECKSUM_BYTES);
  out.set(payload, 0);
  out.writeUInt32LE(rowCrc(key, payload, 0, payload.length), payload.length);
  return out;
}

/**
 * Appends the checksum of the payload out[start, end) (under `key`) at out[end, end + 4) and
 * returns end + 4. For writers that build many rows in one buffer.
 */
export function sealInPlace(out: Uint8Array, start: number, end: number, key: Uint8Array): number {
  const c = rowCrc(key, out, start, end);
  out[end] = c & 0xff;
  out[end + 1] = (c >>> 8) & 0xff;
  out[end + 2] = (c >>> 16) & 0xff;
  out[end + 3] = c >>> 24;
  return end + ROW_CHECKSUM_BYTES;
}

/** The payload of a sealed row, or undefined when the row is too short or its checksum fails. */
export function tryOpenRow(key: Uint8Array, row: Uint8Array): Uint8Array | undefined {
  const n = row.length - ROW_CHECKSUM_BYTES;
  if (n < 0) return undefined;
  const stored = (row[n]! | (row[n + 1]! << 8) | (row[n + 2]! << 16) | (row[n + 3]! << 24)) >>> 0;
  return stored === rowCrc(key, row, 0, n) ? row.subarray(0, n) : undefined;
}

/**
 * The payload of a sealed row (a view of `row`).
 * @param what names the row in the error, e.g. "record row of slot 5".
 * @throws RegistryError `DB_CORRUPT` (`details.row` = what) when the checksum does not match.
 */
export function openRow(key: Uint8Array, row: Uint8Array, what: string | (() => string)): Uint8Array {
  const payload = tryOpenRow(key, row);
  if (payload !== undefined) return payload;
  const name = typeof what === "string" ? what : what();
  const why =
    row.length < ROW_CHECKSUM_BYTES
      ? `${row.length} bytes, shorter than its checksum`
      : "its checksum does not match its content";
  throw new RegistryError("DB_CORRUPT", `${name} is damaged: ${why}`, { row: name });
}
