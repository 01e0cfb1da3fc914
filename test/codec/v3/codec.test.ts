/**
 * inner-proof-v3: encode ∘ decode reproduces the bytes of aggregates and blocks; the strict
 * decoder's rules fire with their codes and offsets, in order; the encoder's codes; the other
 * profiles' decoders and this one refuse each other's bytes at the version field; and fuzzed bytes
 * never raise anything but a V3DecodeError, nor make a verifier throw.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeProof } from "../../../src/codec/decode.js";
import { DecodeError } from "../../../src/codec/errors.js";
import { decodeAggregateV2 } from "../../../src/codec/v2/decode.js";
import { V2DecodeError } from "../../../src/codec/v2/errors.js";
import { layersSize } from "../../../src/codec/v2/layers.js";
import { V3DecodeError, V3EncodeError } from "../../../src/codec/v3/errors.js";
import { V3_MAX_COMMITMENT_BYTES, V3_MAX_OPENING_BYTES, V3_MAX_OPERATIONS } from "../../../src/codec/v3/layout.js";
import { decodeV3Message, encodeV3Message, type V3Message } from "../../../src/codec/v3/message.js";
import { P } from "../../../src/field/koalabear.js";
import type { Ext } from "../../../src/field/extension.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import { encodeSyncResult } from "../../../src/sync/encoded.js";
import { prepare } from "../../../src/sync/prepared.js";
import { provePrepared } from "../../../src/sync/prove.js";
import { OpKind } from "../../../src/statement/types.js";
import { prepareV2, proveAggregate } from "../../../src/sync/v2/index.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
} from "../../../src/sync/v3/index.js";
import { blockFixture, blockUpdates } from "../../sync/v3/support.js";

const DEPTH = 4;
const membership = prepareV3(OpKind.Membership, { depth: DEPTH });
const requests = [1n, 2n, 7n].map((k) => goldenFixture(OpKind.Membership, DEPTH, k));
const statements = requests.map((r) => v3StatementOf(r));
// proved in a hook, so that a prover that throws fails the tests instead of the file's import
let AGG: Uint8Array;
let BLOCK: Uint8Array;

const update = prepareV3(OpKind.Update, { depth: DEPTH });
const fixture = blockFixture(DEPTH, 3);
before(() => {
  AGG = proveAggregateV3(membership, requests);
  BLOCK = proveBlockV3(update, fixture.updates, { rules: fixture.rules });
});
const blockList = blockUpdates(fixture.updates, fixture.rules);
const blockRoots = { fromRoot: fixture.fromRoot, toRoot: fixture.toRoot };

function outcome(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof V3DecodeError || e instanceof V3EncodeError)
      return `${e.code}@${String(e.details["offset"] ?? "")}`;
    if (e instanceof V2DecodeError) return `v2:${e.code}`;
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

function withLength(b: Uint8Array): Uint8Array {
  new DataView(b.buffer, b.byteOffset).setUint32(13, b.length, true);
  return b;
}

/** Offsets of a message's sections. */
function offsets(bytes: Uint8Array): {
  checks: number;
  roots: number;
  commitmentLength: number;
  commitment: number;
  layers: number;
  openingLength: number;
  opening: number;
} {
  const m = decodeV3Message(bytes);
  const n = m.statementChecks.length;
  const checks = 65;
  const roots = checks + 8 * n;
  const commitmentLength = roots + 32 * m.roots.length;
  const commitment = commitmentLength + 4;
  const layers = commitment + m.commitment.length;
  const openingLength = layers + layersSize(m.proof);
  return { checks, roots, commitmentLength, commitment, layers, openingLength, opening: openingLength + 4 };
}

