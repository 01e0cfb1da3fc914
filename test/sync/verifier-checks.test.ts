/**
 * Every check of the composed verifier (src/sync/verify.ts, src/sync/encoded.ts) guarded by a
 * forged proof that only that check rejects, with the specific rejection code asserted. Where a
 * check is the only thing standing between a false statement and ACCEPT, the test says so: the
 * forgery is built so that removing the check would accept it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, extEq, EXT_ONE, type Ext } from "../../src/field/extension.js";
import { decodeProof } from "../../src/codec/decode.js";
import { encodeProof } from "../../src/codec/encode.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { TOMBSTONE, occupied } from "../../src/smt/leaf.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { buildInputVectorFor } from "../../src/smt/witness.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import type { PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared, type SyncResult } from "../../src/sync/prove.js";
import { type SyncVerdict, verifyPrepared, verifySync } from "../../src/sync/verify.js";
import { OpKind, type PublicInputs } from "../../src/statement/types.js";
import {
  DEPTH,
  KINDS,
  endCheckValue,
  endCheckViews,
  fixture,
  honest,
  prepared,
  proveClaimingZeroOutputs,
  solveEvalY,
  withLastEvals,
} from "../support/forge.js";

const codeOf = (v: SyncVerdict): string => (v.ok ? "ACCEPT" : v.code);

function withPub(request: OpRequest, change: Partial<PublicInputs>): OpRequest {
  return { ...request, publicInputs: { ...request.publicInputs, ...change } };
}

/** The same request with a different first sibling: same public inputs, another input vector. */
function otherWitness(request: OpRequest): OpRequest {
  const siblings = request.witness.siblings.map((s) => s.slice());
  siblings[0]![0] = (siblings[0]![0]! + 1) % 0x7f000001;
  return { ...request, witness: { ...request.witness, siblings } };
}

function inputOf(prep: PreparedSync, request: OpRequest): Uint32Array {
  return buildInputVectorFor(prep.compiled.layout, prep.config.leafMaxFields, request);
}

test("baseline: honest proofs of every kind are accepted by every entry point", () => {
  for (const kind of KINDS) {
    const prep = prepared(kind);
    const request = fixture(kind);
    const result = honest(kind);
    assert.deepEqual(verifyPrepared(prep, request, result), { ok: true });
    assert.deepEqual(verifyEncoded(prep, request, encodeSyncResult(prep, result)), { ok: true });
    assert.equal(verifySync(request, result, { depth: DEPTH }), true);
  }
});

test("step 0: a request of another kind, or none, is WRONG_KIND", () => {
  const prep = prepared(OpKind.NonMembership);
  assert.equal(codeOf(verifyPrepared(prep, fixture(OpKind.Membership), honest(OpKind.Membership))), "WRONG_KIND");
  assert.equal(codeOf(verifyPrepared(prep, null as never, honest(OpKind.NonMembership))), "WRONG_KIND");
  assert.equal(codeOf(verifyPrepared(prep, {} as never, honest(OpKind.NonMembership))), "WRONG_KIND");
  // A membership proof checked by the membership circuit for a non-membership request: kind first.
  assert.equal(
    codeOf(verifyPrepared(prepared(OpKind.Membership), fixture(OpKind.NonMembership), honest(OpKind.Membership))),
    "WRONG_KIND",
  );
});

test("step 1: an honest proof relabelled with other public inputs (each of the five fields) is PUBLIC_INPUTS_MISMATCH", () => {
  const kind = OpKind.Update;
  const prep = prepared(kind);
  const request = fixture(kind);
  const other = fixture(OpKind.Membership).publicInputs;
  const changes: Partial<PublicInputs>[] = [
    { oldRoot: other.valueDigest },
    { newRoot: other.valueDigest },
    { opKindTag: 0 },
    { assetId: request.publicInputs.assetId + 1n },
    { valueDigest: other.valueDigest },
  ];
  for (const change of changes) {
    const result = honest(kind);
    const relabelled: SyncResult = { ...result, publicInputs: { ...result.publicInputs, ...change } };
    assert.equal(
      codeOf(verifyPrepared(prep, request, relabelled)),
      "PUBLIC_INPUTS_MISMATCH",
      JSON.stringify(Object.keys(change)),
    );
    // The same relabelling in bytes, against the original request (the codec refuses a statement
    // op kind that differs from the identity's).
    if (change.opKindTag === undefined)
      assert.equal(codeOf(verifyEncoded(prep, request, encodeSyncResult(prep, relabelled))), "PUBLIC_INPUTS_MISMATCH");
  }
});

