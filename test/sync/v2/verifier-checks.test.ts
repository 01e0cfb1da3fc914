/**
 * Every check of the profile v2 verifiers (src/sync/v2/verify.ts, encoded.ts,
 * statement-transcript.ts, aggregate.ts, block.ts) guarded by a forgery that only that check
 * rejects, with the rejection code asserted. Proofs are made with the transcripts written again
 * from docs/profile-v2.md (test/support/forge-v2.ts), so a verifier whose transcript drifts from
 * the spec rejects honest proofs. Where a check is the only thing between a false statement and
 * ACCEPT, the forgery is built so that removing the check would accept it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { extAdd, extEq, EXT_ONE, type Ext } from "../../../src/field/extension.js";
import { add } from "../../../src/field/koalabear.js";
import { decodeAggregateV2, decodeProofV2 } from "../../../src/codec/v2/decode.js";
import { encodeAggregateV2, encodeProofV2 } from "../../../src/codec/v2/encode.js";
import type { GkrProof, LayerProof } from "../../../src/gkr/proof.js";
import { mleEvalBase } from "../../../src/sumcheck/mle.js";
import { TOMBSTONE, occupied } from "../../../src/smt/leaf.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import { buildV2Input } from "../../../src/smt/v2/input.js";
import type { SyncResult } from "../../../src/sync/prove.js";
import { OpKind, type PublicInputs } from "../../../src/statement/types.js";
import type { SyncVerdict } from "../../../src/sync/verify.js";
import {
  proveAggregate,
  statementCheck,
  verifyAggregate,
  type AggregateVerdict,
} from "../../../src/sync/v2/aggregate.js";
import { proveBlock, updateRequestOf, verifyBlock } from "../../../src/sync/v2/block.js";
import { encodeV2, v2Identity, verifyEncodedV2 } from "../../../src/sync/v2/encoded.js";
import type { PreparedV2 } from "../../../src/sync/v2/prepared.js";
import { proveV2 } from "../../../src/sync/v2/prove.js";
import { assetIdLimbs, v2StatementTranscript } from "../../../src/sync/v2/statement-transcript.js";
import { verifyV2 } from "../../../src/sync/v2/verify.js";
import { cloneProof, endCheckValue, solveEvalY } from "../../support/forge.js";
import {
  DEPTH_V2,
  KINDS_V2,
  aggregateInput,
  copyBitsOf,
  endCheckViewsAggregate,
  endCheckViewsV2,
  fixtureV2,
  paddedV2,
  preparedV2,
  proveAggregateWith,
  proveV2With,
  specStatementCheck,
  specTranscript,
} from "../../support/forge-v2.js";

const codeOf = (v: SyncVerdict | AggregateVerdict): string => (v.ok ? "ACCEPT" : v.code);
const opOf = (v: AggregateVerdict): number | undefined => (v.ok ? undefined : v.operation);

function withPub(request: OpRequest, change: Partial<PublicInputs>): OpRequest {
  return { ...request, publicInputs: { ...request.publicInputs, ...change } };
}

/** The same request with a different first sibling: same public inputs, another input vector. */
function otherWitness(request: OpRequest): OpRequest {
  const siblings = request.witness.siblings.map((s) => s.slice());
  siblings[0]![0] = (siblings[0]![0]! + 1) % 0x7f000001;
  return { ...request, witness: { ...request.witness, siblings } };
}

function withLast(proof: GkrProof, evalX: Ext, evalY: Ext): GkrProof {
  const p = cloneProof(proof);
  const last = p.layers.length - 1;
  (p.layers as LayerProof[])[last] = { ...p.layers[last]!, evalX, evalY };
  return p;
}

const honestCache = new Map<OpKind, SyncResult>();
function honest(kind: OpKind): SyncResult {
  let r = honestCache.get(kind);
  if (!r) honestCache.set(kind, (r = proveV2With(preparedV2(kind), fixtureV2(kind))));
  return { publicInputs: { ...r.publicInputs }, proof: cloneProof(r.proof) };
}

// ---------------------------------------------------------------- one operation (verify.ts, encoded.ts)

test("baseline: proofs made with the spec transcript are accepted, and equal the library prover's", () => {
  for (const kind of KINDS_V2) {
    const p = preparedV2(kind);
    const request = fixtureV2(kind);
    const result = honest(kind);
    assert.deepEqual(verifyV2(p, request, result), { ok: true });
    assert.deepEqual(verifyEncodedV2(p, request, encodeV2(p, result)), { ok: true });
    assert.deepEqual(encodeV2(p, proveV2(p, request)), encodeV2(p, result));
  }
});