test("encode ∘ decode reproduces the bytes of an aggregate and of a block, and the decoded parts", () => {
  for (const [what, bytes, n, roots] of [
    ["aggregate", AGG, 3, 0],
    ["block", BLOCK, 3, 2],
  ] as const) {
    const m = decodeV3Message(bytes);
    assert.equal(m.statementChecks.length, n, what);
    assert.equal(m.roots.length, roots, what);
    assert.deepEqual(encodeV3Message(m), bytes, what);
    // the decoded message decodes to equal parts again, and any Uint8Array view decodes
    assert.deepEqual(decodeV3Message(encodeV3Message(m)), m, what);
    const padded = new Uint8Array(bytes.length + 7);
    padded.set(bytes, 5);
    assert.deepEqual(encodeV3Message(decodeV3Message(padded.subarray(5, 5 + bytes.length))), bytes, what);
    const o = offsets(bytes);
    assert.equal(o.opening + m.opening.length, bytes.length, `${what}: the sections fill the message`);
  }
  const b = decodeV3Message(BLOCK);
  assert.equal(b.proofKind, 2);
  assert.deepEqual(
    b.roots,
    fixture.updates.slice(0, -1).map((u) => u.publicInputs.newRoot),
  );
  assert.equal(decodeV3Message(AGG).proofKind, 1);
});