test("step 1: results that are not objects with public inputs are PUBLIC_INPUTS_MISMATCH", () => {
  const prep = prepared(OpKind.Membership);
  const request = fixture(OpKind.Membership);
  const good = honest(OpKind.Membership);
  for (const result of [
    null,
    undefined,
    0,
    "proof",
    { proof: good.proof },
    { publicInputs: null, proof: good.proof },
  ]) {
    assert.equal(codeOf(verifyPrepared(prep, request, result as never)), "PUBLIC_INPUTS_MISMATCH", String(result));
  }
  // A function carrying the fields of an honest result is not a result object either.
  const fn = Object.assign(() => undefined, good);
  assert.equal(codeOf(verifyPrepared(prep, request, fn as never)), "PUBLIC_INPUTS_MISMATCH");
});

test("steps 2-7: honest GKR proofs of statements the circuit cannot see are rejected by the native checks", () => {
  const m = fixture(OpKind.Membership);
  const n = fixture(OpKind.NonMembership);
  const u = fixture(OpKind.Update);
  if (m.operation.kind !== OpKind.Membership || u.operation.kind !== OpKind.Update) throw new Error("fixture kinds");
  const mLeaf = m.operation.leaf;
  const cases: [string, OpRequest, string][] = [
    // The tag in the transcript and the identity says non-membership; the circuit proves membership.
    ["op kind tag", withPub(m, { opKindTag: 1 }), "OP_KIND_MISMATCH"],
    ["asset id", withPub(m, { assetId: 2n }), "ASSET_ID_MISMATCH"],
    // A read-only operation that claims the root moved: new_root is not an input of the circuit.
    ["root changed", withPub(m, { newRoot: u.publicInputs.newRoot }), "ROOT_CHANGED"],
    // Key 5 = 0b101 aliases key 1 in a depth-2 tree: the circuit sees key bits 0..1 only.
    [
      "key out of range",
      { ...withPub(m, { assetId: 5n }), operation: { ...m.operation, key: 5n } },
      "KEY_OUT_OF_RANGE",
    ],
    ["value digest (membership)", withPub(m, { valueDigest: u.publicInputs.valueDigest }), "VALUE_DIGEST_MISMATCH"],
    ["value digest (non-membership)", withPub(n, { valueDigest: m.publicInputs.valueDigest }), "VALUE_DIGEST_MISMATCH"],
    ["value digest (update)", withPub(u, { valueDigest: m.publicInputs.valueDigest }), "VALUE_DIGEST_MISMATCH"],
    ["witness not absent", { ...n, witness: { ...n.witness, leaf: mLeaf } }, "WITNESS_NOT_ABSENT"],
    // The update circuit reads old_leaf, never the witness leaf.
    ["witness not old leaf", { ...u, witness: { ...u.witness, leaf: TOMBSTONE } }, "WITNESS_NOT_OLD_LEAF"],
    ["malformed asset id", withPub(m, { assetId: -1n }), "MALFORMED_REQUEST"],
  ];
  for (const [name, request, code] of cases) {
    const kind = request.operation.kind;
    const prep = prepared(kind);
    const result = provePrepared(prep, request);
    assert.equal(codeOf(verifyPrepared(prep, request, result)), code, name);
    if (code !== "OP_KIND_MISMATCH" && code !== "MALFORMED_REQUEST")
      assert.equal(codeOf(verifyEncoded(prep, request, encodeSyncResult(prep, result))), code, name);
  }
});