test("§7: the statement transcript binds every statement field, the shape and the commitment in the spec's order", () => {
  const p = preparedV2(OpKind.Update);
  const pub = fixtureV2(OpKind.Update).publicInputs;
  const zeros = new Uint32Array(2 ** p.shape.layerWidthBits[0]!);
  const sample = (t: { sampleExt(): Ext }) => t.sampleExt();
  assert.deepEqual(
    sample(v2StatementTranscript(p.compiled, p.commitment, pub, zeros)),
    sample(specTranscript(p, pub, zeros)),
  );
  const other = fixtureV2(OpKind.Membership, 2n).publicInputs;
  const variants: Partial<PublicInputs>[] = [
    { oldRoot: other.oldRoot },
    { newRoot: other.newRoot },
    { opKindTag: 0 },
    { assetId: pub.assetId + (1n << 48n) },
    { valueDigest: other.valueDigest },
  ];
  const base = sample(v2StatementTranscript(p.compiled, p.commitment, pub, zeros));
  for (const v of variants)
    assert.notDeepEqual(
      sample(v2StatementTranscript(p.compiled, p.commitment, { ...pub, ...v }, zeros)),
      base,
      JSON.stringify(Object.keys(v)),
    );
  const ones = zeros.map(() => 1);
  assert.notDeepEqual(sample(v2StatementTranscript(p.compiled, p.commitment, pub, ones)), base);
  assert.deepEqual(assetIdLimbs((1n << 64n) - 2n), [0xfffe, 0xffff, 0xffff, 0xffff]);
  assert.deepEqual(assetIdLimbs(0x0001_0002_0003_0004n), [4, 3, 2, 1]);
});

test("step 0: a request of another kind, or none, is WRONG_KIND", () => {
  const p = preparedV2(OpKind.NonMembership);
  assert.equal(codeOf(verifyV2(p, fixtureV2(OpKind.Membership), honest(OpKind.Membership))), "WRONG_KIND");
  assert.equal(codeOf(verifyV2(p, null as never, honest(OpKind.NonMembership))), "WRONG_KIND");
  assert.equal(codeOf(verifyV2(p, {} as never, honest(OpKind.NonMembership))), "WRONG_KIND");
});

test("step 1: an honest proof relabelled with other public inputs (each field), or not a result, is PUBLIC_INPUTS_MISMATCH", () => {
  const kind = OpKind.Update;
  const p = preparedV2(kind);
  const request = fixtureV2(kind);
  const other = fixtureV2(OpKind.Membership, 2n).publicInputs;
  for (const change of [
    { oldRoot: other.oldRoot },
    { newRoot: other.newRoot },
    { opKindTag: 0 },
    { assetId: request.publicInputs.assetId + 1n },
    { valueDigest: other.valueDigest },
  ] as Partial<PublicInputs>[]) {
    const r = honest(kind);
    assert.equal(
      codeOf(verifyV2(p, request, { ...r, publicInputs: { ...r.publicInputs, ...change } })),
      "PUBLIC_INPUTS_MISMATCH",
      JSON.stringify(Object.keys(change)),
    );
  }
  for (const result of [
    null,
    undefined,
    0,
    "proof",
    { proof: honest(kind).proof },
    { publicInputs: null, proof: honest(kind).proof },
  ]) {
    assert.equal(codeOf(verifyV2(p, request, result as never)), "PUBLIC_INPUTS_MISMATCH", String(result));
  }
});

const nativeCases = (): [string, OpRequest, string][] => {
  const m = fixtureV2(OpKind.Membership);
  const n = fixtureV2(OpKind.NonMembership);
  const u = fixtureV2(OpKind.Update);
  if (m.operation.kind !== OpKind.Membership || u.operation.kind !== OpKind.Update) throw new Error("fixture kinds");
  return [
    ["op kind tag", withPub(m, { opKindTag: 1 }), "OP_KIND_MISMATCH"],
    ["asset id", withPub(m, { assetId: 2n }), "ASSET_ID_MISMATCH"],
    ["root changed", withPub(m, { newRoot: u.publicInputs.newRoot }), "ROOT_CHANGED"],
    // key 5 = 0b101 aliases key 1 in a depth-2 tree: the circuit sees key bits 0..1 only
    [
      "key out of range",
      { ...withPub(m, { assetId: 5n }), operation: { ...m.operation, key: 5n } },
      "KEY_OUT_OF_RANGE",
    ],
    ["value digest (membership)", withPub(m, { valueDigest: u.publicInputs.valueDigest }), "VALUE_DIGEST_MISMATCH"],
    ["value digest (update)", withPub(u, { valueDigest: m.publicInputs.valueDigest }), "VALUE_DIGEST_MISMATCH"],
    ["witness not absent", { ...n, witness: { ...n.witness, leaf: m.operation.leaf } }, "WITNESS_NOT_ABSENT"],
    // the update circuit reads old_leaf, never the witness leaf
    ["witness not old leaf", { ...u, witness: { ...u.witness, leaf: TOMBSTONE } }, "WITNESS_NOT_OLD_LEAF"],
    ["malformed asset id", withPub(m, { assetId: -1n }), "MALFORMED_REQUEST"],
  ];
};

