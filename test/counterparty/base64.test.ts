/**
 * The proof body's base64 (src/counterparty/body.ts): in Node it is Buffer's native codec, in a
 * browser `btoa`/`atob` over byte strings; both give the same text and bytes for every length
 * (the browser's path is written out here as the reference), and the decoder refuses what is not
 * base64 before decoding.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { base64Bytes, bytesBase64 } from "../../src/counterparty/body.js";
import { base64Of, bytesOfBase64 } from "../../src/registry/checkpoint/note.js";

/** The browser's path. */
function reference(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

test("bytesBase64 and base64Bytes agree with the btoa/atob path for every length 0..300 and a 100 KB proof", () => {
  let x = 12345;
  for (const n of [...Array.from({ length: 301 }, (_, i) => i), 100_003]) {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    const text = bytesBase64(b);
    assert.equal(text, reference(b), `length ${n}`);
    assert.deepEqual(base64Bytes(text), b, `length ${n}`);
    // a view into a larger buffer encodes only its bytes
    const wide = new Uint8Array(n + 8);
    wide.set(b, 4);
    assert.equal(bytesBase64(wide.subarray(4, 4 + n)), text);
  }
  for (const bad of ["abc", "ab=c", "a!bc", 7, "====", "ab==ab=="])
    assert.throws(() => base64Bytes(bad), { code: "BAD_CLAIM" }, String(bad));
});

test("checkpoint notes' base64 (bytesOfBase64, base64Of) agrees with the atob/btoa path and refuses non-canonical text", () => {
  let x = 777;
  for (const n of [...Array.from({ length: 200 }, (_, i) => i), 65_537]) {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    const text = base64Of(b);
    assert.equal(text, reference(b), `length ${n}`);
    const back = bytesOfBase64(text);
    assert.deepEqual(back, b, `length ${n}`);
    // the atob path of a browser gives the same bytes
    assert.deepEqual(
      Uint8Array.from(atob(text), (c) => c.charCodeAt(0)),
      b,
    );
  }
  // padding bits that are not zero, missing padding, stray characters: not the one encoding of any bytes
  for (const bad of ["AB==", "AAB=", "abc", "ab=c", "a!bc", "====", "ab==ab==", "QQ"])
    assert.equal(bytesOfBase64(bad), undefined, bad);
});
