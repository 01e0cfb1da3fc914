/**
 * Record sources of an import: parsers that deliver (line, name, value) entries from a file or a
 * dataset to a sink, a bounded number per call. A malformed entry is delivered as such, with its
 * 1-based line number; the parser then continues with the next entry.
 */
import { readFileSync, statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { RegistryError } from "../../errors.js";
import { errnoText } from "../../../errors.js";
import type { ValueForm } from "../../mapping.js";

/** Receives parsed entries. Byte ranges are valid only during the call. */
export interface RecordSink {
  /**
   * A syntactically valid entry. Text values are UTF-8 bytes, field values u32 LE words, null
   * values an empty range. The sink validates names and values itself.
   */
  record(
    line: number,
    name: Uint8Array,
    nameStart: number,
    nameEnd: number,
    form: ValueForm,
    value: Uint8Array,
    valueStart: number,
    valueEnd: number,
  ): void;
  /** An entry that could not be parsed. */
  malformed(line: number, message: string): void;
}

/** An import source: where records come from, how many bytes it holds, and a reader that hands records to a sink (malformed ones as `BAD_RECORD`). */
export interface RecordSource {
  /** Human-readable origin, e.g. `file data.ndjson (NDJSON)`. */
  readonly description: string;
  /** Bytes of input (after decompression). */
  readonly totalBytes: number;
  /** Bytes consumed so far. */
  readonly bytesRead: number;
  /** Entries delivered so far (records and malformed entries). */
  readonly entries: number;
  /**
   * Delivers up to `maxEntries` entries; returns false once the input is exhausted (or the
   * source's entry limit is reached).
   * @throws RegistryError `BAD_SOURCE` when the input as a whole is unusable (e.g. not a JSON object).
   */
  next(sink: RecordSink, maxEntries: number): boolean;
}

/**
 * The state every in-memory source shares: the whole input, a read position, the entry count and
 * an optional entry limit. Subclasses parse from `buf` at `pos`.
 */
export abstract class BufferedSource implements RecordSource {
  readonly description: string;
  readonly totalBytes: number;
  protected readonly buf: Buffer;
  protected readonly limit: number;
  protected pos = 0;
  protected count = 0;

  /** @param bytes the whole input. @param limit stop after this many entries (default: all). */
  constructor(bytes: Buffer, description: string, limit = Infinity) {
    this.buf = bytes;
    this.description = description;
    this.totalBytes = bytes.length;
    this.limit = limit;
  }

  get bytesRead(): number {
    return this.pos;
  }

  get entries(): number {
    return this.count;
  }

  abstract next(sink: RecordSink, maxEntries: number): boolean;
}

/** Largest input file read into memory. */
export const MAX_INPUT_BYTES = 2 ** 31 - 1;

/**
 * Reads a whole input file, gunzipping names ending in `.gz`.
 * @throws RegistryError `BAD_SOURCE` (missing, unreadable, too large, bad gzip).
 */
export function readInput(path: string): Buffer {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new RegistryError("BAD_SOURCE", "not a regular file", { path });
    size = st.size;
  } catch (e) {
    throw new RegistryError("BAD_SOURCE", `cannot read input ${path}: ${errnoText(e)}`, { path });
  }
  if (size > MAX_INPUT_BYTES)
    throw new RegistryError("BAD_SOURCE", `input ${path} has ${size} bytes; at most ${MAX_INPUT_BYTES} are supported`, {
      path,
      size,
    });
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new RegistryError("BAD_SOURCE", `cannot read input ${path}: ${errnoText(e)}`, { path });
  }
  if (!path.endsWith(".gz")) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_INPUT_BYTES });
  } catch (e) {
    throw new RegistryError("BAD_SOURCE", `input ${path} is not a valid gzip file: ${(e as Error).message}`, { path });
  }
}
