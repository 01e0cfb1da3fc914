/**
 * Canonical little-endian u32 encoding of field elements (compat-v1 §14: "fe").
 * Decoding rejects any word ≥ p; nothing is reduced.
 */
import { FieldError } from "./errors.js";
import { P, element } from "./koalabear.js";

/** Encodes canonical elements as 4-byte little-endian words. @throws FieldError on a non-canonical value. */
export function encodeElements(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint32(4 * i, element(values[i], `element[${i}]`), true);
  return out;
}

/**
 * Decodes 4-byte little-endian words into canonical elements.
 * @throws FieldError `BAD_LENGTH` if the length is not a multiple of 4; `NON_CANONICAL` (with the byte offset) for a word ≥ p.
 */
export function decodeElements(bytes: Uint8Array): Uint32Array {
  if (bytes.length % 4 !== 0)
    throw new FieldError("BAD_LENGTH", `field bytes must be a multiple of 4 long, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) {
    const v = view.getUint32(4 * i, true);
    if (v >= P)
      throw new FieldError("NON_CANONICAL", `word at byte offset ${4 * i} is ${v}, not canonical (< p = ${P})`, {
        offset: 4 * i,
        value: v,
      });
    out[i] = v;
  }
  return out;
}
