/**
 * CSV records (RFC 4180): a header line `name,value`, then one record of two fields per line.
 * Fields may be quoted with `"` (a quote inside is written `""`; quoted fields may contain commas
 * and line breaks). An unquoted empty value is null; a quoted empty value `""` is the empty text.
 * Blank lines are ignored. A record with another number of fields, or a stray quote, is
 * malformed; it is reported at the line where it starts.
 */
import { isUtf8 } from "node:buffer";
import { RegistryError } from "../../errors.js";
import { ValueForm } from "../../mapping.js";
import { BufferedSource, type RecordSink } from "./source.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const EMPTY = new Uint8Array(0);

interface Field {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  readonly quoted: boolean;
}

export class CsvSource extends BufferedSource {
  private line = 1;
  private headerRead = false;

  /** Reads one record's fields up to and including its line break; undefined + message on error. */
  private readRecord(): { fields: Field[] } | { error: string } {
    const b = this.buf;
    const fields: Field[] = [];
    for (;;) {
      if (this.pos < b.length && b[this.pos] === QUOTE) {
        const parts: Buffer[] = [];
        let p = this.pos + 1;
        let segment = p;
        for (;;) {
          if (p >= b.length) {
            this.pos = b.length;
            return { error: "quoted field is not closed before the end of the input" };
          }
          const c = b[p]!;
          if (c === QUOTE) {
            if (b[p + 1] === QUOTE) {
              parts.push(b.subarray(segment, p + 1));
              p += 2;
              segment = p;
              continue;
            }
            break;
          }
          if (c === LF) this.line++;
          p++;
        }
        parts.push(b.subarray(segment, p));
        const value = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        fields.push({ bytes: value, start: 0, end: value.length, quoted: true });
        this.pos = p + 1;
      } else {
        let p = this.pos;
        while (p < b.length && b[p] !== COMMA && b[p] !== LF && b[p] !== CR && b[p] !== QUOTE) p++;
        if (b[p] === QUOTE) {
          this.skipToLineEnd();
          return { error: 'a quote may only open a field (write a literal quote inside a quoted field as "")' };
        }
        fields.push({ bytes: b, start: this.pos, end: p, quoted: false });
        this.pos = p;
      }
      const c = b[this.pos];
      if (c === COMMA) {
        this.pos++;
        continue;
      }
      if (c === CR && b[this.pos + 1] === LF) this.pos++;
      if (c === CR || c === LF) {
        this.pos++;
        this.line++;
        return { fields };
      }
      if (this.pos >= b.length) return { fields };
      this.skipToLineEnd();
      return { error: "text after a closing quote (expected , or the end of the line)" };
    }
  }

  private skipToLineEnd(): void {
    const nl = this.buf.indexOf(LF, this.pos);
    this.pos = nl < 0 ? this.buf.length : nl + 1;
    if (nl >= 0) this.line++;
  }

  private atBlankLine(): boolean {
    const b = this.buf;
    if (b[this.pos] === LF) {
      this.pos++;
      this.line++;
      return true;
    }
    if (b[this.pos] === CR && b[this.pos + 1] === LF) {
      this.pos += 2;
      this.line++;
      return true;
    }
    return false;
  }

  next(sink: RecordSink, maxEntries: number): boolean {
    const b = this.buf;
    if (!this.headerRead) {
      while (this.pos < b.length && this.atBlankLine());
      const line = this.line;
      const r = this.readRecord();
      const header =
        "fields" in r
          ? r.fields.map((f) => Buffer.from(f.bytes.subarray(f.start, f.end)).toString("utf8").trim().toLowerCase())
          : [];
      if (header.length !== 2 || header[0] !== "name" || header[1] !== "value") {
        throw new RegistryError("BAD_SOURCE", `${this.description}: line ${line} must be the header "name,value"`, {
          line,
        });
      }
      this.headerRead = true;
    }
    let delivered = 0;
    while (this.pos < b.length && delivered < maxEntries && this.count < this.limit) {
      if (this.atBlankLine()) continue;
      const line = this.line;
      this.count++;
      delivered++;
      const r = this.readRecord();
      if ("error" in r) {
        sink.malformed(line, r.error);
        continue;
      }
      if (r.fields.length !== 2) {
        sink.malformed(line, `a record has 2 fields (name,value), found ${r.fields.length}`);
        continue;
      }
      const [name, value] = r.fields as [Field, Field];
      if (!isUtf8(name.bytes.subarray(name.start, name.end)) || !isUtf8(value.bytes.subarray(value.start, value.end))) {
        sink.malformed(line, "record is not valid UTF-8");
        continue;
      }
      if (!value.quoted && value.end === value.start)
        sink.record(line, name.bytes, name.start, name.end, ValueForm.Null, EMPTY, 0, 0);
      else sink.record(line, name.bytes, name.start, name.end, ValueForm.Text, value.bytes, value.start, value.end);
    }
    return this.pos < b.length && this.count < this.limit;
  }
}