test("the decoder's rules fire with their codes and offsets (block)", () => {
  const o = offsets(BLOCK);
  const m = decodeV3Message(BLOCK);
  const cases: [string, unknown][] = [
    ["NotBytes@", [1, 2, 3]],
    ["NotBytes@", null],
    ["NotBytes@", "SSGKRPRF"],
    ["HeaderTooShort@", BLOCK.subarray(0, 16)],
    ["HeaderTooShort@", new Uint8Array(0)],
    ["BadMagic@", patched(BLOCK, 0, [0])],
    ["BadMagic@", patched(BLOCK, 7, [0])],
    ["UnsupportedProofEncodingVersion@", patched(BLOCK, 8, [2, 0])],
    ["UnsupportedProofEncodingVersion@", patched(BLOCK, 8, [1, 0])],
    ["UnsupportedProtocolVersion@", patched(BLOCK, 10, [2, 0])],
    ["UnsupportedProofKind@", patched(BLOCK, 12, [0])],
    ["UnsupportedProofKind@", patched(BLOCK, 12, [3])],
    ["DeclaredLengthMismatch@", patched(BLOCK, 13, u32(BLOCK.length + 1))],
    ["DeclaredLengthMismatch@", BLOCK.subarray(0, BLOCK.length - 1)],
    ["UnknownOpKindTag@17", patched(BLOCK, 17, [3])],
    ["UnsupportedCircuitVersion@", patched(BLOCK, 22, [2, 0])],
    ["UnsupportedLeafEncodingVersion@", patched(BLOCK, 24, [0, 0])],
    ["UnsupportedLayout@", patched(BLOCK, 28, [1])],
    ["NonCanonicalFieldElement@29", patched(BLOCK, 29, u32(P))],
    ["NonCanonicalFieldElement@57", patched(BLOCK, 57, u32(0xffffffff))],
    ["OpKindMismatch@", patched(BLOCK, 17, [0])],
    ["OpKindMismatch@", patched(BLOCK, 17, [1])],
    ["BadOperationCount@61", patched(BLOCK, 61, u32(0))],
    ["BadOperationCount@61", patched(BLOCK, 61, u32(V3_MAX_OPERATIONS + 1))],
    ["OversizedCount@61", patched(BLOCK, 61, u32(V3_MAX_OPERATIONS))],
    ["NonCanonicalFieldElement@65", patched(BLOCK, 65, u32(P))],
    [`NonCanonicalFieldElement@${o.roots - 4}`, patched(BLOCK, o.roots - 4, u32(P))],
    [`NonCanonicalFieldElement@${o.roots}`, patched(BLOCK, o.roots, u32(P))],
    [`NonCanonicalFieldElement@${o.commitmentLength - 4}`, patched(BLOCK, o.commitmentLength - 4, u32(P))],
    [`OversizedCount@${o.commitmentLength}`, patched(BLOCK, o.commitmentLength, u32(V3_MAX_COMMITMENT_BYTES + 1))],
    [`OversizedCount@${o.commitmentLength}`, withLength(BLOCK.slice(0, o.commitment + 8))],
    [`BadCommitment@${o.commitment}`, patched(BLOCK, o.commitment, [0])],
    [`BadCommitment@${o.commitment}`, patched(BLOCK, o.commitmentLength, u32(m.commitment.length - 4))],
    [`OversizedCount@${o.layers}`, patched(BLOCK, o.layers, u32(1_000_000))],
    [`BadRoundCount@${o.layers + 4}`, patched(BLOCK, o.layers + 4, u32(m.proof.layers[0]!.rounds.length + 1))],
    [`OversizedCount@${o.layers + 4}`, patched(BLOCK, o.layers + 4, u32(1_000_000))],
    [`NonCanonicalFieldElement@${o.layers + 8}`, patched(BLOCK, o.layers + 8, u32(P))],
    [`NonCanonicalFieldElement@${o.openingLength - 4}`, patched(BLOCK, o.openingLength - 4, u32(P))],
    [`OversizedCount@${o.openingLength}`, patched(BLOCK, o.openingLength, u32(V3_MAX_OPENING_BYTES + 1))],
    [`OversizedCount@${o.openingLength}`, patched(BLOCK, o.openingLength, u32(m.opening.length + 1))],
    [`BadOpening@${o.opening}`, patched(BLOCK, o.opening, [0])],
    [
      `BadOpening@${o.opening}`,
      withLength(patched(BLOCK, o.openingLength, u32(m.opening.length - 4)).slice(0, BLOCK.length - 4)),
    ],
    ["TrailingBytes@", withLength(Uint8Array.from([...BLOCK, 0]))],
    ["Truncated@18", withLength(BLOCK.slice(0, 20))],
    ["Truncated@53", withLength(BLOCK.slice(0, 55))],
    ["Truncated@61", withLength(BLOCK.slice(0, 62))],
    [`Truncated@${o.commitmentLength}`, withLength(BLOCK.slice(0, o.commitmentLength + 2))],
    [`Truncated@${o.openingLength}`, withLength(BLOCK.slice(0, o.openingLength + 3))],
  ];
  for (const [want, bytes] of cases) {
    const got = outcome(() => decodeV3Message(bytes as Uint8Array));
    if (want.endsWith("@")) assert.ok(got.startsWith(want), `${want}: ${got}`);
    else assert.equal(got, want);
  }
  // the embedded lengths say which bound they broke
  const msg = (bytes: Uint8Array): string => {
    try {
      decodeV3Message(bytes);
    } catch (e) {
      return (e as Error).message;
    }
    return "";
  };
  assert.match(msg(patched(BLOCK, o.commitmentLength, u32(V3_MAX_COMMITMENT_BYTES + 1))), /the limit 4096/);
  assert.match(msg(withLength(BLOCK.slice(0, o.commitment + 8))), /the 8 bytes left/);
  assert.match(msg(patched(BLOCK, o.openingLength, u32(V3_MAX_OPENING_BYTES + 1))), /the limit 8388608/);
  assert.match(
    msg(patched(BLOCK, o.openingLength, u32(m.opening.length + 1))),
    new RegExp(`the ${m.opening.length} bytes left`),
  );
  // details name what was refused
  const details = (bytes: unknown): Record<string, unknown> => {
    try {
      decodeV3Message(bytes as Uint8Array);
    } catch (e) {
      return { code: (e as V3DecodeError).code, ...(e as V3DecodeError).details };
    }
    return {};
  };
  assert.deepEqual(details(patched(BLOCK, 8, [2, 0])), { code: "UnsupportedProofEncodingVersion", version: 2 });
  assert.deepEqual(details(patched(BLOCK, 10, [5, 0])), { code: "UnsupportedProtocolVersion", version: 5 });
  assert.deepEqual(details(patched(BLOCK, 12, [9])), { code: "UnsupportedProofKind", kind: 9 });
  assert.deepEqual(details(patched(BLOCK, 13, u32(7))), {
    code: "DeclaredLengthMismatch",
    declared: 7,
    actual: BLOCK.length,
  });
  assert.deepEqual(details(patched(BLOCK, 17, [4])), { code: "UnknownOpKindTag", tag: 4, offset: 17 });
  assert.deepEqual(details(patched(BLOCK, 22, [4, 0])), { code: "UnsupportedCircuitVersion", version: 4 });
  assert.deepEqual(details(patched(BLOCK, 24, [2, 0])), { code: "UnsupportedLeafEncodingVersion", version: 2 });
  assert.deepEqual(details(patched(BLOCK, 28, [3])), { code: "UnsupportedLayout", layout: 3 });
  assert.deepEqual(details(patched(BLOCK, 17, [1])), { code: "OpKindMismatch", identity: 1, statement: 2 });
  assert.deepEqual(details(patched(BLOCK, 61, u32(V3_MAX_OPERATIONS))), {
    code: "OversizedCount",
    offset: 61,
    count: V3_MAX_OPERATIONS,
  });
  assert.deepEqual(details(withLength(Uint8Array.from([...BLOCK, 0, 0, 0]))), { code: "TrailingBytes", extra: 3 });
  assert.deepEqual(details(BLOCK.subarray(0, 5)), { code: "HeaderTooShort", have: 5 });
});

