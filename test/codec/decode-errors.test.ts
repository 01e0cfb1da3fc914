import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { DecodeError, decodeProof, encodeProof } from "../../src/codec/index.js";
import { SsgkrError } from "../../src/errors.js";
import { assertDecodeError, feOffsets, resultOf, setU16, setU32 } from "./fixtures.js";

// Shape [2, 1]: layer 0 count at 170, round bytes at 174 and 255, evals at 336/352; layer 1 count at 368,
// round byte at 372, evals at 453/469; 485 bytes in all.
const SHAPE = [2, 1];
const valid = (): Uint8Array => encodeProof(resultOf(SHAPE));

/** A copy of the first n bytes of a valid message with the declared length patched to n. */
function prefix(n: number): Uint8Array {
  const b = valid().slice(0, n);
  setU32(b, 13, n);
  return b;
}

test("the base message decodes and has the expected layout", () => {
  const b = valid();
  assert.equal(b.length, 485);
  assert.equal(b[174], 5);
  assert.equal(b[255], 5);
  assert.equal(b[372], 5);
  decodeProof(b);
});

test("DecodeError is an SsgkrError whose code is the spec's name", () => {
  const e = assertDecodeError(new Uint8Array(3), "HeaderTooShort", { have: 3 });
  assert.ok(e instanceof SsgkrError);
  assert.equal(e.name, "DecodeError");
  assert.match(e.message, /3 bytes/);
});

test("NotBytes for inputs that are not a Uint8Array", () => {
  for (const x of [null, undefined, "SSGKRPRF", [1, 2, 3], new ArrayBuffer(200), 42, {}]) {
    assert.throws(
      () => decodeProof(x as unknown as Uint8Array),
      (e: unknown) => e instanceof DecodeError && e.code === "NotBytes",
    );
  }
});

test("1. HeaderTooShort{have} for every length below 17", () => {
  const b = valid();
  for (let n = 0; n < 17; n++) assertDecodeError(b.slice(0, n), "HeaderTooShort", { have: n });
  assertDecodeError(prefix(17), "Truncated", { offset: 17 });
});

test("2. BadMagic for a change in any of bytes 0..8", () => {
  for (let i = 0; i < 8; i++) {
    const b = valid();
    b[i]! ^= 0x20;
    assertDecodeError(b, "BadMagic");
  }
});

test("3–5. UnsupportedProofEncodingVersion(v), UnsupportedProtocolVersion(v), UnsupportedProofKind(k)", () => {
  for (const v of [0, 2, 0x100, 0xffff]) {
    const b = valid();
    setU16(b, 8, v);
    assertDecodeError(b, "UnsupportedProofEncodingVersion", { version: v });
    const c = valid();
    setU16(c, 10, v);
    assertDecodeError(c, "UnsupportedProtocolVersion", { version: v });
  }
  for (const k of [1, 2, 255]) {
    const b = valid();
    b[12] = k;
    assertDecodeError(b, "UnsupportedProofKind", { kind: k });
  }
});

test("6. DeclaredLengthMismatch{declared, actual}", () => {
  for (const d of [0, 17, 484, 486, 0xffffffff]) {
    const b = valid();
    setU32(b, 13, d);
    assertDecodeError(b, "DeclaredLengthMismatch", { declared: d, actual: 485 });
  }
  // A prefix or an extension without patching the length also fails here.
  assertDecodeError(valid().slice(0, 400), "DeclaredLengthMismatch", { declared: 485, actual: 400 });
  const longer = new Uint8Array(486);
  longer.set(valid());
  assertDecodeError(longer, "DeclaredLengthMismatch", { declared: 485, actual: 486 });
});

test("7. UnknownOpKindTag(t) at offset 17", () => {
  for (const t of [3, 4, 0x80, 0xff]) {
    const b = valid();
    b[17] = t;
    assertDecodeError(b, "UnknownOpKindTag", { tag: t, offset: 17 });
  }
});

test("8. UnsupportedCircuitVersion, UnsupportedLeafEncodingVersion, UnsupportedLayerStrategy; depth and leaf_max_fields unchecked", () => {
  for (const v of [0, 2, 0xffff]) {
    const b = valid();
    setU16(b, 22, v);
    assertDecodeError(b, "UnsupportedCircuitVersion", { version: v });
    const c = valid();
    setU16(c, 24, v);
    assertDecodeError(c, "UnsupportedLeafEncodingVersion", { version: v });
  }
  for (const s of [1, 2, 0xff]) {
    const b = valid();
    b[28] = s;
    assertDecodeError(b, "UnsupportedLayerStrategy", { strategy: s });
  }
  const b = valid();
  setU32(b, 18, 0xffffffff);
  setU16(b, 26, 0);
  const d = decodeProof(b);
  assert.equal(d.identity.depth, 0xffffffff);
  assert.equal(d.identity.leafMaxFields, 0);
});

test("9/11/13. NonCanonicalFieldElement{offset} at every fe of the message", () => {
  const offsets = feOffsets(SHAPE);
  assert.equal(offsets.length, 24 + 8 + 3 * 20 + 2 * 8);
  for (const [i, off] of offsets.entries()) {
    const v = [P, P + 1, 0x80000000, 0xffffffff][i % 4]!;
    const b = valid();
    setU32(b, off, v);
    assertDecodeError(b, "NonCanonicalFieldElement", { offset: off, value: v });
    setU32(b, off, P - 1);
    decodeProof(b);
  }
});

