/**
 * The proof body's base64 (src/counterparty/body.ts): in Node it is Buffer's native codec, in a
 * browser `btoa`/`atob` over byte strings; both give the same text and bytes for every length
 * (the browser's path is written out here as the reference), and the decoder refuses what is not
 * base64 before decoding. The checkpoint notes' decoder (`bytesOfBase64`), whose Node path checks
 * by the round trip alone, gives what the pattern-and-atob path gives on texts with stray, URL,
 * space, padding and non-ASCII characters anywhere.
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

/** The pattern-and-atob path of `bytesOfBase64`: the standard alphabet, padded, that re-encodes to itself. */
function referenceBytesOfBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  let bin: string;
  try {
    bin = atob(text);
  } catch {
    return undefined;
  }
  const out = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return reference(out) === text ? out : undefined;
}

test("bytesOfBase64 (the round trip as the check) agrees with the pattern-and-atob path on altered texts", () => {
  let x = 4242;
  const rnd = (n: number) => (x = (x * 1103515245 + 12345) >>> 0) % n;
  const stray = ["-", "_", " ", "\n", "\t", "=", "==", "!", ".", "é", "\u0000", "A", "+", "/", "", "AA", "\u2014"];
  let refused = 0;
  for (let t = 0; t < 3000; t++) {
    const b = new Uint8Array(rnd(40));
    for (let i = 0; i < b.length; i++) b[i] = rnd(256);
    let text = base64Of(b);
    for (let k = rnd(3); k >= 0; k--) {
      const at = rnd(text.length + 1);
      const s = stray[rnd(stray.length)]!;
      text = rnd(2) === 0 ? text.slice(0, at) + s + text.slice(at + s.length) : text.slice(0, at) + s + text.slice(at);
    }
    const want = referenceBytesOfBase64(text);
    assert.deepEqual(bytesOfBase64(text), want, JSON.stringify(text));
    if (want === undefined) refused++;
  }
  assert.ok(refused > 1000, `${refused} refused`);
});