test("the decoder's rules on an aggregate: OversizedCount counts no roots, an aggregate of any kind decodes", () => {
  const o = offsets(AGG);
  assert.equal(o.commitmentLength, 65 + 8 * 3, "an aggregate carries no roots");
  // n checks of 8 bytes must fit the bytes left: 23 bytes for 3 checks is OversizedCount, 24 bytes reach the next field
  assert.equal(
    outcome(() => decodeV3Message(withLength(AGG.slice(0, 65 + 8 * 3 - 1)))),
    "OversizedCount@61",
  );
  assert.equal(
    outcome(() => decodeV3Message(withLength(AGG.slice(0, 65 + 8 * 3)))),
    `Truncated@${65 + 8 * 3}`,
  );
  assert.match(
    outcome(() => decodeV3Message(patched(AGG, o.commitment, [0]))),
    new RegExp(`^BadCommitment@${o.commitment}$`),
  );
  assert.match(
    outcome(() => decodeV3Message(patched(AGG, o.opening, [0]))),
    new RegExp(`^BadOpening@${o.opening}$`),
  );
  // a one-operation aggregate: exactly 8 bytes of checks are needed
  const one = proveAggregateV3(membership, requests.slice(0, 1));
  assert.equal(
    outcome(() => decodeV3Message(one)),
    "accepted",
  );
  assert.notEqual(
    outcome(() => decodeV3Message(patched(one, 61, u32(2)))),
    "accepted",
  );
  // an update aggregate (proof kind 1, op kind 2) is not a block and decodes
  const agg = proveAggregateV3(update, fixture.updates);
  const d = decodeV3Message(agg);
  assert.equal(d.proofKind, 1);
  assert.equal(d.roots.length, 0);
  // a block's count needs n checks and n − 1 roots: n = 4096 with the bytes of a small block is OversizedCount, and so is
  // a count that fits the checks but not the roots
  const rootsNeed = (n: number) => 8 * n + 32 * (n - 1);
  const left = BLOCK.length - 65;
  let n = 1;
  while (rootsNeed(n + 1) <= left) n++;
  assert.ok(8 * (n + 1) <= left, "the checks alone would fit");
  assert.equal(
    outcome(() => decodeV3Message(patched(BLOCK, 61, u32(n + 1)))),
    "OversizedCount@61",
  );
  assert.notEqual(
    outcome(() => decodeV3Message(patched(BLOCK, 61, u32(n)))),
    "OversizedCount@61",
  );
});

