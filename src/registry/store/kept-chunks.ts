/**
 * Packed chunks of superseded tree rows (format 4 of the name-keyed store, docs/registry.md
 * §"Proofs at earlier roots"): the rows a batch `c` overwrote, with the values they had before
 * it, stored together under c ‖ chunk number in the `kept` table and appended in batch order, so
 * the table's pages fill completely; each row is also named in the `kept-index` table (row → the
 * chunks that keep one of its earlier values), from which a reader finds its value at a batch.
 *
 * A chunk holds at most `KEPT_CHUNK_ROWS` rows, each encoded as
 *
 *     byte h | flag ‖ [row prefix: 6 bytes BE, unless flag] ‖ value
 *
 * where h = 0 is a leaf row (prefix: its key; value: u16 LE length ‖ the leaf's earlier value,
 * leaf-delta.ts) and h ≥ 1 a branch row of height h (value: its 32-byte digest). Keys and
 * prefixes are below 2^48 (depth ≤ 48). The flag 0x80 says that the row is the branch of
 * height h above the previous row of the chunk (its prefix is the previous prefix shifted by the
 * difference of heights), so a path written leaf first, then upwards, costs one prefix.
 */
import { RegistryError } from "../errors.js";

/** Row-seal tag of a kept chunk. */
export const T_KEPT = 7;
/** Superseded rows per kept chunk at most. */
export const KEPT_CHUNK_ROWS = 512;
/** Bytes of a branch digest. */
const DIGEST_BYTES = 32;
/** The flag of a row whose prefix follows from the previous row's. */
const ABOVE_PREVIOUS = 0x80;

/** One kept row: its height (0 for a leaf), its prefix (the leaf key for a leaf) and its earlier value. */
export interface KeptRow {
  readonly height: number;
  readonly prefix: number;
  readonly value: Uint8Array;
}

/** Key of chunk `chunk` of batch `batch` in `kept`, which is also the value of its `kept-index` entries. */
export function keptKey(batch: number, chunk: number): Buffer {
  const k = Buffer.allocUnsafe(6);
  k.writeUInt32BE(batch, 0);
  k.writeUInt16BE(chunk, 4);
  return k;
}

/** Batch and chunk number of a `kept` key (or a `kept-index` value). */
export function keptKeyParts(key: Uint8Array): { batch: number; chunk: number } {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return { batch: b.readUInt32BE(0), chunk: b.readUInt16BE(4) };
}

/** Bytes of a prefix (keys and prefixes are below 2^48). */
const PREFIX_BYTES = 6;

/** Key of a row in `kept-index`: height byte ‖ prefix (6 bytes BE); a leaf row has height 0. */
export function keptIndexKey(height: number, prefix: number): Buffer {
  const k = Buffer.allocUnsafe(1 + PREFIX_BYTES);
  k[0] = height;
  k.writeUIntBE(prefix, 1, PREFIX_BYTES);
  return k;
}

/** Whether the row (h, p) is the branch above (h0, p0). */
function isAbove(h: number, p: number, h0: number, p0: number): boolean {
  return h > h0 && Math.floor(p0 / 2 ** (h - h0)) === p;
}

/** Builds one chunk's bytes, row by row. */
export class KeptChunkBuilder {
  private buf = Buffer.allocUnsafe(1024);
  private length = 0;
  private prevHeight = -1;
  private prevPrefix = 0;
  /** Rows added. */
  rows = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** Adds a row: a leaf (height 0, prefix = key, value = the leaf row's value) or a branch (value = 32-byte digest), value[0, size). */
  add(height: number, prefix: number, value: Uint8Array, size = value.length): void {
    const above = height > 0 && this.prevHeight >= 0 && isAbove(height, prefix, this.prevHeight, this.prevPrefix);
    this.room(1 + PREFIX_BYTES + 2 + size);
    this.buf[this.length++] = above ? height | ABOVE_PREVIOUS : height;
    if (!above) this.length = this.buf.writeUIntBE(prefix, this.length, PREFIX_BYTES);
    if (height === 0) {
      this.buf.writeUInt16LE(size, this.length);
      this.length += 2;
    }
    const buf = this.buf;
    const at = this.length;
    for (let i = 0; i < size; i++) buf[at + i] = value[i]!;
    this.length += size;
    this.prevHeight = height;
    this.prevPrefix = prefix;
    this.rows++;
  }

  /** The chunk's bytes so far. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/**
 * The rows of a chunk, in order.
 * @param what names the chunk in errors.
 * @throws RegistryError `DB_CORRUPT` (a truncated or malformed chunk).
 */
export function* keptRows(chunk: Uint8Array, what: string): Generator<KeptRow> {
  const bad = (why: string): RegistryError => new RegistryError("DB_CORRUPT", `${what} ${why}`, { row: what });
  let at = 0;
  let prevHeight = -1;
  let prevPrefix = 0;
  let n = 0;
  while (at < chunk.length) {
    if (++n > KEPT_CHUNK_ROWS) throw bad(`holds more than ${KEPT_CHUNK_ROWS} rows`);
    const b = chunk[at++]!;
    const height = b & ~ABOVE_PREVIOUS;
    let prefix: number;
    if ((b & ABOVE_PREVIOUS) !== 0) {
      if (height === 0 || prevHeight < 0 || height <= prevHeight) throw bad("is malformed");
      prefix = Math.floor(prevPrefix / 2 ** (height - prevHeight));
    } else {
      if (at + PREFIX_BYTES > chunk.length) throw bad("is truncated");
      prefix = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUIntBE(at, PREFIX_BYTES);
      at += PREFIX_BYTES;
    }
    let size = DIGEST_BYTES;
    if (height === 0) {
      if (at + 2 > chunk.length) throw bad("is truncated");
      size = chunk[at]! | (chunk[at + 1]! << 8);
      at += 2;
    }
    if (at + size > chunk.length) throw bad("is truncated");
    yield { height, prefix, value: chunk.subarray(at, at + size) };
    at += size;
    prevHeight = height;
    prevPrefix = prefix;
  }
  if (n === 0) throw bad("holds no row");
}
