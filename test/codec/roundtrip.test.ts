import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { EncodedResult } from "../../src/codec/index.js";
import {
  decodeProof,
  encodeProof,
  encodedProofSize,
  expectedEncodedSize,
  identityEquals,
} from "../../src/codec/index.js";
import { digestOf, getU32, resultArb, resultOf } from "./fixtures.js";

/** Plain spec-table writer (compat-v1 §14.1), one byte at a time, independent of the encoder. */
function referenceEncode(x: EncodedResult): Uint8Array {
  const b: number[] = [];
  const u8 = (v: number) => b.push(v & 0xff);
  const u16 = (v: number) => {
    u8(v);
    u8(v >>> 8);
  };
  const u32 = (v: number) => {
    u16(v & 0xffff);
    u16(v >>> 16);
  };
  const fes = (vs: ArrayLike<number>) => Array.from(vs).forEach(u32);
  for (const ch of "SSGKRPRF") u8(ch.charCodeAt(0));
  u16(1);
  u16(1);
  u8(0);
  u32(0);
  const id = x.identity;
  u8(id.opKindTag);
  u32(id.depth);
  u16(id.circuitVersion);
  u16(id.leafEncodingVersion);
  u16(id.leafMaxFields);
  u8(id.strategyId);
  fes(id.commitment);
  const pi = x.publicInputs;
  fes(pi.oldRoot);
  fes(pi.newRoot);
  u8(pi.opKindTag);
  u32(Number(pi.assetId % (1n << 32n)));
  u32(Number(pi.assetId / (1n << 32n)));
  fes(pi.valueDigest);
  u32(x.proof.layers.length);
  for (const layer of x.proof.layers) {
    u32(layer.rounds.length);
    for (const poly of layer.rounds) {
      u8(poly.length);
      poly.forEach(fes);
    }
    fes(layer.evalX);
    fes(layer.evalY);
  }
  const out = Uint8Array.from(b);
  new DataView(out.buffer).setUint32(13, out.length, true);
  return out;
}

test("decode(encode(x)) = x and decode→encode is byte-identical, over random shapes and values", () => {
  fc.assert(
    fc.property(resultArb, (x) => {
      const bytes = encodeProof(x);
      const y = decodeProof(bytes);
      assert.deepStrictEqual(y, x);
      assert.deepStrictEqual(encodeProof(y), bytes);
    }),
    { numRuns: 200 },
  );
});

test("encoder output matches a plain byte-by-byte writer of the §14.1 table", () => {
  fc.assert(
    fc.property(resultArb, (x) => {
      assert.deepStrictEqual(encodeProof(x), referenceEncode(x));
    }),
    { numRuns: 100 },
  );
});

test("size: total length at offset 13 = buffer length = 170 + Σ(36 + 81·rounds)", () => {
  fc.assert(
    fc.property(resultArb, (x) => {
      const bytes = encodeProof(x);
      assert.equal(getU32(bytes, 13), bytes.length);
      assert.equal(bytes.length, encodedProofSize(x.proof));
      const rounds = x.proof.layers.map((l) => l.rounds.length);
      assert.equal(bytes.length, 170 + rounds.reduce((s, m) => s + 36 + 81 * m, 0));
    }),
    { numRuns: 50 },
  );
  // 2·s_in rounds per layer: 170 + Σ(36 + 162·s_in)
  const bits = [3, 0, 5, 1];
  const x = resultOf(bits.map((s) => 2 * s));
  assert.equal(encodeProof(x).length, expectedEncodedSize(bits));
  assert.equal(expectedEncodedSize(bits), 170 + 4 * 36 + 162 * 9);
  assert.equal(expectedEncodedSize([]), 170);
  // The golden d24 sizes (118 layers each) are of this form.
  for (const size of [176_948, 181_646, 186_992]) assert.equal((size - 170 - 118 * 36) % 162, 0);
});

test("fixed offsets: first coefficient-count byte at 174, asset_id as raw u32 halves, commitment at 29 (§18 d24 bytes)", () => {
  const x = resultOf([2, 0]);
  const commitment = Uint32Array.from([
    438623915, 1302919243, 1221834511, 1542247335, 222756456, 991215267, 847238870, 120576555,
  ]);
  const y: EncodedResult = {
    ...x,
    identity: { ...x.identity, commitment },
    publicInputs: { ...x.publicInputs, assetId: 0xfedc_ba98_7654_3210n },
  };
  const bytes = encodeProof(y);
  assert.equal(
    Buffer.from(bytes.subarray(29, 61)).toString("hex"),
    "abde241a4bf8a84d0fb7d348a7d3ec5b68fe460da3be143bd6d67f322bda2f07",
  );
  assert.equal(Buffer.from(bytes.subarray(0, 8)).toString("latin1"), "SSGKRPRF");
  assert.equal(getU32(bytes, 126), 0x7654_3210);
  assert.equal(getU32(bytes, 130), 0xfedc_ba98);
  assert.equal(getU32(bytes, 166), 2);
  assert.equal(getU32(bytes, 170), 2);
  assert.equal(bytes[174], 5);
  assert.equal(bytes[17], bytes[125]);
  assert.equal(decodeProof(bytes).publicInputs.assetId, 0xfedc_ba98_7654_3210n);
});

test("trailing zero coefficients are kept on the wire", () => {
  const x = resultOf([1]);
  const poly = [
    x.proof.layers[0]!.rounds[0]![0]!,
    x.proof.layers[0]!.rounds[0]![1]!,
    x.proof.layers[0]!.rounds[0]![2]!,
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ] as const;
  const y: EncodedResult = { ...x, proof: { layers: [{ ...x.proof.layers[0]!, rounds: [poly] }] } };
  const bytes = encodeProof(y);
  assert.equal(bytes.length, 170 + 36 + 81);
  assert.equal(bytes[174], 5);
  assert.deepStrictEqual(decodeProof(bytes).proof.layers[0]!.rounds[0], poly);
});

test("decodes from a Uint8Array view with a non-zero byte offset and does not mutate it", () => {
  const bytes = encodeProof(resultOf([2, 3]));
  const big = new Uint8Array(bytes.length + 11);
  big.set(bytes, 7);
  const view = big.subarray(7, 7 + bytes.length);
  const copy = big.slice();
  assert.deepStrictEqual(encodeProof(decodeProof(view)), bytes);
  assert.deepStrictEqual(decodeProof(Buffer.from(bytes)), decodeProof(bytes));
  assert.deepStrictEqual(big, copy);
});

test("identityEquals compares all seven fields", () => {
  const a = resultOf([]).identity;
  assert.equal(identityEquals(a, { ...a, commitment: a.commitment.slice() }), true);
  const variants = [
    { ...a, opKindTag: 2 },
    { ...a, depth: 25 },
    { ...a, circuitVersion: 2 },
    { ...a, leafEncodingVersion: 2 },
    { ...a, leafMaxFields: 32 },
    { ...a, strategyId: 1 },
    { ...a, commitment: digestOf(99) },
    { ...a, commitment: Uint32Array.from([...a.commitment.slice(0, 7), (a.commitment[7]! + 1) % 2130706433]) },
    { ...a, commitment: a.commitment.slice(0, 7) },
  ];
  for (const v of variants) {
    assert.equal(identityEquals(a, v), false);
    assert.equal(identityEquals(v, a), false);
  }
  const decoded = decodeProof(encodeProof(resultOf([1], { seed: 1 }))).identity;
  assert.equal(identityEquals(decoded, resultOf([], { seed: 1 }).identity), true);
});
