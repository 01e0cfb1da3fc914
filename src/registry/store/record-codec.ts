/**
 * Stored form of a record (the `records` table, keyed by slot) and of slot keys.
 *
 * Record row: u8 state (1 live, 2 deleted) ‖ u16 LE name length ‖ name (UTF-8) ‖ u8 form
 * (0 null, 1 text, 2 fields) ‖ for text: u32 LE length ‖ UTF-8 bytes; for fields: u16 LE count ‖
 * count × u32 LE. A deleted record keeps its name and last value; its leaf is a Tombstone.
 * Slot keys are 8 bytes big-endian (so key order is slot order).
 */
import { RegistryError } from "../errors.js";
import { ValueForm, type RecordValue } from "../mapping.js";

/** The state of a stored record row: live, or deleted (a tombstone). */
export const RecordState = Object.freeze({
  Live: 1,
  Deleted: 2,
} as const);
export type RecordState = (typeof RecordState)[keyof typeof RecordState];
export declare namespace RecordState {
  type Live = typeof RecordState.Live;
  type Deleted = typeof RecordState.Deleted;
}

/** A decoded record row. */
export interface StoredRecord {
  readonly state: RecordState;
  readonly name: string;
  readonly value: RecordValue;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Bytes of a record row with these name and value lengths (value bytes: text bytes or 4·fields). */
export function recordRowBytes(nameLength: number, form: ValueForm, valueLength: number): number {
  return (
    1 +
    2 +
    nameLength +
    1 +
    (form === ValueForm.Text ? 4 + valueLength : form === ValueForm.Fields ? 2 + valueLength : 0)
  );
}

/**
 * Writes a record row at out[at…] from raw parts and returns the end offset. For the fields
 * form, value bytes are the elements as u32 LE words.
 */
export function writeRecordRow(
  out: Uint8Array,
  at: number,
  state: RecordState,
  name: Uint8Array,
  nameStart: number,
  nameEnd: number,
  form: ValueForm,
  value: Uint8Array,
  valueStart: number,
  valueEnd: number,
): number {
  const nameLen = nameEnd - nameStart;
  const valueLen = valueEnd - valueStart;
  out[at++] = state;
  out[at++] = nameLen & 0xff;
  out[at++] = nameLen >>> 8;
  out.set(name.subarray(nameStart, nameEnd), at);
  at += nameLen;
  out[at++] = form;
  if (form === ValueForm.Text) {
    out[at++] = valueLen & 0xff;
    out[at++] = (valueLen >>> 8) & 0xff;
    out[at++] = (valueLen >>> 16) & 0xff;
    out[at++] = valueLen >>> 24;
  } else if (form === ValueForm.Fields) {
    const count = valueLen >>> 2;
    out[at++] = count & 0xff;
    out[at++] = count >>> 8;
  }
  if (form !== ValueForm.Null) {
    out.set(value.subarray(valueStart, valueEnd), at);
    at += valueLen;
  }
  return at;
}

/** Form and raw bytes of a value (text: UTF-8; fields: u32 LE words). Values must be valid. */
export function valueParts(value: RecordValue): { form: ValueForm; bytes: Uint8Array } {
  if (value === null) return { form: ValueForm.Null, bytes: new Uint8Array(0) };
  if (typeof value === "string") return { form: ValueForm.Text, bytes: encoder.encode(value) };
  const words = Uint32Array.from(value.fields);
  const bytes = new Uint8Array(4 * words.length);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < words.length; i++) view.setUint32(4 * i, words[i]!, true);
  return { form: ValueForm.Fields, bytes };
}

/** Where a record row's name starts. */
export const RECORD_NAME_START = 3;

/** A record row's name ends at nameEnd, its value's bytes start at valueStart. */
export function recordRowParts(row: Uint8Array): { nameEnd: number; form: ValueForm; valueStart: number } {
  const nameEnd = RECORD_NAME_START + (row[1]! | (row[2]! << 8));
  const form = row[nameEnd]! as ValueForm;
  const valueStart = nameEnd + 1 + (form === ValueForm.Text ? 4 : form === ValueForm.Fields ? 2 : 0);
  return { nameEnd, form, valueStart };
}

