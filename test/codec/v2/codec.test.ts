import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../../src/field/koalabear.js";
import type { GkrProof } from "../../../src/gkr/proof.js";
import { decodeProofV2 } from "../../../src/codec/v2/decode.js";
import { encodeProofV2, encodedSizeV2 } from "../../../src/codec/v2/encode.js";
import { V2DecodeError, V2EncodeError } from "../../../src/codec/v2/errors.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { OpKind } from "../../../src/statement/types.js";
import { encodeV2, prepareV2, proveV2 } from "../../../src/sync/v2/index.js";

const prepared = prepareV2(OpKind.NonMembership, { depth: 3 });
const request = goldenFixture(OpKind.NonMembership, 3, 5n);
const result = proveV2(prepared, request);
const BYTES = encodeV2(prepared, result);

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof V2DecodeError || e instanceof V2EncodeError) return e.code;
    throw e;
  }
  return "accepted";
}

function patched(at: number, values: number[], setLength = true): Uint8Array {
  const b = BYTES.slice();
  b.set(values, at);
  if (setLength) new DataView(b.buffer).setUint32(13, b.length, true);
  return b;
}

function u32(x: number): number[] {
  return [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff];
}

test("decode ∘ encode is the identity on bytes and on results; sizes follow 170 + Σ (36 + 128·s)", () => {
  const d = decodeProofV2(BYTES);
  assert.deepEqual(d.proof, result.proof);
  assert.deepEqual(d.publicInputs, result.publicInputs);
  assert.deepEqual(encodeProofV2(d.identity, d.publicInputs, d.proof), BYTES);
  let size = 170;
  for (const l of result.proof.layers) size += 36 + 128 * (l.rounds.length / 2);
  assert.equal(BYTES.length, size);
  assert.equal(encodedSizeV2(result.proof), size);
  // a decoder accepts any Uint8Array view
  const padded = new Uint8Array(BYTES.length + 5);
  padded.set(BYTES, 3);
  assert.deepEqual(decodeProofV2(padded.subarray(3, 3 + BYTES.length)).proof, result.proof);
});

test("every decoder rule fires with its code, in the documented order", () => {
  const firstRoundCount = 170;
  const cases: [string, Uint8Array | unknown][] = [
    ["NotBytes", [1, 2, 3]],
    ["HeaderTooShort", BYTES.subarray(0, 16)],
    ["BadMagic", patched(0, [0x54], false)],
    ["UnsupportedProofEncodingVersion", patched(8, [1, 0])],
    ["UnsupportedProtocolVersion", patched(10, [1, 0])],
    ["UnsupportedProofKind", patched(12, [1])],
    ["DeclaredLengthMismatch", patched(13, u32(5), false)],
    ["UnknownOpKindTag", patched(17, [3])],
    ["UnsupportedCircuitVersion", patched(22, [1, 0])],
    ["UnsupportedLeafEncodingVersion", patched(24, [2, 0])],
    ["UnsupportedLayout", patched(28, [1])],
    ["NonCanonicalFieldElement", patched(29, u32(P))],
    ["NonCanonicalFieldElement", patched(93 + 28, u32(0xffffffff))],
    ["UnknownOpKindTag", patched(125, [7])],
    ["OpKindMismatch", patched(125, [0])],
    ["NonCanonicalFieldElement", patched(134, u32(P + 1))],
    ["OversizedCount", patched(166, u32(1_000_000))],
    ["BadRoundCount", patched(firstRoundCount, u32(3))],
    ["OversizedCount", patched(firstRoundCount, u32(0x7ffffffe))],
    ["NonCanonicalFieldElement", patched(firstRoundCount + 4, u32(P))],
    [
      "TrailingBytes",
      (() => {
        const b = new Uint8Array(BYTES.length + 1);
        b.set(BYTES);
        new DataView(b.buffer).setUint32(13, b.length, true);
        return b;
      })(),
    ],
    [
      "Truncated",
      (() => {
        const b = BYTES.slice(0, 100);
        new DataView(b.buffer).setUint32(13, 100, true);
        return b;
      })(),
    ],
  ];
  for (const [want, bytes] of cases)
    assert.equal(
      code(() => decodeProofV2(bytes as Uint8Array)),
      want,
      want,
    );
  const t = BYTES.slice(0, 100);
  new DataView(t.buffer).setUint32(13, 100, true);
  try {
    decodeProofV2(t);
  } catch (e) {
    assert.equal((e as V2DecodeError).details.offset, 93 + 4);
  }
  const o = patched(166, u32(1_000_000));
  try {
    decodeProofV2(o);
  } catch (e) {
    assert.equal((e as V2DecodeError).details.offset, 166);
  }
});

