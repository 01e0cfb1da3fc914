/**
 * Records packed into flat arrays: what the import parsers produce, the hash workers consume
 * (transferable between threads) and the store writes.
 */
import type { ValueForm } from "../mapping.js";

export interface PackedRecords {
  readonly count: number;
  /** UTF-8 names back to back. */
  readonly names: Uint8Array;
  /** count + 1 offsets into `names`. */
  readonly nameOffsets: Uint32Array;
  /** ValueForm of each record (0 null, 1 text, 2 fields). */
  readonly forms: Uint8Array;
  /** Values back to back: text as UTF-8, fields as u32 LE words, null as nothing. */
  readonly values: Uint8Array;
  /** count + 1 offsets into `values`. */
  readonly valueOffsets: Uint32Array;
  /** 1-based source line of each record (0 when not from a file). */
  readonly lines: Uint32Array;
}

/** The buffers of a packed batch, for postMessage transfer lists. */
export function packedBuffers(p: PackedRecords): ArrayBuffer[] {
  return [
    p.names.buffer,
    p.nameOffsets.buffer,
    p.forms.buffer,
    p.values.buffer,
    p.valueOffsets.buffer,
    p.lines.buffer,
  ] as ArrayBuffer[];
}

/** Growable builder of a PackedRecords batch. */
export class PackedBuilder {
  private names = new Uint8Array(1 << 16);
  private nameLen = 0;
  private values = new Uint8Array(1 << 16);
  private valueLen = 0;
  private nameOffsets: number[] = [0];
  private valueOffsets: number[] = [0];
  private forms: number[] = [];
  private lines: number[] = [];

  get count(): number {
    return this.forms.length;
  }

  /** Appends a record; name and value bytes are copied from the given ranges. */
  add(
    line: number,
    name: Uint8Array,
    nameStart: number,
    nameEnd: number,
    form: ValueForm,
    value: Uint8Array,
    valueStart: number,
    valueEnd: number,
  ): void {
    this.names = ensure(this.names, this.nameLen + (nameEnd - nameStart));
    this.names.set(name.subarray(nameStart, nameEnd), this.nameLen);
    this.nameLen += nameEnd - nameStart;
    this.values = ensure(this.values, this.valueLen + (valueEnd - valueStart));
    this.values.set(value.subarray(valueStart, valueEnd), this.valueLen);
    this.valueLen += valueEnd - valueStart;
    this.nameOffsets.push(this.nameLen);
    this.valueOffsets.push(this.valueLen);
    this.forms.push(form);
    this.lines.push(line);
  }

  /** The packed batch (fresh, exactly sized buffers); the builder starts over. */
  take(): PackedRecords {
    const out: PackedRecords = {
      count: this.forms.length,
      names: this.names.slice(0, this.nameLen),
      nameOffsets: Uint32Array.from(this.nameOffsets),
      forms: Uint8Array.from(this.forms),
      values: this.values.slice(0, this.valueLen),
      valueOffsets: Uint32Array.from(this.valueOffsets),
      lines: Uint32Array.from(this.lines),
    };
    this.nameLen = 0;
    this.valueLen = 0;
    this.nameOffsets = [0];
    this.valueOffsets = [0];
    this.forms = [];
    this.lines = [];
    return out;
  }
}

function ensure(buf: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  if (need <= buf.length) return buf;
  let size = buf.length * 2;
  while (size < need) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(buf);
  return grown;
}