test("the decoder's checks run in order: of two faults, the earlier rule is the one reported", () => {
  const o = offsets(BLOCK);
  // length-preserving faults, in the order of the rules
  const faults: [string, (b: Uint8Array) => void][] = [
    ["BadMagic", (b) => b.set([0], 0)],
    ["UnsupportedProofEncodingVersion", (b) => b.set([2, 0], 8)],
    ["UnsupportedProtocolVersion", (b) => b.set([2, 0], 10)],
    ["UnsupportedProofKind", (b) => b.set([0], 12)],
    ["DeclaredLengthMismatch", (b) => b.set(u32(1), 13)],
    ["UnknownOpKindTag", (b) => b.set([3], 17)],
    ["UnsupportedCircuitVersion", (b) => b.set([2, 0], 22)],
    ["UnsupportedLeafEncodingVersion", (b) => b.set([0, 0], 24)],
    ["UnsupportedLayout", (b) => b.set([1], 28)],
    ["NonCanonicalFieldElement", (b) => b.set(u32(P), 29)],
    ["OpKindMismatch", (b) => b.set([1], 17)],
    ["BadOperationCount", (b) => b.set(u32(0), 61)],
    ["NonCanonicalFieldElement", (b) => b.set(u32(P), 65)],
    ["NonCanonicalFieldElement", (b) => b.set(u32(P), o.roots)],
    ["OversizedCount", (b) => b.set(u32(V3_MAX_COMMITMENT_BYTES + 1), o.commitmentLength)],
    ["BadCommitment", (b) => b.set([0], o.commitment)],
    ["OversizedCount", (b) => b.set(u32(1_000_000), o.layers)],
    ["OversizedCount", (b) => b.set(u32(V3_MAX_OPENING_BYTES + 1), o.openingLength)],
    ["BadOpening", (b) => b.set([0], o.opening)],
  ];
  for (let i = 0; i < faults.length; i++) {
    for (let j = i + 1; j < faults.length; j++) {
      const [first, a] = faults[i]!;
      const [, b] = faults[j]!;
      const bytes = BLOCK.slice();
      b(bytes);
      a(bytes);
      const got = outcome(() => decodeV3Message(bytes));
      assert.ok(got.startsWith(`${first}@`), `faults ${first} and ${faults[j]![0]}: ${got}`);
    }
  }
  // TrailingBytes comes last: a message with an extra byte and a bad opening reports the opening
  const late = withLength(Uint8Array.from([...patched(BLOCK, o.opening, [0]), 0]));
  assert.match(
    outcome(() => decodeV3Message(late)),
    /^BadOpening@/,
  );
});

test("profile v1 and v2 messages are refused at the version field, and the v2 decoder refuses a v3 message", () => {
  const v2 = prepareV2(OpKind.Membership, { depth: 2 });
  const V2_AGG = proveAggregate(
    v2,
    [1n, 2n].map((k) => goldenFixture(OpKind.Membership, 2, k)),
  );
  const v1 = prepare(OpKind.Membership, { depth: 2 });
  const V1_BYTES = encodeSyncResult(v1, provePrepared(v1, goldenFixture(OpKind.Membership, 2, 1n)));
  assert.equal(
    outcome(() => decodeV3Message(V2_AGG)),
    "UnsupportedProofEncodingVersion@",
  );
  assert.equal(
    outcome(() => decodeV3Message(V1_BYTES)),
    "UnsupportedProofEncodingVersion@",
  );
  assert.equal(
    outcome(() => decodeAggregateV2(AGG)),
    "v2:UnsupportedProofEncodingVersion",
  );
  assert.equal(
    outcome(() => decodeAggregateV2(BLOCK)),
    "v2:UnsupportedProofEncodingVersion",
  );
  assert.equal(
    outcome(() => decodeProof(AGG)),
    "v1:UnsupportedProofEncodingVersion",
  );
  // a v3 message with its version field rewritten to 2 still is no v2 aggregate, and the other way round
  assert.notEqual(
    outcome(() => decodeAggregateV2(patched(AGG, 8, [2, 0]))),
    "accepted",
  );
  assert.notEqual(
    outcome(() => decodeV3Message(patched(V2_AGG, 8, [3, 0]))),
    "accepted",
  );
  // the verifiers report the decoder's code
  const v = verifyAggregateV3(membership, statements, V2_AGG);
  assert.deepEqual(v.ok ? "ok" : v.code, "DECODE_UnsupportedProofEncodingVersion");
});