test("steps 2-7: proofs of statements the circuit cannot see are rejected by the native checks", () => {
  for (const [name, request, code] of nativeCases()) {
    const p = preparedV2(request.operation.kind);
    let result: SyncResult;
    try {
      result = proveV2With(p, request);
    } catch {
      result = honest(request.operation.kind);
    }
    assert.equal(codeOf(verifyV2(p, request, result)), code, name);
  }
  // the strongest forgeries: GKR and both input claims hold, only the native check rejects
  const m = fixtureV2(OpKind.Membership);
  const u = fixtureV2(OpKind.Update);
  if (m.operation.kind !== OpKind.Membership) throw new Error("fixture kind");
  for (const request of [
    { ...withPub(m, { assetId: 5n }), operation: { ...m.operation, key: 5n } },
    { ...u, witness: { ...u.witness, leaf: TOMBSTONE } },
    withPub(m, { newRoot: u.publicInputs.newRoot }),
  ] as OpRequest[]) {
    const p = preparedV2(request.operation.kind);
    const result = proveV2With(p, request);
    const views = endCheckViewsV2(p, request.publicInputs, result.proof);
    assert.equal(views.length, p.shape.layerWidthBits.length, "the GKR proof passes every layer");
    const claim = views[views.length - 1]!;
    const input = buildV2Input(p.compiled.layout, request);
    const last = result.proof.layers[result.proof.layers.length - 1]!;
    assert.ok(
      extEq(mleEvalBase(input, claim.x), last.evalX) && extEq(mleEvalBase(input, claim.y), last.evalY),
      "the input claims hold",
    );
  }
});

test("step 8: a statement-valid request whose input vector cannot be built is INPUT_VECTOR", () => {
  const p = preparedV2(OpKind.Membership);
  const m = fixtureV2(OpKind.Membership);
  const extra: OpRequest = {
    ...m,
    witness: { ...m.witness, siblings: [...m.witness.siblings, m.witness.siblings[0]!] },
  };
  const v = verifyV2(p, extra, honest(OpKind.Membership));
  assert.equal(codeOf(v), "INPUT_VECTOR");
  assert.ok(!v.ok && /input vector/.test(v.reason));
});

test("step 9: the honest GKR proof of a false statement claimed as zero outputs is GKR_ROUND_SUM_MISMATCH at layer 0", () => {
  for (const kind of KINDS_V2) {
    const p = preparedV2(kind);
    const request = otherWitness(fixtureV2(kind));
    const v = verifyV2(p, request, proveV2With(p, request, { claimZero: true }));
    assert.equal(codeOf(v), "GKR_ROUND_SUM_MISMATCH", kind);
    assert.ok(!v.ok && /layer 0: round 0/.test(v.reason), v.ok ? "" : v.reason);
  }
  const r = honest(OpKind.Membership);
  assert.equal(
    codeOf(
      verifyV2(preparedV2(OpKind.Membership), fixtureV2(OpKind.Membership), {
        ...r,
        proof: { layers: r.proof.layers.slice(1) },
      }),
    ),
    "GKR_LAYER_COUNT",
  );
});

test("step 9: a round polynomial shifted so its round sum still holds is caught at the next round", () => {
  const kind = OpKind.NonMembership;
  const p = preparedV2(kind);
  const request = fixtureV2(kind);
  const r = honest(kind);
  // g(X) + c·X·(X − 1) = g + c·(X² − X): same g(0) + g(1), another g(r)
  const layer = 3;
  const g = r.proof.layers[layer]!.rounds[0]!;
  const c: Ext = [5, 0, 0, 0];
  const minusC: Ext = [0x7f000001 - 5, 0, 0, 0];
  const shifted = [g[0]!, extAdd(g[1]!, minusC), extAdd(g[2]!, c), g[3]!, g[4]!] as Ext[];
  const proof = cloneProof(r.proof);
  (proof.layers[layer]!.rounds as Ext[][])[0] = shifted;
  const v = verifyV2(p, request, { ...r, proof });
  assert.equal(codeOf(v), "GKR_ROUND_SUM_MISMATCH");
  assert.ok(!v.ok && new RegExp(`layer ${layer}: round 1`).test(v.reason), v.ok ? "" : v.reason);
  assert.equal(codeOf(verifyEncodedV2(p, request, encodeV2(p, { ...r, proof }))), "GKR_ROUND_SUM_MISMATCH");
});

