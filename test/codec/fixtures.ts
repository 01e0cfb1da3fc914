/**
 * Builders and fast-check arbitraries for inner-proof-v1 codec tests.
 */
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import type { LayerProof, GkrProof } from "../../src/gkr/proof.js";
import type { EncodedResult } from "../../src/codec/index.js";
import { DecodeError, decodeProof } from "../../src/codec/index.js";
import assert from "node:assert/strict";

/** Deterministic canonical value derived from a seed (never ≥ p). */
export function fe(seed: number): number {
  return (Math.imul(seed + 1, 0x9e3779b1) >>> 0) % P;
}

export function digestOf(seed: number): Uint32Array {
  const d = new Uint32Array(8);
  for (let i = 0; i < 8; i++) d[i] = fe(seed * 8 + i);
  return d;
}

export function extOf(seed: number): Ext {
  return [fe(4 * seed), fe(4 * seed + 1), fe(4 * seed + 2), fe(4 * seed + 3)];
}

/** A proof whose layer ℓ has roundCounts[ℓ] rounds, filled with deterministic canonical values. */
export function proofOf(roundCounts: readonly number[], seed = 1): GkrProof {
  let s = seed * 100_003;
  const layers: LayerProof[] = roundCounts.map((m) => {
    const rounds: Ext[][] = [];
    for (let r = 0; r < m; r++) {
      const poly: Ext[] = [];
      for (let c = 0; c < 5; c++) poly.push(extOf(s++));
      rounds.push(poly);
    }
    return { rounds, evalX: extOf(s++), evalY: extOf(s++) };
  });
  return { layers };
}

/** A valid result of the given shape; op kind, asset id and leaf bound are fixed but non-trivial. */
export function resultOf(
  roundCounts: readonly number[],
  opts: { opKindTag?: number; assetId?: bigint; seed?: number } = {},
): EncodedResult {
  const seed = opts.seed ?? 1;
  const opKindTag = opts.opKindTag ?? 1;
  return {
    identity: {
      opKindTag,
      depth: 24,
      circuitVersion: 1,
      leafEncodingVersion: 1,
      leafMaxFields: 31,
      strategyId: 0,
      commitment: digestOf(seed * 7 + 1),
    },
    publicInputs: {
      oldRoot: digestOf(seed * 7 + 2),
      newRoot: digestOf(seed * 7 + 3),
      opKindTag,
      assetId: opts.assetId ?? 0x0123_4567_89ab_cdefn,
      valueDigest: digestOf(seed * 7 + 4),
    },
    proof: proofOf(roundCounts, seed),
  };
}

/** Byte offsets of every fe of a message whose layers have these round counts, in wire order. */
export function feOffsets(roundCounts: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < 24; i++) out.push(29 + 4 * i);
  for (let i = 0; i < 8; i++) out.push(134 + 4 * i);
  let pos = 170;
  for (const m of roundCounts) {
    pos += 4;
    for (let r = 0; r < m; r++) {
      pos += 1;
      for (let k = 0; k < 20; k++, pos += 4) out.push(pos);
    }
    for (let k = 0; k < 8; k++, pos += 4) out.push(pos);
  }
  return out;
}

export function setU16(b: Uint8Array, off: number, v: number): void {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setUint16(off, v, true);
}

export function setU32(b: Uint8Array, off: number, v: number): void {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setUint32(off, v, true);
}

export function getU32(b: Uint8Array, off: number): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(off, true);
}

/** Asserts that decoding throws a DecodeError with this code and exactly these details (a subset check on listed keys). */
export function assertDecodeError(bytes: Uint8Array, code: string, details: Record<string, unknown> = {}): DecodeError {
  let caught: unknown;
  try {
    decodeProof(bytes);
  } catch (e) {
    caught = e;
  }
  assert.ok(
    caught instanceof DecodeError,
    `expected DecodeError ${code}, got ${caught === undefined ? "success" : String(caught)}`,
  );
  assert.equal(caught.code, code, caught.message);
  for (const [k, v] of Object.entries(details))
    assert.deepEqual(caught.details[k], v, `${code}.${k}: ${caught.message}`);
  return caught;
}

/** Decodes, or returns the DecodeError; rethrows anything else (which fails the property). */
export function decodeOrError(bytes: Uint8Array): EncodedResult | DecodeError {
  try {
    return decodeProof(bytes);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
}

export const feArb: fc.Arbitrary<number> = fc.oneof(fc.integer({ min: 0, max: P - 1 }), fc.constantFrom(0, 1, P - 1));
export const extArb: fc.Arbitrary<Ext> = fc.tuple(feArb, feArb, feArb, feArb);
export const digestArb: fc.Arbitrary<Uint32Array> = fc
  .array(feArb, { minLength: 8, maxLength: 8 })
  .map((a) => Uint32Array.from(a));
const roundArb = fc.array(fc.oneof(extArb, fc.constant<Ext>([0, 0, 0, 0])), { minLength: 5, maxLength: 5 });
const layerArb: fc.Arbitrary<LayerProof> = fc
  .record({ rounds: fc.array(roundArb, { maxLength: 6 }), evalX: extArb, evalY: extArb })
  .map(({ rounds, evalX, evalY }) => ({ rounds, evalX, evalY }));

/** Random valid results: 0..4 layers of 0..6 rounds, any op kind, any u64 asset id, u32 depth, u16 leaf bound. */
export const resultArb: fc.Arbitrary<EncodedResult> = fc
  .record({
    opKindTag: fc.integer({ min: 0, max: 2 }),
    depth: fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0, 24, 0xffffffff)),
    leafMaxFields: fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(10, 31, 0xffff)),
    commitment: digestArb,
    oldRoot: digestArb,
    newRoot: digestArb,
    assetId: fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.constantFrom(0n, (1n << 32n) - 1n, 1n << 32n, (1n << 64n) - 1n),
    ),
    valueDigest: digestArb,
    layers: fc.array(layerArb, { maxLength: 4 }),
  })
  .map((r) => ({
    identity: {
      opKindTag: r.opKindTag,
      depth: r.depth,
      circuitVersion: 1,
      leafEncodingVersion: 1,
      leafMaxFields: r.leafMaxFields,
      strategyId: 0,
      commitment: r.commitment,
    },
    publicInputs: {
      oldRoot: r.oldRoot,
      newRoot: r.newRoot,
      opKindTag: r.opKindTag,
      assetId: r.assetId,
      valueDigest: r.valueDigest,
    },
    proof: { layers: r.layers },
  }));