test("fuzzed decoding: mutated, truncated, extended and random buffers decode or fail with a V2DecodeError, never anything else; what decodes re-encodes to the same bytes", () => {
  const mutation = fc.record({
    edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    cut: fc.option(fc.nat()),
    fixLength: fc.boolean(),
  });
  let decoded = 0,
    failed = 0;
  fc.assert(
    fc.property(mutation, ({ edits, cut, fixLength }) => {
      let b = BYTES.slice();
      for (const [at, v] of edits) b[at % b.length] = v;
      if (cut !== null) b = b.slice(0, cut % (b.length + 1));
      if (fixLength && b.length >= 17) new DataView(b.buffer, b.byteOffset).setUint32(13, b.length, true);
      try {
        const d = decodeProofV2(b);
        decoded++;
        assert.deepEqual(encodeProofV2(d.identity, d.publicInputs, d.proof), b);
      } catch (e) {
        assert.ok(e instanceof V2DecodeError, `unexpected ${String(e)}`);
        failed++;
      }
    }),
    { numRuns: 400 },
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (b) => {
      try {
        decodeProofV2(b);
      } catch (e) {
        assert.ok(e instanceof V2DecodeError);
      }
    }),
    { numRuns: 300 },
  );
  assert.ok(decoded > 0 && failed > 0, `${decoded} decoded, ${failed} refused`);
});

test("the encoder refuses what the format cannot carry", () => {
  const d = decodeProofV2(BYTES);
  const withLayer = (f: (l: GkrProof["layers"][number]) => GkrProof["layers"][number]): GkrProof => ({
    layers: d.proof.layers.map((l, i) => (i === 1 ? f(l) : l)),
  });
  assert.equal(
    code(() =>
      encodeProofV2(
        d.identity,
        d.publicInputs,
        withLayer((l) => ({ ...l, rounds: l.rounds.slice(1) })),
      ),
    ),
    "BadRoundCount",
  );
  assert.equal(
    code(() =>
      encodeProofV2(
        d.identity,
        d.publicInputs,
        withLayer((l) => ({ ...l, rounds: l.rounds.map((r, k) => (k === 0 ? r.slice(0, 4) : r)) })),
      ),
    ),
    "BadRoundPolyArity",
  );
  assert.equal(
    code(() =>
      encodeProofV2(
        d.identity,
        d.publicInputs,
        withLayer((l) => ({
          ...l,
          rounds: l.rounds.map((r, k) => (k === l.rounds.length - 1 ? [r[0]!, r[1]!, r[2]!, [1, 0, 0, 0], r[4]!] : r)),
        })),
      ),
    ),
    "NonZeroHighCoefficient",
  );
  assert.equal(
    code(() =>
      encodeProofV2(
        d.identity,
        d.publicInputs,
        withLayer((l) => ({ ...l, evalX: [P, 0, 0, 0] })),
      ),
    ),
    "NonCanonicalFieldElement",
  );
  assert.equal(
    code(() => encodeProofV2({ ...d.identity, opKindTag: 0 }, d.publicInputs, d.proof)),
    "BadIdentity",
  );
  assert.equal(
    code(() => encodeProofV2(d.identity, { ...d.publicInputs, assetId: 1n << 64n }, d.proof)),
    "BadIdentity",
  );
  for (const bad of [{ circuitVersion: 65536 }, { leafEncodingVersion: -1 }, { layoutId: 256 }, { layoutId: 1.5 }])
    assert.equal(
      code(() => encodeProofV2({ ...d.identity, ...bad }, d.publicInputs, d.proof)),
      "BadIdentity",
      JSON.stringify(bad),
    );
});

test("aggregate messages: decode ∘ encode is the identity; fuzzed bytes decode or fail with a V2DecodeError; the kinds do not mix", async () => {
  const { decodeAggregateV2 } = await import("../../../src/codec/v2/decode.js");
  const { encodeAggregateV2 } = await import("../../../src/codec/v2/encode.js");
  const { proveAggregate } = await import("../../../src/sync/v2/index.js");
  const reqs = [5n, 6n, 7n].map((k) => goldenFixture(OpKind.NonMembership, 3, k));
  const agg = proveAggregate(prepared, reqs);
  const d = decodeAggregateV2(agg);
  assert.equal(d.statementChecks.length, 3);
  assert.deepEqual(encodeAggregateV2(d.identity, d.statementChecks, d.proof), agg);
  assert.equal(encodedSizeV2(d.proof, 3), agg.length);
  assert.equal(
    code(() => decodeAggregateV2(BYTES)),
    "UnsupportedProofKind",
  );
  assert.equal(
    code(() => decodeProofV2(agg)),
    "UnsupportedProofKind",
  );
  const zero = agg.slice();
  zero.set([0, 0, 0, 0], 61);
  assert.equal(
    code(() => decodeAggregateV2(zero)),
    "BadOperationCount",
  );
  const huge = agg.slice();
  huge.set([0xff, 0xff, 0xff, 0x7f], 61);
  assert.equal(
    code(() => decodeAggregateV2(huge)),
    "OversizedCount",
  );
  assert.equal(
    code(() => encodeAggregateV2(d.identity, [], d.proof)),
    "BadOperationCount",
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
      fc.option(fc.nat()),
      (edits, cut) => {
        let b = agg.slice();
        for (const [at, v] of edits) b[at % b.length] = v;
        if (cut !== null) b = b.slice(0, cut % (b.length + 1));
        if (b.length >= 17) new DataView(b.buffer).setUint32(13, b.length, true);
        try {
          const x = decodeAggregateV2(b);
          assert.deepEqual(encodeAggregateV2(x.identity, x.statementChecks, x.proof), b);
        } catch (e) {
          assert.ok(e instanceof V2DecodeError, `unexpected ${String(e)}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});
