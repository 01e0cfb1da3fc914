/**
 * The kept form of a leaf row's earlier value (format 4, kept-chunks.ts): the record row without
 * the name, and without the leaf digest and creating batch that end the stored leaf row.
 *
 * A key holds one name for good (records are never removed, a delete keeps the name and a
 * second name at a key is refused), and a leaf row keeps its creating batch when it is
 * overwritten, so the name and the creating batch are those of the head's row; the leaf digest
 * is recomputed from the record. A kept leaf value is
 *
 *     state u8 ‖ the record row after its name (value form ‖ value, record-codec.ts)
 *
 * about 50 bytes shorter than the leaf row for a name of 12 bytes.
 */
import { RegistryError } from "../errors.js";

/** Bytes after a stored leaf row's record row: the leaf digest (32) and the creating batch (4). */
const LEAF_ROW_TAIL = 32 + 4;

/**
 * The kept form of a stored leaf row's value (record row ‖ digest ‖ creating batch, its checksum
 * stripped).
 * @param what names the row in errors.
 * @throws RegistryError `DB_CORRUPT` (a value too short for its record row's name).
 */
export function leafDelta(value: Uint8Array, what: string): Buffer {
  const end = value.length - LEAF_ROW_TAIL;
  if (end < 4) throw new RegistryError("DB_CORRUPT", `${what} is too short (${value.length} bytes)`, { row: what });
  const nameEnd = 3 + (value[1]! | (value[2]! << 8));
  if (nameEnd >= end) throw new RegistryError("DB_CORRUPT", `${what} is malformed`, { row: what });
  const out = Buffer.allocUnsafe(1 + end - nameEnd);
  out[0] = value[0]!;
  out.set(value.subarray(nameEnd, end), 1);
  return out;
}

/**
 * The record row a kept leaf value stands for, given the name of the key's head row (UTF-8).
 * @throws RegistryError `DB_CORRUPT` (an empty kept value, or a name longer than a record row holds).
 */
export function recordRowOfDelta(delta: Uint8Array, name: Uint8Array, what: string): Buffer {
  if (delta.length < 2 || name.length > 0xffff)
    throw new RegistryError("DB_CORRUPT", `${what} is malformed`, { row: what });
  const out = Buffer.allocUnsafe(3 + name.length + delta.length - 1);
  out[0] = delta[0]!;
  out.writeUInt16LE(name.length, 1);
  out.set(name, 3);
  out.set(delta.subarray(1), 3 + name.length);
  return out;
}