test("steps 2-7 against the strongest forgeries: without the native check these would be accepted", () => {
  // The GKR proof and the input claims hold for these invalid statements; only the native check rejects.
  const m = fixture(OpKind.Membership);
  const u = fixture(OpKind.Update);
  if (m.operation.kind !== OpKind.Membership || u.operation.kind !== OpKind.Update) throw new Error("fixture kinds");
  const aliased: OpRequest = { ...withPub(m, { assetId: 5n }), operation: { ...m.operation, key: 5n } };
  const wrongWitness: OpRequest = { ...u, witness: { ...u.witness, leaf: TOMBSTONE } };
  const moved = withPub(m, { newRoot: u.publicInputs.newRoot });
  for (const request of [aliased, wrongWitness, moved]) {
    const prep = prepared(request.operation.kind);
    const result = provePrepared(prep, request);
    const views = endCheckViews(prep, request, result);
    assert.equal(views.length, prep.shape.layerWidthBits.length, "the GKR proof passes every layer");
    const claim = views[views.length - 1]!;
    const input = inputOf(prep, request);
    const last = result.proof.layers[result.proof.layers.length - 1]!;
    assert.ok(
      extEq(mleEvalBase(input, claim.x), last.evalX) && extEq(mleEvalBase(input, claim.y), last.evalY),
      "the input claims hold",
    );
  }
});

test("step 5: an unhashable membership leaf is LEAF_ENCODING, not an exception", () => {
  const prep = prepared(OpKind.Membership);
  const m = fixture(OpKind.Membership);
  if (m.operation.kind !== OpKind.Membership) throw new Error("fixture kind");
  const big = occupied(new Array(40).fill(7), m.operation.leaf.identity);
  const request: OpRequest = { ...m, operation: { ...m.operation, leaf: big }, witness: { ...m.witness, leaf: big } };
  assert.equal(codeOf(verifyPrepared(prep, request, honest(OpKind.Membership))), "LEAF_ENCODING");
});

test("step 8: a statement-valid request whose input vector cannot be built is INPUT_VECTOR", () => {
  const prep = prepared(OpKind.Membership);
  const m = fixture(OpKind.Membership);
  const extra: OpRequest = {
    ...m,
    witness: { ...m.witness, siblings: [...m.witness.siblings, m.witness.siblings[0]!] },
  };
  const v = verifyPrepared(prep, extra, honest(OpKind.Membership));
  assert.equal(codeOf(v), "INPUT_VECTOR");
  assert.ok(!v.ok && /input vector/.test(v.reason));
});

test("step 9: GKR rejections carry the GKR_ prefix and the GKR code", () => {
  const kind = OpKind.Membership;
  const prep = prepared(kind);
  const request = fixture(kind);
  const r = honest(kind);
  const noLayers: SyncResult = { ...r, proof: { layers: r.proof.layers.slice(1) } };
  assert.equal(codeOf(verifyPrepared(prep, request, noLayers)), "GKR_LAYER_COUNT");
  const notProof: SyncResult = { ...r, proof: null as never };
  assert.equal(codeOf(verifyPrepared(prep, request, notProof)), "GKR_MALFORMED_PROOF");
});

test("step 9: the honest GKR proof of a false statement, presented as a proof of zero outputs, is caught by the layer-0 round sum", () => {
  // Wrong sibling: the path no longer leads to old_root, the circuit's outputs are not zero. Every
  // later round, layer and the input claims are those of an honest proof: without the round-sum
  // check this forgery would be accepted.
  for (const kind of KINDS) {
    const prep = prepared(kind);
    const request = otherWitness(fixture(kind));
    const forged = proveClaimingZeroOutputs(prep, request);
    const v = verifyPrepared(prep, request, forged);
    assert.equal(codeOf(v), "GKR_ROUND_SUM_MISMATCH", `kind ${kind}`);
    assert.ok(!v.ok && /layer 0: round 0/.test(v.reason), v.ok ? "" : v.reason);
  }
});

test("step 9: final evaluations replaced by those of another input are caught by the last layer's end check", () => {
  // The forger knows the other input vector and reports its true MLE values at x*, y*: the input
  // claims then hold for the other witness, and only the end check of layer D-1 rejects.
  for (const kind of KINDS) {
    const prep = prepared(kind);
    const good = fixture(kind);
    const request = otherWitness(good);
    const result = honest(kind);
    const views = endCheckViews(prep, good, result);
    const last = views[views.length - 1]!;
    const input = inputOf(prep, request);
    const forged: SyncResult = {
      ...result,
      proof: withLastEvals(result.proof, mleEvalBase(input, last.x), mleEvalBase(input, last.y)),
    };
    const v = verifyPrepared(prep, request, forged);
    assert.equal(codeOf(v), "GKR_END_CHECK_FAILED", `kind ${kind}`);
    assert.ok(!v.ok && new RegExp(`layer ${views.length - 1}:`).test(v.reason));
    assert.equal(codeOf(verifyEncoded(prep, request, encodeSyncResult(prep, forged))), "GKR_END_CHECK_FAILED");
  }
});

