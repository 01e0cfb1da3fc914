/**
 * NDJSON records: one JSON object per line, `{"name": "…", "value": "…" | null}` or
 * `{"name": "…", "fields": [e₁, …]}` (canonical field elements). Blank lines are ignored; any
 * other line that is not such an object is a malformed record.
 */
import { isUtf8 } from "node:buffer";
import { ValueForm, isWellFormedString } from "../../mapping.js";
import { BufferedSource, type RecordSink } from "./source.js";

const EMPTY = new Uint8Array(0);

export class NdjsonSource extends BufferedSource {
  private line = 0;

  next(sink: RecordSink, maxEntries: number): boolean {
    const b = this.buf;
    let delivered = 0;
    while (this.pos < b.length && delivered < maxEntries && this.count < this.limit) {
      const nl = b.indexOf(0x0a, this.pos);
      const end = nl < 0 ? b.length : nl;
      const start = this.pos;
      this.pos = nl < 0 ? b.length : nl + 1;
      this.line++;
      let blank = true;
      for (let i = start; i < end && blank; i++) {
        const c = b[i]!;
        blank = c === 0x20 || c === 0x09 || c === 0x0d;
      }
      if (blank) continue;
      this.count++;
      delivered++;
      const problem = this.parseLine(sink, start, end);
      if (problem !== undefined) sink.malformed(this.line, problem);
    }
    return this.pos < b.length && this.count < this.limit;
  }

  /** Parses one line; returns a problem description or undefined after delivering the record. */
  private parseLine(sink: RecordSink, start: number, end: number): string | undefined {
    if (!isUtf8(this.buf.subarray(start, end))) return "line is not valid UTF-8";
    let obj: unknown;
    try {
      obj = JSON.parse(this.buf.toString("utf8", start, end));
    } catch (e) {
      return `not valid JSON (${(e as Error).message})`;
    }
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return "a record must be a JSON object";
    const rec = obj as Record<string, unknown>;
    for (const k of Object.keys(rec))
      if (k !== "name" && k !== "value" && k !== "fields")
        return `unknown key ${JSON.stringify(k)} (allowed: name, value, fields)`;
    const name = rec["name"];
    if (typeof name !== "string") return `"name" must be a string`;
    if (!isWellFormedString(name)) return `"name" contains a lone surrogate and has no UTF-8 form`;
    const nameBytes = Buffer.from(name, "utf8");
    const hasValue = "value" in rec;
    const hasFields = "fields" in rec;
    if (hasValue === hasFields)
      return `a record needs exactly one of "value" (string or null) and "fields" (array of field elements)`;
    if (hasValue) {
      const v = rec["value"];
      if (v === null) {
        sink.record(this.line, nameBytes, 0, nameBytes.length, ValueForm.Null, EMPTY, 0, 0);
        return undefined;
      }
      if (typeof v !== "string") return `"value" must be a string or null`;
      if (!isWellFormedString(v)) return `"value" contains a lone surrogate and has no UTF-8 form`;
      const vb = Buffer.from(v, "utf8");
      sink.record(this.line, nameBytes, 0, nameBytes.length, ValueForm.Text, vb, 0, vb.length);
      return undefined;
    }
    const f = rec["fields"];
    if (!Array.isArray(f)) return `"fields" must be an array`;
    const words = new Uint8Array(4 * f.length);
    const view = new DataView(words.buffer);
    for (let i = 0; i < f.length; i++) {
      const x = f[i];
      if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0xffffffff)
        return `"fields"[${i}] = ${JSON.stringify(x)} is not an integer field element`;
      view.setUint32(4 * i, x, true);
    }
    sink.record(this.line, nameBytes, 0, nameBytes.length, ValueForm.Fields, words, 0, words.length);
    return undefined;
  }
}