test("step 10: an honest proof for another witness with the same public inputs is INPUT_CLAIM_X; eval_x of it with eval_y solved is INPUT_CLAIM_Y", () => {
  for (const kind of KINDS_V2) {
    const p = preparedV2(kind);
    const good = fixtureV2(kind);
    const request = otherWitness(good);
    const result = honest(kind);
    assert.equal(codeOf(verifyV2(p, request, result)), "INPUT_CLAIM_X", kind);
    const view = endCheckViewsV2(p, good.publicInputs, result.proof).at(-1)!;
    const last = result.proof.layers.at(-1)!;
    const value = endCheckValue(view, last.evalX, last.evalY);
    const input = buildV2Input(p.compiled.layout, request);
    const evalX = mleEvalBase(input, view.x);
    const evalY = solveEvalY(view, evalX, value);
    assert.ok(!extEq(evalY, mleEvalBase(input, view.y)));
    const forged: SyncResult = { ...result, proof: withLast(result.proof, evalX, evalY) };
    assert.equal(codeOf(verifyV2(p, request, forged)), "INPUT_CLAIM_Y", kind);
    assert.equal(codeOf(verifyEncodedV2(p, request, encodeV2(p, forged))), "INPUT_CLAIM_Y");
    assert.equal(codeOf(verifyV2(p, good, forged)), "INPUT_CLAIM_X");
  }
});

test("a faulty prepared circuit: library, type and range errors are MALFORMED_REQUEST, anything else propagates", () => {
  const p = preparedV2(OpKind.Membership);
  const request = fixtureV2(OpKind.Membership);
  const result = honest(OpKind.Membership);
  const wide = { ...p, shape: { ...p.shape, layerWidthBits: [60, ...p.shape.layerWidthBits.slice(1)] } } as PreparedV2;
  assert.equal(codeOf(verifyV2(wide, request, result)), "MALFORMED_REQUEST");
  const noShape = { ...p, shape: undefined } as unknown as PreparedV2;
  assert.equal(codeOf(verifyV2(noShape, request, result)), "MALFORMED_REQUEST");
  const badConfig = { ...p, config: { ...p.config, depth: 0 } } as PreparedV2;
  assert.equal(codeOf(verifyV2(badConfig, request, result)), "MALFORMED_REQUEST");
  const boom = {
    ...p,
    compiled: {
      ...p.compiled,
      get layout(): never {
        throw new Error("layout unavailable");
      },
    },
  } as PreparedV2;
  assert.throws(() => verifyV2(boom, request, result), /layout unavailable/);
  assert.throws(() => verifyAggregate(boom, [request], proveAggregate(p, [request])), /layout unavailable/);
});

test("encoded: decoder failures are DECODE_<code>; a proof of another circuit is IDENTITY_MISMATCH before any proof check", () => {
  const kind = OpKind.Membership;
  const p = preparedV2(kind);
  const request = fixtureV2(kind);
  const result = honest(kind);
  const bytes = encodeV2(p, result);
  assert.equal(
    codeOf(verifyEncodedV2(p, request, bytes.subarray(0, bytes.length - 1))),
    "DECODE_DeclaredLengthMismatch",
  );
  assert.equal(codeOf(verifyEncodedV2(p, request, "bytes" as never)), "DECODE_NotBytes");
  const id = v2Identity(p);
  const other = preparedV2(kind, DEPTH_V2, 32);
  const cases: [string, Uint8Array][] = [
    ["kind", encodeV2(preparedV2(OpKind.NonMembership), honest(OpKind.NonMembership))],
    ["depth", encodeProofV2({ ...id, depth: DEPTH_V2 + 1 }, result.publicInputs, result.proof)],
    ["leaf bound", encodeProofV2({ ...id, leafMaxFields: 32 }, result.publicInputs, result.proof)],
    [
      "commitment",
      encodeProofV2(
        { ...id, commitment: Uint32Array.from(id.commitment, (c, i) => (i === 7 ? (c + 1) % 0x7f000001 : c)) },
        result.publicInputs,
        result.proof,
      ),
    ],
    ["other leaf bound's circuit", encodeV2(other, proveV2(other, request))],
  ];
  // the op kind alone changed (statement tag with it, as the decoder requires): identity, not step 1
  cases.push([
    "op kind only",
    encodeProofV2({ ...id, opKindTag: 1 }, { ...result.publicInputs, opKindTag: 1 }, result.proof),
  ]);
  for (const [name, b] of cases) assert.equal(codeOf(verifyEncodedV2(p, request, b)), "IDENTITY_MISMATCH", name);
  // a prepared circuit whose identity differs in any field from the honest bytes'
  for (const change of [{ depth: DEPTH_V2 + 1 }, { leafMaxFields: 30 }]) {
    const q = { ...p, config: { ...p.config, ...change } } as PreparedV2;
    assert.equal(codeOf(verifyEncodedV2(q, request, bytes)), "IDENTITY_MISMATCH", JSON.stringify(change));
  }
  const decoded = decodeProofV2(bytes);
  assert.deepEqual(verifyV2(p, request, { publicInputs: decoded.publicInputs, proof: decoded.proof }), { ok: true });
  // the decoded public inputs are the ones verified: relabelled bytes fail as step 1
  const relabelled = encodeProofV2(id, { ...result.publicInputs, assetId: 3n }, result.proof);
  assert.equal(codeOf(verifyEncodedV2(p, request, relabelled)), "PUBLIC_INPUTS_MISMATCH");
});