test("step 10: an honest proof for another witness with the same public inputs is INPUT_CLAIM_X", () => {
  for (const kind of KINDS) {
    const prep = prepared(kind);
    const request = otherWitness(fixture(kind));
    assert.equal(codeOf(verifyPrepared(prep, request, honest(kind))), "INPUT_CLAIM_X", `kind ${kind}`);
  }
});

test("step 10: eval_x of another input with eval_y solved from the end check passes GKR and is INPUT_CLAIM_Y", () => {
  for (const kind of KINDS) {
    const prep = prepared(kind);
    const good = fixture(kind);
    const request = otherWitness(good);
    const result = honest(kind);
    const views = endCheckViews(prep, good, result);
    const view = views[views.length - 1]!;
    const honestLast = result.proof.layers[result.proof.layers.length - 1]!;
    const value = endCheckValue(view, honestLast.evalX, honestLast.evalY);
    const input = inputOf(prep, request);
    const evalX = mleEvalBase(input, view.x);
    const evalY = solveEvalY(view, evalX, value);
    assert.ok(extEq(endCheckValue(view, evalX, evalY), value));
    assert.ok(!extEq(evalY, mleEvalBase(input, view.y)), "the solved eval_y is not the other input's");
    const forged: SyncResult = { ...result, proof: withLastEvals(result.proof, evalX, evalY) };
    assert.equal(codeOf(verifyPrepared(prep, request, forged)), "INPUT_CLAIM_Y", `kind ${kind}`);
    assert.equal(codeOf(verifyEncoded(prep, request, encodeSyncResult(prep, forged))), "INPUT_CLAIM_Y");
    // With the honest request the same forgery fails at eval_x instead.
    assert.equal(codeOf(verifyPrepared(prep, good, forged)), "INPUT_CLAIM_X");
  }
});

test("a faulty prepared circuit: library errors and type/range errors are MALFORMED_REQUEST, anything else propagates", () => {
  const prep = prepared(OpKind.Membership);
  const request = fixture(OpKind.Membership);
  const result = honest(OpKind.Membership);
  // CompileError from the configuration, RangeError from the output width, TypeError from a missing shape.
  const badConfig = { ...prep, config: { ...prep.config, depth: 0 } } as PreparedSync;
  assert.equal(codeOf(verifyPrepared(badConfig, request, result)), "MALFORMED_REQUEST");
  const wide = {
    ...prep,
    shape: { ...prep.shape, layerWidthBits: [60, ...prep.shape.layerWidthBits.slice(1)] },
  } as PreparedSync;
  assert.equal(codeOf(verifyPrepared(wide, request, result)), "MALFORMED_REQUEST");
  const noShape = { ...prep, shape: undefined } as unknown as PreparedSync;
  assert.equal(codeOf(verifyPrepared(noShape, request, result)), "MALFORMED_REQUEST");
  const typeErrorLayout = {
    ...prep,
    compiled: {
      ...prep.compiled,
      get layout(): never {
        throw new TypeError("no layout");
      },
    },
  } as PreparedSync;
  assert.equal(codeOf(verifyPrepared(typeErrorLayout, request, result)), "MALFORMED_REQUEST");
  const boomLayout = {
    ...prep,
    compiled: {
      ...prep.compiled,
      get layout(): never {
        throw new Error("layout unavailable");
      },
    },
  } as PreparedSync;
  assert.throws(() => verifyPrepared(boomLayout, request, result), /layout unavailable/);
  const boomCircuit = {
    ...prep,
    get circuit(): never {
      throw new Error("circuit unavailable");
    },
  } as PreparedSync;
  assert.throws(() => verifyPrepared(boomCircuit, request, result), /circuit unavailable/);
});

