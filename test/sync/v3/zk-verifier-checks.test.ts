/**
 * The checks of the v3-zk verifier (docs/profile-v3.md §11.9) with their codes, on messages built
 * for them, and the strict inner-proof-v3zk decoder: round trip, its own rules, and fuzzed bytes
 * that raise only V3DecodeError while the verifiers always return a verdict.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeV3Message,
  decodeV3ZkMessage,
  encodeV3ZkMessage,
  type V3ZkMessage,
} from "../../../src/codec/v3/message.js";
import { V3DecodeError, V3EncodeError } from "../../../src/codec/v3/errors.js";
import { decodeWhirHidingCommitment, encodeWhirHidingCommitment } from "../../../src/pcs/hiding-codec.js";
import { whirCommitHiding } from "../../../src/pcs/hiding-api.js";
import { whirSeededRandomSource } from "../../../src/pcs/random.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3Statement } from "../../../src/smt/v3/statement.js";
import { OpKind } from "../../../src/statement/types.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  type V3Timings,
} from "../../../src/sync/v3/index.js";
import { v3ZkVectorLayout } from "../../../src/sync/v3/zk-layout.js";
import { inputBitsOf } from "../../../src/gkr/circuit.js";
import { zkRoundDegrees } from "../../../src/gkr/zk/masks.js";
import { SyncError } from "../../../src/statement/errors.js";
import { blockFixture, verdictCode } from "./support.js";

const DEPTH = 5;
const p = prepareV3(OpKind.Membership, { depth: DEPTH });
const requests = [1n, 6n, 11n].map((k) => goldenFixture(OpKind.Membership, DEPTH, k));
const statements = requests.map((r) => v3StatementOf(r));
let BYTES: Uint8Array;
let M: V3ZkMessage;
let MZ: number;
before(() => {
  BYTES = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource("checks") });
  M = decodeV3ZkMessage(BYTES);
  MZ = decodeWhirHidingCommitment(M.commitment).numVariables;
});

const verify = (st: unknown, bytes: Uint8Array = BYTES, options = {}) =>
  verdictCode(verifyAggregateV3(p, st as V3Statement[], bytes, options));

test("an honest v3-zk aggregate is accepted; the weakest accepted regime and the sets are the verifier's", () => {
  assert.equal(verify(statements), "ok");
  assert.equal(verify(statements, BYTES, { accept: "provable" }), "PCS_SET_NOT_ACCEPTED");
  const ud = proveAggregateV3(p, requests, { zk: true, pcsSet: "ud100-r4" });
  assert.equal(verify(statements, ud, { accept: "provable" }), "ok");
});

test("the hiding commitment's set and size, and an opening of another set", () => {
  const commitmentOf = (m: number, set?: "cb90-r4") =>
    encodeWhirHidingCommitment(whirCommitHiding(new Uint32Array(2 ** m), { set }).commitment);
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, commitment: commitmentOf(MZ + 1) })), "COMMITMENT_SHAPE");
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, commitment: commitmentOf(MZ - 1) })), "COMMITMENT_SHAPE");
  const weak = commitmentOf(MZ, "cb90-r4");
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, commitment: weak })), "PCS_SET_NOT_ACCEPTED");
  // accepted, of the right size: the opening (of cb100-r4) then names another set than the commitment
  assert.equal(
    verify(statements, encodeV3ZkMessage({ ...M, commitment: weak }), { alsoAccept: ["cb90-r4"] }),
    "PCS_SET_NOT_ACCEPTED",
  );
  const ud = decodeV3ZkMessage(proveAggregateV3(p, requests, { zk: true, pcsSet: "ud100-r4" }));
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, opening: ud.opening })), "PCS_SET_NOT_ACCEPTED");
  // a plain v3 commitment where a hiding one belongs is refused by the decoder
  const plain = decodeV3Message(proveAggregateV3(p, requests));
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, commitment: plain.commitment })), "DECODE_BadCommitment");
  assert.equal(verify(statements, encodeV3ZkMessage({ ...M, opening: plain.opening })), "DECODE_BadOpening");
});

test("inner-proof-v3zk: decode ∘ encode is the identity; the v3 decoder refuses it and the v3-zk decoder refuses v3", () => {
  assert.deepEqual(encodeV3ZkMessage(decodeV3ZkMessage(BYTES)), BYTES);
  const plain = proveAggregateV3(p, requests);
  assert.throws(
    () => decodeV3Message(BYTES),
    (e: unknown) => e instanceof V3DecodeError && e.code === "UnsupportedProofEncodingVersion",
  );
  assert.throws(
    () => decodeV3ZkMessage(plain),
    (e: unknown) => e instanceof V3DecodeError && e.code === "UnsupportedProofEncodingVersion",
  );
  // the layer rules: an odd round count, a round count outside [4, 60], a round of another length
  const layers = M.proof.layers;
  const withLayer = (f: (l: (typeof layers)[number]) => unknown) => ({
    ...M,
    proof: { layers: layers.map((l, i) => (i === 0 ? f(l) : l)) },
  });
  const enc = (m: unknown) => {
    try {
      encodeV3ZkMessage(m as V3ZkMessage);
      return "accepted";
    } catch (e) {
      return e instanceof V3EncodeError ? e.code : String(e);
    }
  };
  assert.equal(enc(withLayer((l) => ({ ...l, rounds: l.rounds.slice(1) }))), "BadRoundCount");
  assert.equal(enc(withLayer((l) => ({ ...l, rounds: l.rounds.slice(0, 2) }))), "BadRoundCount");
  assert.equal(
    enc(withLayer((l) => ({ ...l, rounds: l.rounds.map((r, j) => (j === 0 ? r.slice(1) : r)) }))),
    "BadRoundPolyArity",
  );
  // the decoder: the first layer's round count patched to odd, to 2 and 62, and a message that ends inside the layer
  // §6: n at 61, the checks, the commitment's length and bytes, then the layers
  const layerCountAt = 65 + 8 * M.statementChecks.length + 4 + M.commitment.length;
  assert.equal(BYTES.length, layerCountAt + layersBytes(M) + 4 + M.opening.length);
  const roundsAt = layerCountAt + 4;
  const patched = (at: number, v: number) => {
    const b = BYTES.slice();
    new DataView(b.buffer).setUint32(at, v, true);
    return b;
  };
  const dec = (b: Uint8Array) => {
    try {
      decodeV3ZkMessage(b);
      return "accepted";
    } catch (e) {
      return e instanceof V3DecodeError ? e.code : String(e);
    }
  };
  assert.equal(dec(patched(roundsAt, layers[0]!.rounds.length + 1)), "BadRoundCount");
  assert.equal(dec(patched(roundsAt, 2)), "BadRoundCount");
  assert.equal(dec(patched(roundsAt, 62)), "BadRoundCount");
  // a round count that is valid but needs more bytes than the message has
  const short = BYTES.slice(0, roundsAt + 4 + 64);
  new DataView(short.buffer).setUint32(13, short.length, true);
  assert.equal(dec(short), "OversizedCount");
  assert.equal(dec(patched(layerCountAt, 0xffffff)), "OversizedCount");
});

function layersBytes(m: V3ZkMessage): number {
  return 4 + m.proof.layers.reduce((a, l) => a + 4 + 16 * (1 + l.rounds.flat().length + 3), 0);
}

test("fuzzed v3-zk bytes: truncations and byte mutations raise only V3DecodeError, and the verifiers return a verdict", () => {
  const u = prepareV3(OpKind.Update, { depth: DEPTH });
  const { updates, rules } = blockFixture(DEPTH, 2);
  const block = proveBlockV3(u, updates, { rules, zk: true });
  let verified = 0;
  const deadline = Date.now() + 30_000;
  fc.assert(
    fc.property(
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom("cut", "byte"),
      fc.boolean(),
      (at, value, how, isBlock) => {
        const source = isBlock ? block : BYTES;
        let b: Uint8Array;
        if (how === "byte") {
          b = source.slice();
          const i = at % b.length;
          b[i] = b[i] === value ? value ^ 1 : value;
        } else b = source.slice(0, at % source.length);
        let decoded = true;
        try {
          decodeV3ZkMessage(b);
        } catch (e) {
          assert.ok(e instanceof V3DecodeError, String(e));
          decoded = false;
        }
        if (decoded && Date.now() > deadline) return;
        if (decoded) verified++;
        const v = verifyAggregateV3(p, statements, b);
        assert.equal(v.ok, false, `${how} at ${at % source.length}`);
      },
    ),
    { numRuns: 250, seed: 0x2e4b },
  );
  assert.ok(verified > 0, "some mutations decode and reach the verifier's later checks");
});

test("the layout of f: each layer's lanes in aligned segments after the committed halves, largest first, f the least power of two; room for the random lanes", () => {
  const layout = p.compiled.layout;
  // docs/profile-v3.md §11.5's example: d48 membership, one operation
  const d48 = prepareV3(OpKind.Membership, { depth: 48 });
  const c = d48.compiled.circuit;
  const z = v3ZkVectorLayout(
    d48.compiled.layout,
    c.layers.map((_, i) => inputBitsOf(c, i)),
    0,
  );
  // 31 layers of n_x = 11: 1 + (10·4 + 7) + (10·2 + 3) + 4 = 75 coefficients, 300 lanes = 256 + 32 + 8 + 4;
  // 1,024 + 31·300 = 10,324 lanes: f has 2^14 values
  assert.deepEqual({ m: z.committedBits, o: z.maskOffset, mz: z.vectorBits }, { m: 10, o: 1024, mz: 14 });
  assert.equal(z.segments.length, 31);
  assert.deepEqual(
    z.segments[0]!.map((s) => [s.lanes, s.first]),
    [
      [256, 0],
      [32, 256],
      [8, 288],
      [4, 296],
    ],
  );
  // largest first, ties in layer order: layer i's 256 lanes at 1,024 + 256·i, its 32 after all 31·256
  assert.deepEqual(
    z.segments[1]!.map((s) => s.offset),
    [1024 + 256, 1024 + 31 * 256 + 32, 1024 + 31 * 288 + 8, 1024 + 31 * 296 + 4],
  );
  // every segment is aligned and no two overlap, all past the committed halves and inside f
  const all = z.segments.flat().sort((a, b) => a.offset - b.offset);
  all.forEach((s, i) => {
    assert.equal(s.offset % s.lanes, 0);
    assert.ok(s.offset >= 2 ** z.committedBits);
    if (i > 0) assert.equal(all[i - 1]!.offset + all[i - 1]!.lanes, s.offset);
  });
  assert.ok(all.at(-1)!.offset + all.at(-1)!.lanes <= 2 ** z.vectorBits);
  // n_x = 9: 63 coefficients, 252 = 128 + 64 + 32 + 16 + 8 + 4 lanes; m = 8, o = 256: four layers fill
  // 256 + 4·252 = 1,264 lanes (2^11); a segment longer than 2^m starts the masks at its own length
  const small = v3ZkVectorLayout({ ...layout, inputBits: 9 }, [9, 9, 9, 9], 0);
  assert.deepEqual([small.maskOffset, small.vectorBits], [256, 11]);
  assert.deepEqual(
    small.segments[0]!.map((s) => s.lanes),
    [128, 64, 32, 16, 8, 4],
  );
  const wide = v3ZkVectorLayout({ ...layout, inputBits: 6 }, [11], 0);
  assert.deepEqual([wide.maskOffset, wide.vectorBits], [256, 10]);
  // two unread lanes are enough, one is not
  assert.doesNotThrow(() => v3ZkVectorLayout({ ...layout, committedUsed: layout.half - 2 }, [9], 0));
  assert.throws(
    () => v3ZkVectorLayout({ ...layout, committedUsed: layout.half - 1 }, [9], 0),
    (e: unknown) => e instanceof SyncError && e.code === "ZK_UNSUPPORTED",
  );
});

test("a v3-zk proof too large for the set's hiding commitment is refused before the commitment; the provers report their phases", () => {
  const u = prepareV3(OpKind.Update, { depth: 48 });
  const many = Array.from({ length: 1024 }, (_, i) => goldenFixture(OpKind.Update, 48, BigInt(i + 1)));
  // 2^22 values: the rate-1/4 default set hides them in the layout top-block (its limit), not with f′ one variable larger.
  assert.throws(
    () => proveAggregateV3(u, many, { zk: true, hidingLayout: "extra-variable" }),
    (e: unknown) =>
      e instanceof SyncError && e.code === "ZK_UNSUPPORTED" && /2\^22/.test(e.message) && /2\^21/.test(e.message),
  );
  assert.throws(
    () => proveAggregateV3(u, many, { zk: true, hidingLayout: "sideways" as never }),
    (e: unknown) => e instanceof SyncError && e.code === "ZK_UNSUPPORTED",
  );
  let t: V3Timings | undefined;
  proveAggregateV3(p, requests.slice(0, 1), { zk: true, onTimings: (x) => (t = x) });
  assert.ok(t !== undefined && t.operations === 1 && t.copies === 1);
  for (const k of ["witnessMs", "commitMs", "evaluateMs", "gkrMs", "openMs", "encodeMs"] as const)
    assert.ok(t[k] >= 0 && t[k] < 60_000, `${k} = ${t[k]}`);
});

test("inner-proof-v3zk: layers of 60 rounds (n = 30) and of 4 (n = 2) are written and read; a message ending inside a layer is OversizedCount", () => {
  const zero: [number, number, number, number] = [0, 0, 0, 0];
  const rounds = zkRoundDegrees(30).map((d) => Array.from({ length: d + 1 }, () => zero));
  const layer = { maskSum: zero, rounds, evalX: zero, evalY: zero, maskValue: zero };
  const big = encodeV3ZkMessage({ ...M, proof: { layers: [layer] } });
  assert.equal(decodeV3ZkMessage(big).proof.layers[0]!.rounds.length, 60);
  // and the smallest, 4 rounds (n = 2)
  const small = { ...layer, rounds: zkRoundDegrees(2).map((d) => Array.from({ length: d + 1 }, () => zero)) };
  assert.equal(
    decodeV3ZkMessage(encodeV3ZkMessage({ ...M, proof: { layers: [small] } })).proof.layers[0]!.rounds.length,
    4,
  );
  const layerCountAt = 65 + 8 * M.statementChecks.length + 4 + M.commitment.length;
  const cut = BYTES.slice(0, layerCountAt + 4 + 4 + 200);
  const v = new DataView(cut.buffer);
  v.setUint32(13, cut.length, true);
  v.setUint32(layerCountAt, 1, true);
  assert.throws(
    () => decodeV3ZkMessage(cut),
    (e: unknown) => e instanceof V3DecodeError && e.code === "OversizedCount" && /round count/.test(e.message),
  );
});