// ---------------------------------------------------------------- aggregates (aggregate.ts)

const aggKind = OpKind.Membership;
const aggRequests = (): OpRequest[] => [1n, 2n, 3n].map((k) => fixtureV2(aggKind, k));
let aggHonest: Uint8Array | null = null;
function honestAggregate(): Uint8Array {
  const p = preparedV2(aggKind);
  if (!aggHonest) aggHonest = proveAggregateWith(p, paddedV2(p, aggRequests()), 3);
  return aggHonest.slice();
}

test("aggregate baseline: the spec transcript, padding and statement checks are what the verifier expects; the library prover agrees", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  const bytes = honestAggregate();
  assert.deepEqual(verifyAggregate(p, rs, bytes), { ok: true });
  assert.deepEqual(proveAggregate(p, rs), bytes);
  for (const r of rs) assert.deepEqual(statementCheck(r.publicInputs), specStatementCheck(r.publicInputs));
  assert.deepEqual(
    statementCheck(withPub(rs[0]!, { assetId: (1n << 64n) - 1n }).publicInputs),
    specStatementCheck(withPub(rs[0]!, { assetId: (1n << 64n) - 1n }).publicInputs),
  );
  // one operation (K = 1) and a full batch (K = n = 4) as well
  for (const n of [1, 4]) {
    const list = [0n, 1n, 2n, 3n].slice(0, n).map((k) => fixtureV2(aggKind, k));
    assert.deepEqual(verifyAggregate(p, list, proveAggregateWith(p, paddedV2(p, list), n)), { ok: true }, `n = ${n}`);
  }
  assert.equal(copyBitsOf(3), 2);
});

test("aggregate: decoding, identity and operation count come first", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  const bytes = honestAggregate();
  assert.equal(codeOf(verifyAggregate(p, rs, bytes.subarray(0, bytes.length - 1))), "DECODE_DeclaredLengthMismatch");
  assert.equal(codeOf(verifyAggregate(p, rs, encodeV2(p, honest(aggKind)))), "DECODE_UnsupportedProofKind");
  const d = decodeAggregateV2(bytes);
  const id = d.identity;
  for (const change of [
    { opKindTag: 1 },
    { depth: DEPTH_V2 + 1 },
    { leafMaxFields: 30 },
    { commitment: Uint32Array.from(id.commitment, (c, i) => (i === 0 ? (c + 1) % 0x7f000001 : c)) },
  ]) {
    assert.equal(
      codeOf(verifyAggregate(p, rs, encodeAggregateV2({ ...id, ...change }, d.statementChecks, d.proof))),
      "IDENTITY_MISMATCH",
      JSON.stringify(Object.keys(change)),
    );
  }
  for (const change of [{ circuitVersion: 3 }, { leafEncodingVersion: 2 }, { layoutId: 1 }]) {
    // the encoder writes these from the identity; the decoder refuses them, the verifier never sees them
    const b = encodeAggregateV2({ ...id, ...change } as typeof id, d.statementChecks, d.proof);
    assert.match(codeOf(verifyAggregate(p, rs, b)), /^DECODE_Unsupported/, JSON.stringify(change));
  }
  const q = { ...p, config: { ...p.config, leafMaxFields: 30 } } as PreparedV2;
  assert.equal(codeOf(verifyAggregate(q, rs, bytes)), "IDENTITY_MISMATCH");
  // an operation dropped or added, or no list
  assert.equal(codeOf(verifyAggregate(p, rs.slice(0, 2), bytes)), "OPERATION_COUNT");
  assert.equal(codeOf(verifyAggregate(p, [...rs, rs[0]!], bytes)), "OPERATION_COUNT");
  assert.equal(codeOf(verifyAggregate(p, null as never, bytes)), "OPERATION_COUNT");
  assert.equal(codeOf(verifyAggregate(p, {} as never, bytes)), "OPERATION_COUNT");
});

