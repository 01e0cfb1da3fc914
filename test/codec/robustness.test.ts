import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { DecodeError, encodeProof, MAGIC } from "../../src/codec/index.js";
import { assertDecodeError, decodeOrError, feOffsets, resultArb, resultOf, setU32 } from "./fixtures.js";

const SHAPE = [2, 0, 1];
const base = encodeProof(resultOf(SHAPE, { opKindTag: 2 }));

test("every prefix of a small valid message throws only DecodeError, as is and with the length patched", () => {
  assert.equal(base.length, 170 + 198 + 36 + 117);
  for (let n = 0; n < base.length; n++) {
    const raw = base.slice(0, n);
    const r = decodeOrError(raw);
    assert.ok(r instanceof DecodeError);
    assert.equal(r.code, n < 17 ? "HeaderTooShort" : "DeclaredLengthMismatch");
    if (n >= 17) {
      const patched = base.slice(0, n);
      setU32(patched, 13, n);
      const e = decodeOrError(patched);
      assert.ok(e instanceof DecodeError, `prefix ${n} decoded`);
      assert.ok(["Truncated", "OversizedCount"].includes(e.code), `prefix ${n}: ${e.code}`);
    }
  }
});

test("random garbage throws only DecodeError", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      const r = decodeOrError(bytes);
      assert.ok(r instanceof DecodeError);
    }),
    { numRuns: 300 },
  );
});

test("garbage behind a valid header throws only DecodeError; a successful decode re-encodes to the same bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 700 }), fc.boolean(), (tail, fixIdentity) => {
      const b = new Uint8Array(17 + tail.length);
      b.set(base.subarray(0, 17));
      b.set(tail, 17);
      setU32(b, 13, b.length);
      if (fixIdentity && b.length >= 29) b.set(base.subarray(17, 29), 17);
      const r = decodeOrError(b);
      if (!(r instanceof DecodeError)) assert.deepStrictEqual(encodeProof(r), b);
    }),
    { numRuns: 300 },
  );
});

test("random byte changes to a valid message: DecodeError or a decode that re-encodes to the changed bytes", () => {
  fc.assert(
    fc.property(
      resultArb,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
      (x, changes) => {
        const b = encodeProof(x);
        for (const [pos, mask] of changes) b[pos % b.length]! ^= mask;
        const r = decodeOrError(b);
        if (!(r instanceof DecodeError)) assert.deepStrictEqual(encodeProof(r), b);
      },
    ),
    { numRuns: 300 },
  );
});

test("flipping any header/identity byte gives the error of the field it hits (or a different valid identity)", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 28 }), fc.integer({ min: 1, max: 255 }), (pos, mask) => {
      const b = base.slice();
      b[pos]! ^= mask;
      const r = decodeOrError(b);
      const expected =
        pos < 8
          ? "BadMagic"
          : pos < 10
            ? "UnsupportedProofEncodingVersion"
            : pos < 12
              ? "UnsupportedProtocolVersion"
              : pos === 12
                ? "UnsupportedProofKind"
                : pos < 17
                  ? "DeclaredLengthMismatch"
                  : pos === 17
                    ? b[17]! > 2
                      ? "UnknownOpKindTag"
                      : "OpKindMismatch"
                    : pos < 22
                      ? "ok"
                      : pos < 24
                        ? "UnsupportedCircuitVersion"
                        : pos < 26
                          ? "UnsupportedLeafEncodingVersion"
                          : pos < 28
                            ? "ok"
                            : "UnsupportedLayerStrategy";
      if (expected === "ok") {
        assert.ok(!(r instanceof DecodeError), `byte ${pos} ^ ${mask}: ${r instanceof DecodeError ? r.code : ""}`);
        assert.deepStrictEqual(encodeProof(r), b);
      } else {
        assert.ok(r instanceof DecodeError && r.code === expected, `byte ${pos} ^ ${mask}: expected ${expected}`);
      }
    }),
    { numRuns: 300 },
  );
  assert.equal(
    base.subarray(0, 8).every((v, i) => v === MAGIC[i]),
    true,
  );
});

test("a non-canonical value at any fe offset reports that offset", () => {
  const offsets = feOffsets(SHAPE);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: offsets.length - 1 }), fc.integer({ min: P, max: 0xffffffff }), (i, v) => {
      const b = base.slice();
      setU32(b, offsets[i]!, v);
      assertDecodeError(b, "NonCanonicalFieldElement", { offset: offsets[i], value: v });
    }),
    { numRuns: 300 },
  );
});
