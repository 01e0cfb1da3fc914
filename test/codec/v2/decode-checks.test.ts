/**
 * inner-proof-v2 decoding against the v1 decoder and against itself: the two decoders refuse each
 * other's bytes at the version field (fixed and fuzzed), the aggregate decoder's rules fire with
 * their codes and offsets, and fuzzed aggregate bytes never raise anything but a V2DecodeError.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeProof } from "../../../src/codec/decode.js";
import { DecodeError } from "../../../src/codec/errors.js";
import { decodeAggregateV2, decodeProofV2 } from "../../../src/codec/v2/decode.js";
import { V2DecodeError } from "../../../src/codec/v2/errors.js";
import { P } from "../../../src/field/koalabear.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { encodeSyncResult } from "../../../src/sync/encoded.js";
import { prepare } from "../../../src/sync/prepared.js";
import { provePrepared } from "../../../src/sync/prove.js";
import { OpKind } from "../../../src/statement/types.js";
import { encodeV2, prepareV2, proveAggregate, proveV2 } from "../../../src/sync/v2/index.js";

const DEPTH = 2;
const v2 = prepareV2(OpKind.Membership, { depth: DEPTH });
const request = goldenFixture(OpKind.Membership, DEPTH, 1n);
const V2_BYTES = encodeV2(v2, proveV2(v2, request));
const AGG = proveAggregate(
  v2,
  [1n, 2n, 3n].map((k) => goldenFixture(OpKind.Membership, DEPTH, k)),
);
const v1 = prepare(OpKind.Membership, { depth: DEPTH });
const V1_BYTES = encodeSyncResult(v1, provePrepared(v1, request));

function outcome(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof V2DecodeError) return `v2:${e.code}@${String(e.details["offset"] ?? "")}`;
    if (e instanceof DecodeError) return `v1:${e.code}`;
    throw e;
  }
  return "accepted";
}

function u32(x: number): number[] {
  return [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff];
}

function patched(bytes: Uint8Array, at: number, values: number[]): Uint8Array {
  const b = bytes.slice();
  b.set(values, at);
  return b;
}

test("v1 and v2 decoders refuse each other's bytes at the version field", () => {
  assert.equal(
    outcome(() => decodeProof(V2_BYTES)),
    "v1:UnsupportedProofEncodingVersion",
  );
  assert.equal(
    outcome(() => decodeProof(AGG)),
    "v1:UnsupportedProofEncodingVersion",
  );
  assert.match(
    outcome(() => decodeProofV2(V1_BYTES)),
    /^v2:UnsupportedProofEncodingVersion/,
  );
  assert.match(
    outcome(() => decodeAggregateV2(V1_BYTES)),
    /^v2:UnsupportedProofEncodingVersion/,
  );
  // the same bytes with the other version written in still do not decode as the other format
  assert.notEqual(
    outcome(() => decodeProof(patched(V2_BYTES, 8, [1, 0]))),
    "accepted",
  );
  assert.notEqual(
    outcome(() => decodeProofV2(patched(V1_BYTES, 8, [2, 0]))),
    "accepted",
  );
});

test("fuzzed: mutated v1 bytes never decode as v2 and mutated v2 bytes never as v1, and only typed errors come out", () => {
  const edits = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 });
  fc.assert(
    fc.property(edits, fc.option(fc.nat()), fc.boolean(), (es, cut, fix) => {
      for (const [source, other] of [
        [V1_BYTES, "v2"],
        [V2_BYTES, "v1"],
        [AGG, "v1"],
      ] as const) {
        let b = source.slice();
        for (const [at, v] of es) if (at % b.length >= 12) b[at % b.length] = v; // keep magic, versions, kind
        if (cut !== null) b = b.slice(0, cut % (b.length + 1));
        if (fix && b.length >= 17) new DataView(b.buffer, b.byteOffset).setUint32(13, b.length, true);
        const decoders = other === "v2" ? [() => decodeProofV2(b), () => decodeAggregateV2(b)] : [() => decodeProof(b)];
        for (const d of decoders) {
          const o = outcome(d);
          assert.ok(o !== "accepted", `${other} decoded the other profile's bytes`);
          assert.ok(/^v[12]:/.test(o), o);
        }
      }
    }),
    { numRuns: 200 },
  );
});

test("aggregate decoder: every rule with its code and offset, in order", () => {
  const n = 3;
  const layers = 61 + 4 + 8 * n;
  const withLength = (b: Uint8Array) => {
    new DataView(b.buffer, b.byteOffset).setUint32(13, b.length, true);
    return b;
  };
  const cases: [string, Uint8Array][] = [
    ["v2:HeaderTooShort@", AGG.subarray(0, 16)],
    ["v2:BadMagic@", patched(AGG, 0, [0])],
    ["v2:UnsupportedProofEncodingVersion@", patched(AGG, 8, [3, 0])],
    ["v2:UnsupportedProtocolVersion@", patched(AGG, 10, [1, 0])],
    ["v2:UnsupportedProofKind@", patched(AGG, 12, [0])],
    ["v2:DeclaredLengthMismatch@", patched(AGG, 13, u32(AGG.length + 1))],
    ["v2:UnknownOpKindTag@17", patched(AGG, 17, [3])],
    ["v2:UnsupportedCircuitVersion@", patched(AGG, 22, [1, 0])],
    ["v2:UnsupportedLeafEncodingVersion@", patched(AGG, 24, [0, 0])],
    ["v2:UnsupportedLayout@", patched(AGG, 28, [2])],
    ["v2:NonCanonicalFieldElement@29", patched(AGG, 29, u32(P))],
    ["v2:NonCanonicalFieldElement@57", patched(AGG, 57, u32(P))],
    ["v2:BadOperationCount@61", patched(AGG, 61, u32(0))],
    ["v2:OversizedCount@61", patched(AGG, 61, u32(AGG.length))],
    ["v2:NonCanonicalFieldElement@65", patched(AGG, 65, u32(P))],
    ["v2:NonCanonicalFieldElement@85", patched(AGG, 65 + 8 * (n - 1) + 4, u32(0xffffffff))],
    ["v2:OversizedCount@" + layers, patched(AGG, layers, u32(1_000_000))],
    ["v2:BadRoundCount@" + (layers + 4), patched(AGG, layers + 4, u32(3))],
    ["v2:TrailingBytes@", withLength(Uint8Array.from([...AGG, 0]))],
    ["v2:Truncated@", withLength(AGG.slice(0, 40))],
  ];
  for (const [want, bytes] of cases) {
    const got = outcome(() => decodeAggregateV2(bytes));
    if (want.endsWith("@")) assert.ok(got.startsWith(want), `${want}: ${got}`);
    else assert.equal(got, want);
  }
  assert.equal(decodeAggregateV2(AGG).statementChecks.length, n);
  // the last layer a few bytes short (length fixed): refused by the bound before any read
  const d = decodeAggregateV2(AGG);
  let last = layers + 4;
  for (const l of d.proof.layers.slice(0, -1)) last += 4 + (l.rounds.length / 2) * 128 + 32;
  for (const short of [1, 10, 63])
    assert.equal(
      outcome(() => decodeAggregateV2(withLength(AGG.slice(0, AGG.length - short)))),
      `v2:OversizedCount@${last}`,
      `${short} bytes short`,
    );
  // details name what was refused
  const details = (f: () => unknown): Record<string, unknown> => {
    try {
      f();
    } catch (e) {
      return (e as V2DecodeError).details as Record<string, unknown>;
    }
    return {};
  };
  assert.deepEqual(
    details(() => decodeAggregateV2(patched(AGG, 24, [3, 0]))),
    { version: 3 },
  );
  assert.equal(details(() => decodeAggregateV2(withLength(Uint8Array.from([...AGG, 0, 0])))).extra, 2);
  assert.equal(details(() => decodeProofV2(patched(V2_BYTES, 125, [7]))).offset, 125);
  assert.equal(details(() => decodeProofV2(patched(V2_BYTES, 125, [7]))).tag, 7);
  assert.deepEqual(
    details(() => decodeProofV2(patched(V2_BYTES, 125, [1]))),
    { identity: 0, statement: 1 },
  );
  assert.deepEqual(
    details(() => decodeAggregateV2(patched(AGG, 10, [5, 0]))),
    { version: 5 },
  );
  assert.equal(
    outcome(() => decodeAggregateV2(null as never)),
    "v2:NotBytes@",
  );
});