test("aggregate: per operation in order, its kind, statement check and native checks, naming the operation", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  const bytes = honestAggregate();
  const v1 = verifyAggregate(p, [rs[0]!, fixtureV2(OpKind.Update), rs[2]!], bytes);
  assert.deepEqual([codeOf(v1), opOf(v1)], ["WRONG_KIND", 1]);
  const v0 = verifyAggregate(p, [null as never, ...rs.slice(1)], bytes);
  assert.deepEqual([codeOf(v0), opOf(v0)], ["WRONG_KIND", 0]);
  // operations swapped, or one replaced by another valid operation
  const swapped = verifyAggregate(p, [rs[0]!, rs[2]!, rs[1]!], bytes);
  assert.deepEqual([codeOf(swapped), opOf(swapped)], ["PUBLIC_INPUTS_MISMATCH", 1]);
  const replaced = verifyAggregate(p, [rs[0]!, rs[1]!, fixtureV2(aggKind, 0n)], bytes);
  assert.deepEqual([codeOf(replaced), opOf(replaced)], ["PUBLIC_INPUTS_MISMATCH", 2]);
  // each public-input field of one operation
  const other = fixtureV2(OpKind.Update, 2n).publicInputs;
  for (const change of [
    { oldRoot: other.oldRoot },
    { newRoot: other.newRoot },
    { opKindTag: 2 },
    { assetId: 1n + (1n << 32n) },
    { valueDigest: other.valueDigest },
  ] as Partial<PublicInputs>[]) {
    const v = verifyAggregate(p, [rs[0]!, withPub(rs[1]!, change), rs[2]!], bytes);
    assert.deepEqual([codeOf(v), opOf(v)], ["PUBLIC_INPUTS_MISMATCH", 1], JSON.stringify(Object.keys(change)));
  }
  // a false statement in operation 2 whose statement check matches: the native check names it
  for (const [name, request, code] of nativeCases().filter(([, r]) => r.operation.kind === aggKind)) {
    const list = [rs[0]!, rs[1]!, request];
    const forged = proveAggregateWith(p, paddedV2(p, list), 3);
    const v = verifyAggregate(p, list, forged);
    assert.deepEqual([codeOf(v), opOf(v)], [code, 2], name);
  }
  const m = rs[1]!;
  const extra: OpRequest = {
    ...m,
    witness: { ...m.witness, siblings: [...m.witness.siblings, m.witness.siblings[0]!] },
  };
  const iv = verifyAggregate(p, [rs[0]!, extra, rs[2]!], bytes);
  assert.deepEqual([codeOf(iv), opOf(iv)], ["INPUT_VECTOR", 1]);
  const big = occupied(new Array(40).fill(7), new Uint8Array(32));
  const unhashable: OpRequest = {
    ...m,
    operation: { kind: OpKind.Membership, key: 2n, leaf: big },
    witness: { ...m.witness, leaf: big },
  };
  const lv = verifyAggregate(p, [rs[0]!, unhashable, rs[2]!], bytes);
  assert.equal(opOf(lv), 1);
  assert.equal(
    codeOf(verifyAggregate(p, [rs[0]!, withPub(m, { valueDigest: null as never }), rs[2]!], bytes)),
    "MALFORMED_REQUEST",
  );
});

test("aggregate: statement checks rewritten to match swapped, replaced or dropped operations leave the proof bound to the original statements (GKR)", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  const d = decodeAggregateV2(honestAggregate());
  const relabel = (list: OpRequest[]) =>
    encodeAggregateV2(
      d.identity,
      list.map((r) => specStatementCheck(r.publicInputs)),
      d.proof,
    );
  for (const [name, list] of [
    ["swapped", [rs[0]!, rs[2]!, rs[1]!]],
    ["replaced", [rs[0]!, rs[1]!, fixtureV2(aggKind, 0n)]],
    ["dropped", [rs[0]!, rs[1]!]],
  ] as [string, OpRequest[]][]) {
    const v = verifyAggregate(p, list, relabel(list));
    assert.match(codeOf(v), /^GKR_/, name);
    assert.equal(opOf(v), undefined, "a GKR failure names no operation");
  }
  // a true aggregate of other statements (another order), checks rewritten to the requests
  const otherOrder = [rs[2]!, rs[0]!, rs[1]!];
  const other = decodeAggregateV2(proveAggregateWith(p, paddedV2(p, otherOrder), 3));
  assert.match(codeOf(verifyAggregate(p, rs, encodeAggregateV2(d.identity, d.statementChecks, other.proof))), /^GKR_/);
  // a proof that binds n = 4 (the dummy counted as an operation) does not verify as n = 3
  const asFour = proveAggregateWith(p, paddedV2(p, rs), 4);
  const dd = decodeAggregateV2(asFour);
  assert.match(
    codeOf(verifyAggregate(p, rs, encodeAggregateV2(dd.identity, dd.statementChecks.slice(0, 3), dd.proof))),
    /^GKR_/,
  );
  // padding other than the dummy operation: the proof is bound to its statements
  const padWithReal = proveAggregateWith(p, [...rs, fixtureV2(aggKind, 0n)], 3);
  assert.match(codeOf(verifyAggregate(p, rs, padWithReal)), /^GKR_/);
});

