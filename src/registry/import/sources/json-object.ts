/**
 * A JSON object of name → string | null, read entry by entry from its bytes, in file order (the
 * format of `data/packages.json` in the npm package all-the-package-repos: one
 * `"name": "url",` per line). File order is kept even for names that look like integers (which
 * `JSON.parse` would move to the front).
 *
 * A malformed entry (bad string, a value that is neither a string nor null, missing `:` or `,`)
 * is reported with its line number and the parser resumes on the next line.
 */
import { isUtf8 } from "node:buffer";
import { RegistryError } from "../../errors.js";
import { ValueForm, isWellFormedString } from "../../mapping.js";
import { BufferedSource, type RecordSink } from "./source.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const EMPTY = new Uint8Array(0);

/** A malformed entry of the object: reported to the sink (`BAD_RECORD`), the scan goes on with the next line. */
class EntryError extends RegistryError {
  constructor(message: string) {
    super("BAD_RECORD", message);
  }
}

interface StringRange {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
}

export class JsonObjectSource extends BufferedSource {
  private line = 1;
  private started = false;
  private finished = false;

  private skipWs(): void {
    const b = this.buf;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (c === NEWLINE) this.line++;
      else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return;
      this.pos++;
    }
  }

  private skipLine(): void {
    const nl = this.buf.indexOf(NEWLINE, this.pos);
    if (nl < 0) {
      this.pos = this.buf.length;
    } else {
      this.pos = nl + 1;
      this.line++;
    }
  }

  /** Reads a JSON string at pos (which holds the opening quote). */
  private readString(what: string): StringRange {
    const b = this.buf;
    const open = this.pos;
    let escaped = false;
    let p = open + 1;
    for (;;) {
      if (p >= b.length) throw new EntryError(`${what} string is not terminated`);
      const c = b[p]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        p += 2;
        continue;
      }
      if (c < 0x20)
        throw new EntryError(
          `${what} string contains a raw control character (0x${c.toString(16).padStart(2, "0")}) or is not terminated on its line`,
        );
      p++;
    }
    this.pos = p + 1;
    if (!isUtf8(b.subarray(open + 1, p))) throw new EntryError(`${what} is not valid UTF-8`);
    if (!escaped) return { bytes: b, start: open + 1, end: p };
    let s: unknown;
    try {
      s = JSON.parse(b.toString("utf8", open, p + 1));
    } catch {
      throw new EntryError(`${what} string has an invalid escape sequence`);
    }
    if (!isWellFormedString(s as string))
      throw new EntryError(`${what} contains a lone surrogate escape and has no UTF-8 form`);
    const bytes = Buffer.from(s as string, "utf8");
    return { bytes, start: 0, end: bytes.length };
  }

  next(sink: RecordSink, maxEntries: number): boolean {
    const b = this.buf;
    if (!this.started) {
      this.skipWs();
      if (b[this.pos] !== 0x7b)
        throw new RegistryError(
          "BAD_SOURCE",
          `${this.description} is not a JSON object (line ${this.line} does not start with "{")`,
          { line: this.line },
        );
      this.pos++;
      this.started = true;
    }
    let delivered = 0;
    while (!this.finished && delivered < maxEntries && this.count < this.limit) {
      this.skipWs();
      if (this.pos >= b.length) {
        this.count++;
        delivered++;
        sink.malformed(this.line, "input ends before the closing } of the object");
        this.finished = true;
        break;
      }
      if (b[this.pos] === 0x7d) {
        this.pos++;
        this.skipWs();
        if (this.pos < b.length) {
          this.count++;
          delivered++;
          sink.malformed(this.line, "text after the closing } of the object");
          this.pos = b.length;
        }
        this.finished = true;
        break;
      }
      const line = this.line;
      this.count++;
      delivered++;
      try {
        if (b[this.pos] !== QUOTE)
          throw new EntryError(`expected a quoted name, found ${JSON.stringify(String.fromCharCode(b[this.pos]!))}`);
        const name = this.readString("name");
        this.skipWs();
        if (b[this.pos] !== 0x3a) throw new EntryError(`expected ":" after the name`);
        this.pos++;
        this.skipWs();
        let form: ValueForm;
        let value: StringRange;
        if (b[this.pos] === QUOTE) {
          value = this.readString("value");
          form = ValueForm.Text;
        } else if (
          b[this.pos] === 0x6e &&
          b[this.pos + 1] === 0x75 &&
          b[this.pos + 2] === 0x6c &&
          b[this.pos + 3] === 0x6c
        ) {
          this.pos += 4;
          value = { bytes: EMPTY, start: 0, end: 0 };
          form = ValueForm.Null;
        } else {
          throw new EntryError("value must be a string or null");
        }
        this.skipWs();
        if (b[this.pos] === 0x2c) this.pos++;
        else if (b[this.pos] !== 0x7d && this.pos < b.length)
          throw new EntryError(`expected "," or "}" after the value`);
        sink.record(line, name.bytes, name.start, name.end, form, value.bytes, value.start, value.end);
      } catch (e) {
        if (!(e instanceof EntryError)) throw e;
        sink.malformed(line, e.message);
        if (this.line === line) this.skipLine();
      }
    }
    return !this.finished && this.count < this.limit;
  }
}