test("the encoder's codes: count, roots, identity, field elements and the layer rules", () => {
  const agg = decodeV3Message(AGG);
  const blk = decodeV3Message(BLOCK);
  const enc = (m: V3Message) => outcome(() => encodeV3Message(m));
  const layer0 = agg.proof.layers[0]!;
  const withLayer0 = (l: typeof layer0) => ({ ...agg, proof: { layers: [l, ...agg.proof.layers.slice(1)] } });
  const bumped = (e: Ext): Ext => [e[0], e[1], e[2], (e[3] + 1) % P];
  const half = layer0.rounds.length / 2;
  const cases: [string, V3Message][] = [
    ["BadOperationCount@", { ...agg, statementChecks: [] }],
    [
      "BadOperationCount@",
      { ...agg, statementChecks: Array.from({ length: V3_MAX_OPERATIONS + 1 }, () => [0, 0] as const) },
    ],
    ["BadRoots@", { ...blk, roots: blk.roots.slice(1) }],
    ["BadRoots@", { ...blk, roots: [...blk.roots, blk.roots[0]!] }],
    ["BadRoots@", { ...agg, roots: [blk.roots[0]!] }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, opKindTag: 3 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, opKindTag: 0.5 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, depth: -1 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, depth: 2 ** 32 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, leafMaxFields: 0x10000 } }],
    ["BadIdentity@", { ...agg, proofKind: 3 as 1 }],
    // fields narrower than a number are refused, not written modulo their width (layout id 256 would read back as 0)
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, layoutId: 256 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, layoutId: -1 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, circuitVersion: 0x10003 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, circuitVersion: 2.5 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, leafEncodingVersion: -1 } }],
    ["BadIdentity@", { ...agg, identity: { ...agg.identity, leafEncodingVersion: 0x10001 } }],
    [
      "NonCanonicalFieldElement@29",
      { ...agg, identity: { ...agg.identity, commitment: Uint32Array.from([P, 0, 0, 0, 0, 0, 0, 0]) } },
    ],
    ["NonCanonicalFieldElement@65", { ...agg, statementChecks: [[P, 0], ...agg.statementChecks.slice(1)] }],
    ["NonCanonicalFieldElement@69", { ...agg, statementChecks: [[0, -1], ...agg.statementChecks.slice(1)] }],
    [
      "NonCanonicalFieldElement@73",
      { ...agg, statementChecks: [agg.statementChecks[0]!, [1.5, 0], ...agg.statementChecks.slice(2)] },
    ],
    [
      `NonCanonicalFieldElement@${65 + 24 + 32 + 28}`,
      { ...blk, roots: [blk.roots[0]!, Uint32Array.from([0, 0, 0, 0, 0, 0, 0, P])] },
    ],
    ["BadRoundCount@", withLayer0({ ...layer0, rounds: layer0.rounds.slice(1) })],
    [
      "BadRoundPolyArity@",
      withLayer0({ ...layer0, rounds: [layer0.rounds[0]!.slice(0, 4), ...layer0.rounds.slice(1)] }),
    ],
    [
      "NonZeroHighCoefficient@",
      withLayer0({
        ...layer0,
        rounds: layer0.rounds.map((r, i) => (i === half ? [r[0]!, r[1]!, r[2]!, r[3]!, bumped(r[4]!)] : r)),
      }),
    ],
    [
      `NonCanonicalFieldElement@${offsets(AGG).layers + 8}`,
      withLayer0({ ...layer0, rounds: [[[P, 0, 0, 0], ...layer0.rounds[0]!.slice(1)], ...layer0.rounds.slice(1)] }),
    ],
  ];
  for (const [want, m] of cases) {
    const got = enc(m);
    if (want.endsWith("@")) assert.ok(got.startsWith(want), `${want}: ${got}`);
    else assert.equal(got, want);
  }
  // the boundaries themselves encode
  assert.equal(enc({ ...agg, identity: { ...agg.identity, leafMaxFields: 0xffff, depth: 0xffffffff } }), "accepted");
  // a field at the top of its width is written as it is (and refused by the decoder, which admits only version 3 and layout 0)
  const top = encodeV3Message({
    ...agg,
    identity: { ...agg.identity, circuitVersion: 0xffff, leafEncodingVersion: 0xffff, layoutId: 0xff },
  });
  assert.deepEqual([...top.subarray(22, 26), top[28]], [0xff, 0xff, 0xff, 0xff, 0xff]);
  assert.equal(
    outcome(() => decodeV3Message(top)),
    "UnsupportedCircuitVersion@",
  );
  assert.equal(enc({ ...agg, statementChecks: [[P - 1, 0]] }), "accepted");
  assert.equal(
    enc({ ...agg, statementChecks: Array.from({ length: V3_MAX_OPERATIONS }, () => [0, 0] as const) }),
    "accepted",
  );
});