test("aggregate: a false operation claimed as zero outputs is GKR_ROUND_SUM_MISMATCH; another witness in one copy is INPUT_CLAIM_X, with eval_y solved INPUT_CLAIM_Y", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  const bad = [rs[0]!, otherWitness(rs[1]!), rs[2]!];
  const v = verifyAggregate(p, bad, proveAggregateWith(p, paddedV2(p, bad), 3, { claimZero: true }));
  assert.equal(codeOf(v), "GKR_ROUND_SUM_MISMATCH");
  assert.equal(opOf(v), undefined);
  const bytes = honestAggregate();
  assert.equal(codeOf(verifyAggregate(p, bad, bytes)), "INPUT_CLAIM_X");
  const d = decodeAggregateV2(bytes);
  const statements = paddedV2(p, rs).map((r) => r.publicInputs);
  const view = endCheckViewsAggregate(p, 3, statements, d.proof).at(-1)!;
  const last = d.proof.layers.at(-1)!;
  const value = endCheckValue(view, last.evalX, last.evalY);
  const input = aggregateInput(p, paddedV2(p, bad));
  const evalX = mleEvalBase(input, view.x);
  const evalY = solveEvalY(view, evalX, value);
  const forged = encodeAggregateV2(d.identity, d.statementChecks, withLast(d.proof, evalX, evalY));
  assert.equal(codeOf(verifyAggregate(p, bad, forged)), "INPUT_CLAIM_Y");
  assert.equal(codeOf(verifyAggregate(p, rs, forged)), "INPUT_CLAIM_X");
  // final evaluations of the honest proof bumped: the last layer's end check
  const bumped = encodeAggregateV2(
    d.identity,
    d.statementChecks,
    withLast(d.proof, last.evalX, extAdd(last.evalY, EXT_ONE)),
  );
  assert.equal(codeOf(verifyAggregate(p, rs, bumped)), "GKR_END_CHECK_FAILED");
});

test("aggregate: the prover refuses bad batches with typed errors naming the operation", () => {
  const p = preparedV2(aggKind);
  const rs = aggRequests();
  assert.throws(
    () => proveAggregate(p, []),
    (e: unknown) => (e as { code?: string }).code === "BAD_AGGREGATE",
  );
  assert.throws(
    () => proveAggregate(p, new Array(4097).fill(rs[0]!)),
    (e: unknown) => (e as { code?: string }).code === "BAD_AGGREGATE",
  );
  assert.throws(
    () => proveAggregate(p, [rs[0]!, fixtureV2(OpKind.Update)]),
    (e: unknown) =>
      (e as { code?: string; details?: { operation?: number } }).code === "WRONG_KIND" &&
      (e as { details: { operation: number } }).details.operation === 1,
  );
  const m = rs[1]!;
  const extra: OpRequest = {
    ...m,
    witness: { ...m.witness, siblings: [...m.witness.siblings, m.witness.siblings[0]!] },
  };
  assert.throws(
    () => proveAggregate(p, [rs[0]!, extra]),
    (e: unknown) =>
      (e as { code?: string }).code === "WITNESS" && (e as { details: { operation: number } }).details.operation === 1,
  );
});

// ---------------------------------------------------------------- blocks (block.ts)

function blockOf(keys: readonly [bigint, number][]): {
  updates: OpRequest[];
  fromRoot: Uint32Array;
  toRoot: Uint32Array;
} {
  const tree = new SparseMerkleTree({ depth: DEPTH_V2 });
  const fromRoot = Uint32Array.from(tree.root());
  const updates = keys.map(([key, v]) => updateRequestOf(tree.insert(key, [v], new Uint8Array(32).fill(v))));
  return { updates, fromRoot, toRoot: Uint32Array.from(tree.root()) };
}