/** Encodes a record row. Name and value must already be valid. */
export function encodeRecord(record: StoredRecord): Uint8Array {
  const name = encoder.encode(record.name);
  const { form, bytes } = valueParts(record.value);
  const out = new Uint8Array(recordRowBytes(name.length, form, bytes.length));
  writeRecordRow(out, 0, record.state, name, 0, name.length, form, bytes, 0, bytes.length);
  return out;
}

function corrupt(slot: number | undefined, why: string): RegistryError {
  return new RegistryError(
    "DB_CORRUPT",
    `record row${slot === undefined ? "" : ` of slot ${slot}`} is malformed: ${why}`,
    { slot },
  );
}

/**
 * Decodes a record row.
 * @throws RegistryError `DB_CORRUPT` for a row that does not follow the layout.
 */
export function decodeRecord(row: Uint8Array, slot?: number): StoredRecord {
  const view = new DataView(row.buffer, row.byteOffset, row.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > row.length) throw corrupt(slot, `truncated at byte ${at} (${row.length} bytes)`);
  };
  need(3);
  const state = row[at++]!;
  if (state !== RecordState.Live && state !== RecordState.Deleted) throw corrupt(slot, `state byte ${state}`);
  const nameLen = view.getUint16(at, true);
  at += 2;
  need(nameLen + 1);
  let name: string;
  try {
    name = decoder.decode(row.subarray(at, at + nameLen));
  } catch {
    throw corrupt(slot, "name is not UTF-8");
  }
  at += nameLen;
  const form = row[at++]!;
  let value: RecordValue;
  if (form === ValueForm.Null) {
    value = null;
  } else if (form === ValueForm.Text) {
    need(4);
    const len = view.getUint32(at, true);
    at += 4;
    need(len);
    try {
      value = decoder.decode(row.subarray(at, at + len));
    } catch {
      throw corrupt(slot, "text value is not UTF-8");
    }
    at += len;
  } else if (form === ValueForm.Fields) {
    need(2);
    const count = view.getUint16(at, true);
    at += 2;
    need(4 * count);
    const fields: number[] = [];
    for (let i = 0; i < count; i++) fields.push(view.getUint32(at + 4 * i, true));
    at += 4 * count;
    value = { fields };
  } else {
    throw corrupt(slot, `value form byte ${form}`);
  }
  if (at !== row.length) throw corrupt(slot, `${row.length - at} trailing bytes`);
  return { state: state as RecordState, name, value };
}

/** 8-byte big-endian key of a slot (0 ≤ slot < 2^53). */
export function slotKey(slot: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  writeSlotKey(k, 0, slot);
  return k;
}

/** Writes the 8-byte big-endian key of a slot at out[at…]. */
export function writeSlotKey(out: Uint8Array, at: number, slot: number): void {
  const hi = Math.floor(slot / 2 ** 32);
  const lo = slot >>> 0;
  out[at] = hi >>> 24;
  out[at + 1] = (hi >>> 16) & 0xff;
  out[at + 2] = (hi >>> 8) & 0xff;
  out[at + 3] = hi & 0xff;
  out[at + 4] = lo >>> 24;
  out[at + 5] = (lo >>> 16) & 0xff;
  out[at + 6] = (lo >>> 8) & 0xff;
  out[at + 7] = lo & 0xff;
}

/** Reads an 8-byte big-endian slot key. @throws RegistryError `DB_CORRUPT` unless 8 bytes < 2^53. */
export function readSlotKey(bytes: Uint8Array): number {
  if (bytes.length !== 8) throw new RegistryError("DB_CORRUPT", `slot value has ${bytes.length} bytes, expected 8`);
  const hi = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  const lo = ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0;
  if (hi >= 2 ** 21) throw new RegistryError("DB_CORRUPT", "slot value exceeds 2^53");
  return hi * 2 ** 32 + lo;
}