test("fuzzed: random bytes, truncations and byte mutations of real proofs raise only V3DecodeError, and the verifiers always return a verdict", () => {
  const header = AGG.subarray(0, 17);
  const decodeOnly = (b: Uint8Array) => {
    const o = outcome(() => decodeV3Message(b));
    assert.ok(o === "accepted" || /^[A-Za-z]+@/.test(o), o);
    return o;
  };
  // random byte strings, with and without a valid header in front
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), fc.boolean(), fc.boolean(), (tail, prefix, fix) => {
      let b: Uint8Array = prefix ? Uint8Array.from([...header, ...tail]) : tail;
      if (fix && b.length >= 17) b = withLength(b.slice());
      assert.notEqual(decodeOnly(b), "accepted");
      const v = verifyAggregateV3(membership, statements, b);
      assert.equal(v.ok, false);
    }),
    { numRuns: 300, seed: 0x5eed },
  );
  // truncations (length fixed or not) and single-byte mutations of a real aggregate and block
  let verified = 0;
  const deadline = Date.now() + 60_000;
  fc.assert(
    fc.property(
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom("cut", "cut-fixed", "byte"),
      fc.boolean(),
      (at, value, how, isBlock) => {
        const source = isBlock ? BLOCK : AGG;
        let b: Uint8Array;
        if (how === "byte") {
          b = source.slice();
          const i = at % b.length;
          b[i] = b[i] === value ? value ^ 1 : value;
        } else {
          b = source.slice(0, at % source.length);
          if (how === "cut-fixed" && b.length >= 17) withLength(b);
        }
        const o = decodeOnly(b);
        if (o === "accepted" && Date.now() > deadline) return; // bound the time the full verifications take
        if (o === "accepted") verified++;
        const v = isBlock
          ? verifyBlockV3(update, blockRoots, blockList, b)
          : verifyAggregateV3(membership, statements, b);
        // a verdict, and never an acceptance: every byte of the message is read and checked
        assert.equal(v.ok, false, `${how} at ${at % source.length}`);
        if (!v.ok) assert.equal(typeof v.code, "string");
      },
    ),
    { numRuns: 400, seed: 0x5eed + 1 },
  );
  assert.ok(verified > 0, "some mutations decode and reach the verifier's later checks");
});