test("10. UnknownOpKindTag(t) at offset 125, then OpKindMismatch{identity, statement}", () => {
  for (const t of [3, 0xff]) {
    const b = valid();
    b[125] = t;
    assertDecodeError(b, "UnknownOpKindTag", { tag: t, offset: 125 });
  }
  for (const t of [0, 2]) {
    const b = valid();
    b[125] = t;
    assertDecodeError(b, "OpKindMismatch", { identity: 1, statement: t });
  }
});

test("12. OversizedCount{offset 166}: n·36 > bytes after the count, with exact arithmetic", () => {
  // 485 − 170 = 315 bytes after the count: n ≤ 8 passes the check, n = 9 does not.
  for (const n of [9, 100, 0x10000000, 0x71c71c72, 0xffffffff]) {
    const b = valid();
    setU32(b, 166, n);
    assertDecodeError(b, "OversizedCount", { offset: 166, count: n, remaining: 315 });
  }
  const empty = encodeProof(resultOf([]));
  assert.equal(empty.length, 170);
  setU32(empty, 166, 1);
  assertDecodeError(empty, "OversizedCount", { offset: 166, remaining: 0 });
  // n = 8 passes the count check; the third layer's round count starts at the end of the buffer.
  const b = valid();
  setU32(b, 166, 8);
  assertDecodeError(b, "Truncated", { offset: 485 });
});

test("13. OversizedCount{offset o}: m·81 + 32 > bytes after the round count", () => {
  // Layer 0: 485 − 174 = 311 bytes after its count: m = 3 fits (275), m = 4 (356) does not.
  for (const m of [4, 0xffffffff]) {
    const b = valid();
    setU32(b, 170, m);
    assertDecodeError(b, "OversizedCount", { offset: 170, count: m, remaining: 311 });
  }
  // Layer 1: 485 − 372 = 113 bytes after its count: m = 1 is exactly 113, m = 2 is too many.
  const b = valid();
  setU32(b, 368, 2);
  assertDecodeError(b, "OversizedCount", { offset: 368, count: 2, remaining: 113 });
  // A layer of 0 rounds still needs 32 bytes after its count (eval_x, eval_y).
  const c = encodeProof(resultOf([1, 0]));
  assert.equal(c.length, 170 + 117 + 36);
  const short = c.slice(0, c.length - 1);
  setU32(short, 13, short.length);
  assertDecodeError(short, "OversizedCount", { offset: 287, count: 0, remaining: 31 });
});

test("13. BadRoundPolyArity{layer, round, got}", () => {
  for (const got of [0, 4, 6, 255]) {
    for (const [at, layer, round] of [
      [174, 0, 0],
      [255, 0, 1],
      [372, 1, 0],
    ] as const) {
      const b = valid();
      b[at] = got;
      assertDecodeError(b, "BadRoundPolyArity", { layer, round, got });
    }
  }
});

test("14. TrailingBytes{extra}", () => {
  for (const extra of [1, 2, 35, 100]) {
    const src = valid();
    const b = new Uint8Array(src.length + extra);
    b.set(src);
    setU32(b, 13, b.length);
    assertDecodeError(b, "TrailingBytes", { extra });
  }
  // Fewer layers than present: the rest is trailing.
  const b = valid();
  setU32(b, 166, 1);
  assertDecodeError(b, "TrailingBytes", { extra: 485 - 368 });
});

test("Truncated{offset where the field starts}: the spec example and body truncation", () => {
  // A 100-byte buffer whose header declares 100: the second new_root element (at 97) does not fit.
  assertDecodeError(prefix(100), "Truncated", { offset: 97, need: 4, have: 100 });
  // Two layers announced, the first one has 1 round (117 bytes), then 1 byte left for the next round count.
  const one = encodeProof(resultOf([1]));
  const b = new Uint8Array(one.length + 1);
  b.set(one);
  setU32(b, 13, b.length);
  setU32(b, 166, 2);
  assert.equal(b.length - 170, 118);
  assertDecodeError(b, "Truncated", { offset: 287, need: 4, have: 288 });
});

test("Truncated offsets for every prefix of the fixed region (declared length patched)", () => {
  // Fields of the fixed region in wire order: [offset, size].
  const fields: Array<[number, number]> = [
    [17, 1],
    [18, 4],
    [22, 2],
    [24, 2],
    [26, 2],
    [28, 1],
  ];
  for (let i = 0; i < 24; i++) fields.push([29 + 4 * i, 4]);
  fields.push([125, 1], [126, 4], [130, 4]);
  for (let i = 0; i < 8; i++) fields.push([134 + 4 * i, 4]);
  fields.push([166, 4], [170, 4]);
  for (let n = 17; n < 174; n++) {
    const [offset] = fields.find(([o, s]) => o + s > n)!;
    if (n >= 170) assertDecodeError(prefix(n), "OversizedCount", { offset: 166 });
    else assertDecodeError(prefix(n), "Truncated", { offset });
  }
});
