/**
 * Lossless JSON for the u64 fields of the serving protocol (compat-v1 §16.2–16.3: `job_id`,
 * `*_unix_ns`, `*_ns`, `batch_id`, `input.key` are JSON integers up to 2^64 − 1).
 *
 * `JSON.parse` turns every number into an IEEE double, which silently rounds integers above
 * 2^53. `parseJson` is a strict RFC 8259 parser that returns integer literals (no fraction, no
 * exponent) as `number` when they are safe integers and as `bigint` otherwise; every other value
 * is what `JSON.parse` returns (duplicate keys: the last one wins). When the text has no run of
 * 16 or more digits no integer literal can exceed 2^53, and the native `JSON.parse` is used.
 *
 * `stringifyJson` writes `bigint` values as bare integer literals, so u64 values round-trip.
 *
 * Known leniency: a number literal with a fraction or exponent that is integral (e.g. `1.0`,
 * `1e3`) parses as an integer `number`, which the schemas then accept where an integer is
 * expected (the reference's serde decoder rejects these).
 */
import { ProtocolError } from "./errors.js";

/** A JSON value as parsed: integers beyond 2^53 − 1 in magnitude are bigints. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

const LONG_DIGIT_RUN = /[0-9]{16}/;

/**
 * Parses JSON text losslessly (see the module comment).
 * @throws ProtocolError `BAD_JSON` with `details.offset` (UTF-16 index) for invalid JSON.
 */
export function parseJson(text: string): JsonValue {
  if (!LONG_DIGIT_RUN.test(text)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch (err) {
      throw new ProtocolError("BAD_JSON", `invalid JSON: ${(err as Error).message}`, {});
    }
  }
  return parseJsonExact(text);
}

/**
 * `parseJson` without the native fast path: always the hand-written parser (exposed for
 * differential tests against `JSON.parse`).
 * @throws ProtocolError `BAD_JSON` with `details.offset`.
 */
export function parseJsonExact(text: string): JsonValue {
  return new Parser(text).parseDocument();
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(what: string): never {
    throw new ProtocolError("BAD_JSON", `invalid JSON at offset ${this.i}: ${what}`, { offset: this.i });
  }

  parseDocument(): JsonValue {
    this.ws();
    const v = this.value(0);
    this.ws();
    if (this.i !== this.s.length) this.fail("unexpected data after the value");
    return v;
  }

  private ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private value(depth: number): JsonValue {
    if (depth > 512) this.fail("nesting deeper than 512");
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case 0x7b:
        return this.object(depth);
      case 0x5b:
        return this.array(depth);
      case 0x22:
        return this.string();
      case 0x74:
        return this.literal("true", true);
      case 0x66:
        return this.literal("false", false);
      case 0x6e:
        return this.literal("null", null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.fail(
          Number.isNaN(c) ? "unexpected end of input" : `unexpected character ${JSON.stringify(this.s[this.i])}`,
        );
    }
  }

  private literal<T extends JsonValue>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail(`expected ${word}`);
    this.i += word.length;
    return v;
  }

  private object(depth: number): JsonValue {
    this.i++;
    const out: { [key: string]: JsonValue } = {};
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x22) this.fail("expected a string key");
      const key = this.string();
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x3a) this.fail("expected ':'");
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x2c) continue;
      if (c === 0x7d) return out;
      this.i--;
      this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): JsonValue {
    this.i++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 0x2c) continue;
      if (c === 0x5d) return out;
      this.i--;
      this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const s = this.s;
    const start = ++this.i;
    let i = start;
    // Fast path: no escapes.
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return s.slice(start, i);
      }
      if (c === 0x5c) break;
      if (Number.isNaN(c)) {
        this.i = i;
        this.fail("unterminated string");
      }
      if (c < 0x20) {
        this.i = i;
        this.fail("control character in string");
      }
      i++;
    }
    let out = s.slice(start, i);
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return out;
      }
      if (Number.isNaN(c)) {
        this.i = i;
        this.fail("unterminated string");
      }
      if (c < 0x20) {
        this.i = i;
        this.fail("control character in string");
      }
      if (c !== 0x5c) {
        out += s[i];
        i++;
        continue;
      }
      const e = s[i + 1];
      switch (e) {
        case '"':
          out += '"';
          break;
        case "\\":
          out += "\\";
          break;
        case "/":
          out += "/";
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          const hex = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.i = i;
            this.fail("bad \\u escape");
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          continue;
        }
        default:
          this.i = i;
          this.fail("bad escape");
      }
      i += 2;
    }
  }

  private number(): number | bigint {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    const intStart = i;
    if (s.charCodeAt(i) === 0x30) i++;
    else {
      const c = s.charCodeAt(i);
      if (!(c >= 0x31 && c <= 0x39)) {
        this.i = i;
        this.fail("expected a digit");
      }
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const intEnd = i;
    let integral = true;
    if (s.charCodeAt(i) === 0x2e) {
      integral = false;
      i++;
      if (!isDigit(s.charCodeAt(i))) {
        this.i = i;
        this.fail("expected a digit after '.'");
      }
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      integral = false;
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) {
        this.i = i;
        this.fail("expected a digit in the exponent");
      }
      while (isDigit(s.charCodeAt(i))) i++;
    }
    this.i = i;
    const text = s.slice(start, i);
    if (integral && intEnd - intStart > 15) {
      const big = BigInt(text);
      if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER)) return big;
      return Number(big);
    }
    return Number(text);
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * JSON text of a value; `bigint`s are written as integer literals (JSON.stringify throws on
 * them). Object keys keep their insertion order; `undefined` members are omitted, as in
 * JSON.stringify.
 */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
    case "boolean":
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          const v = value[i];
          out += v === undefined || typeof v === "function" ? "null" : stringifyJson(v);
        }
        return out + "]";
      }
      if (ArrayBuffer.isView(value)) return stringifyJson(Array.from(value as unknown as ArrayLike<number>));
      let out = "{";
      let first = true;
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined || typeof v === "function") continue;
        if (!first) out += ",";
        first = false;
        out += JSON.stringify(k) + ":" + stringifyJson(v);
      }
      return out + "}";
    }
    default:
      return "null";
  }
}