test("block: the chain R_A → … → R_B is checked before the aggregate; one update replaced with the chain re-derived is caught", () => {
  const p = preparedV2(OpKind.Update);
  const b = blockOf([
    [1n, 5],
    [2n, 6],
    [3n, 7],
  ]);
  const bytes = proveBlock(p, b.updates);
  const roots = { fromRoot: b.fromRoot, toRoot: b.toRoot };
  assert.deepEqual(verifyBlock(roots, b.updates, bytes, { prepared: p }), { ok: true });
  assert.deepEqual(verifyBlock(roots, b.updates, bytes, { config: { depth: DEPTH_V2 } }), { ok: true });
  const at = (v: AggregateVerdict) => [codeOf(v), opOf(v)];
  assert.deepEqual(at(verifyBlock(roots, [], bytes, { prepared: p })), ["EMPTY_BLOCK", undefined]);
  assert.deepEqual(at(verifyBlock(roots, null as never, bytes, { prepared: p })), ["EMPTY_BLOCK", undefined]);
  assert.deepEqual(at(verifyBlock({ ...roots, fromRoot: b.toRoot }, b.updates, bytes, { prepared: p })), [
    "FROM_ROOT_MISMATCH",
    0,
  ]);
  assert.deepEqual(at(verifyBlock({ ...roots, toRoot: b.fromRoot }, b.updates, bytes, { prepared: p })), [
    "TO_ROOT_MISMATCH",
    2,
  ]);
  assert.deepEqual(at(verifyBlock(roots, [b.updates[0]!, b.updates[2]!, b.updates[1]!], bytes, { prepared: p })), [
    "CHAIN_BROKEN",
    1,
  ]);
  assert.deepEqual(at(verifyBlock(roots, [b.updates[0]!, b.updates[1]!, b.updates[1]!], bytes, { prepared: p })), [
    "CHAIN_BROKEN",
    2,
  ]);
  assert.equal(codeOf(verifyBlock(roots, b.updates, bytes, { prepared: preparedV2(OpKind.Membership) })), "WRONG_KIND");
  assert.equal(
    codeOf(verifyBlock(roots, [null as never, ...b.updates.slice(1)], bytes, { prepared: p })),
    "MALFORMED_REQUEST",
  );
  // update 1 replaced (another value), updates 1.. re-derived: a true chain and a true block proof of other updates
  const c = blockOf([
    [1n, 5],
    [2n, 9],
    [3n, 7],
  ]);
  const other = proveBlock(p, c.updates);
  assert.deepEqual(verifyBlock({ fromRoot: c.fromRoot, toRoot: c.toRoot }, c.updates, other, { prepared: p }), {
    ok: true,
  });
  assert.deepEqual(at(verifyBlock(roots, c.updates, other, { prepared: p })), ["TO_ROOT_MISMATCH", 2]);
  assert.deepEqual(at(verifyBlock({ fromRoot: c.fromRoot, toRoot: c.toRoot }, c.updates, bytes, { prepared: p })), [
    "PUBLIC_INPUTS_MISMATCH",
    1,
  ]);
  // the prover refuses unchained blocks
  assert.throws(
    () => proveBlock(p, [b.updates[1]!, b.updates[0]!]),
    (e: unknown) => (e as { code?: string }).code === "BAD_BLOCK",
  );
  assert.throws(
    () => proveBlock(p, []),
    (e: unknown) => (e as { code?: string }).code === "BAD_BLOCK",
  );
  assert.throws(
    () => proveBlock(preparedV2(OpKind.Membership), b.updates),
    (e: unknown) => (e as { code?: string }).code === "BAD_BLOCK",
  );
});

test("block: the update request of a tree mutation is the spec's (witness = old leaf, value digest of the new leaf)", () => {
  const b = blockOf([[2n, 4]]);
  const u = b.updates[0]!;
  assert.equal(u.operation.kind, OpKind.Update);
  assert.equal(u.publicInputs.opKindTag, 2);
  assert.equal(u.publicInputs.assetId, 2n);
  assert.deepEqual(verifyV2(preparedV2(OpKind.Update), u, proveV2With(preparedV2(OpKind.Update), u)), { ok: true });
  const bumped = Uint32Array.from(u.publicInputs.valueDigest);
  bumped[0] = add(bumped[0]!, 1);
  assert.equal(
    codeOf(
      verifyV2(
        preparedV2(OpKind.Update),
        withPub(u, { valueDigest: bumped }),
        proveV2With(preparedV2(OpKind.Update), u),
      ),
    ),
    "PUBLIC_INPUTS_MISMATCH",
  );
});
