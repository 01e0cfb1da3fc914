/**
 * Row checksums of the name-keyed store: every stored row value ends with a CRC-32 (the zlib
 * polynomial, `crc32Range` of row-checksum.ts, the slot store's checksum) over a table tag, the
 * row's key and its value, so a damaged row, or a row copied under another key or into another
 * table, is found when it is read (`DB_CORRUPT` naming the row).
 */
import { RegistryError } from "../errors.js";
import { crc32Range, ROW_CHECKSUM_BYTES } from "./row-checksum.js";

/** Bytes the checksum adds to a row. */
export const SEAL_BYTES = ROW_CHECKSUM_BYTES;

const TAG_CRC = Array.from({ length: 256 }, (_, tag) => crc32Range(Uint8Array.of(tag), 0, 1));

function sum(tag: number, key: Uint8Array, value: Uint8Array, valueLength: number): number {
  const c = crc32Range(key, 0, key.length, TAG_CRC[tag & 0xff]!);
  return crc32Range(value, 0, valueLength, c);
}

/** value ‖ CRC-32(tag ‖ key ‖ value). */
export function seal(tag: number, key: Uint8Array, value: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(value.length + SEAL_BYTES);
  out.set(value, 0);
  out.writeUInt32LE(sum(tag, key, value, value.length), value.length);
  return out;
}

/**
 * Seals in place: writes CRC-32(tag ‖ key ‖ buf[0, valueLength)) at buf[valueLength, valueLength + 4)
 * (buf must have room) and returns the sealed row's length. Same bytes as `seal`, no allocation.
 */
export function sealInto(tag: number, key: Uint8Array, buf: Uint8Array, valueLength: number): number {
  const c = sum(tag, key, buf, valueLength);
  buf[valueLength] = c & 0xff;
  buf[valueLength + 1] = (c >>> 8) & 0xff;
  buf[valueLength + 2] = (c >>> 16) & 0xff;
  buf[valueLength + 3] = c >>> 24;
  return valueLength + SEAL_BYTES;
}

/** `unseal`'s check alone: the value's length, or −1 (damaged). */
export function sealedLength(tag: number, key: Uint8Array, row: Uint8Array): number {
  const n = row.length - SEAL_BYTES;
  if (n < 0) return -1;
  const stored = (row[n]! | (row[n + 1]! << 8) | (row[n + 2]! << 16) | (row[n + 3]! << 24)) >>> 0;
  return stored === sum(tag, key, row, n) ? n : -1;
}

/**
 * Checks and strips the checksum of a stored row.
 * @param what names the row in the error (e.g. `leaf row of key 123`).
 * @throws RegistryError `DB_CORRUPT` (`details.row` = what) when the row is too short or its checksum differs.
 */
export function unseal(tag: number, key: Uint8Array, row: Uint8Array, what: string): Uint8Array {
  const n = sealedLength(tag, key, row);
  if (n >= 0) return row.subarray(0, n);
  throw new RegistryError(
    "DB_CORRUPT",
    row.length < SEAL_BYTES
      ? `${what} is damaged: ${row.length} bytes, shorter than its checksum`
      : `${what} is damaged: its checksum does not match its content (run \`ssgkr registry check\`)`,
    { row: what },
  );
}