test("verifySync: false for forgeries and for configurations that do not prepare", () => {
  const request = otherWitness(fixture(OpKind.Membership));
  assert.equal(verifySync(request, honest(OpKind.Membership), { depth: DEPTH }), false);
  assert.equal(verifySync(fixture(OpKind.Membership), honest(OpKind.Membership), { depth: 0 }), false);
  assert.equal(verifySync(fixture(OpKind.Membership), honest(OpKind.Membership), { depth: DEPTH + 1 }), false);
});

test("encoded: decoder failures keep the decoder's code; a non-byte-array error propagates", () => {
  const prep = prepared(OpKind.Membership);
  const request = fixture(OpKind.Membership);
  const bytes = encodeSyncResult(prep, honest(OpKind.Membership));
  const v = verifyEncoded(prep, request, bytes.subarray(0, bytes.length - 1));
  assert.equal(codeOf(v), "DeclaredLengthMismatch");
  assert.ok(!v.ok && /declares/.test(v.reason));
  assert.equal(codeOf(verifyEncoded(prep, request, "bytes" as never)), "NotBytes");
  // A proxy passes instanceof Uint8Array but its byteLength getter throws a TypeError.
  assert.throws(() => verifyEncoded(prep, request, new Proxy(bytes, {})), TypeError);
});

test("encoded: a proof made for another circuit is IDENTITY_MISMATCH before any proof check", () => {
  const kind = OpKind.Membership;
  const prep = prepared(kind);
  const request = fixture(kind);
  const result = honest(kind);
  const id = prep.identity;
  const cases: [string, Uint8Array][] = [
    ["kind", encodeSyncResult(prepared(OpKind.NonMembership), honest(OpKind.NonMembership))],
    [
      "depth",
      encodeProof({ identity: { ...id, depth: DEPTH + 1 }, publicInputs: result.publicInputs, proof: result.proof }),
    ],
    [
      "leaf bound",
      encodeProof({ identity: { ...id, leafMaxFields: 32 }, publicInputs: result.publicInputs, proof: result.proof }),
    ],
    [
      "commitment",
      encodeProof({
        identity: {
          ...id,
          commitment: Uint32Array.from(id.commitment, (c, i) => (i === 3 ? (c + 1) % 0x7f000001 : c)),
        },
        publicInputs: result.publicInputs,
        proof: result.proof,
      }),
    ],
  ];
  for (const [name, bytes] of cases) {
    const v = verifyEncoded(prep, request, bytes);
    assert.equal(codeOf(v), "IDENTITY_MISMATCH", name);
    assert.ok(!v.ok && /another circuit/.test(v.reason));
  }
  // A prepared circuit claiming another circuit version or strategy: identities differ the other way round.
  const honestBytes = encodeSyncResult(prep, result);
  for (const change of [{ circuitVersion: 2 }, { leafEncodingVersion: 2 }, { strategyId: 1 }]) {
    const other = { ...prep, identity: { ...id, ...change } } as PreparedSync;
    assert.equal(codeOf(verifyEncoded(other, request, honestBytes)), "IDENTITY_MISMATCH", JSON.stringify(change));
  }
  // The decoded public inputs and proof are the ones verified.
  const decoded = decodeProof(honestBytes);
  assert.deepEqual(verifyPrepared(prep, request, { publicInputs: decoded.publicInputs, proof: decoded.proof }), {
    ok: true,
  });
});

test("encoded: the forged evaluations survive encoding and are rejected with the same codes", () => {
  const kind = OpKind.NonMembership;
  const prep = prepared(kind);
  const request = fixture(kind);
  const result = honest(kind);
  const last = result.proof.layers[result.proof.layers.length - 1]!;
  const bumped: Ext = extAdd(last.evalY, EXT_ONE);
  const forged: SyncResult = { ...result, proof: withLastEvals(result.proof, last.evalX, bumped) };
  const code = codeOf(verifyEncoded(prep, request, encodeSyncResult(prep, forged)));
  assert.equal(code, codeOf(verifyPrepared(prep, request, forged)));
  assert.equal(code, "GKR_END_CHECK_FAILED");
});
