/**
 * Real forgeries of v3-zk proofs (docs/profile-v3.md §11), each built by running the prover's
 * steps on dishonest choices (test/support/forge-v3zk.ts) and each rejected: a commitment that is
 * not to the input or the masks the layers used, another proof's commitment, a witness that hashes
 * to another root, an input whose public half is not the statement's, masks chosen after the
 * commitment, false mask claims, statement checks of other statements.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { extAdd, EXT_ONE } from "../../../src/field/extension.js";
import { decodeV3ZkMessage, encodeV3ZkMessage } from "../../../src/codec/v3/message.js";
import { decodeWhirHidingCommitment, encodeWhirHidingCommitment } from "../../../src/pcs/hiding-codec.js";
import type { WhirClaim } from "../../../src/pcs/types.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { occupied } from "../../../src/smt/leaf.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3Statement } from "../../../src/smt/v3/statement.js";
import { OpKind } from "../../../src/statement/types.js";
import { prepareV3, proveAggregateV3, verifyAggregateV3 } from "../../../src/sync/v3/index.js";
import { whirSeededRandomSource } from "../../../src/pcs/random.js";
import { forgeV3Zk } from "../../support/forge-v3zk.js";
import { inputBitsOf } from "../../../src/gkr/circuit.js";
import { maskCoefficientCount } from "../../../src/gkr/zk/masks.js";
import { v3ZkVectorLayout } from "../../../src/sync/v3/zk-layout.js";
import { SyncError } from "../../../src/statement/errors.js";
import { honestInputV3 } from "../../support/forge-v3.js";
import { identityOf, verdictCode } from "./support.js";

/** Depth 5: every kind has unread lanes in its committed halves (non-membership at depth 4 has none). */
const DEPTH = 5;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
const preparedOf = new Map(KINDS.map((k) => [k, prepareV3(k, { depth: DEPTH })]));
const P3 = (kind: OpKind) => preparedOf.get(kind)!;

function requestsOf(kind: OpKind, keys = [1n, 6n, 11n]): OpRequest[] {
  return keys.map((key) => goldenFixture(kind, DEPTH, key));
}

function statementsOf(requests: readonly OpRequest[]): V3Statement[] {
  return requests.map((r) => v3StatementOf(r));
}

function honest(kind: OpKind) {
  const p = P3(kind);
  const requests = requestsOf(kind);
  const statements = statementsOf(requests);
  return { p, requests, statements, input: honestInputV3(p, requests, statements) };
}

test("the forger with honest choices is the library's v3-zk prover byte for byte", () => {
  for (const kind of KINDS) {
    const { p, requests, statements, input } = honest(kind);
    const lib = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource("forge") });
    const forged = forgeV3Zk({ prepared: p, proofKind: 1, statements, input, seed: "forge" });
    assert.deepEqual(forged, lib, kind);
    assert.equal(verdictCode(verifyAggregateV3(p, statements, forged)), "ok", kind);
  }
});

test("the hiding layout: both verify; a commitment relabelled to the other layout, or claims that weigh τ's block, are rejected", () => {
  const { p, requests, statements, input } = honest(OpKind.Membership);
  const lib = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource("layout") });
  const extra = forgeV3Zk({
    prepared: p,
    proofKind: 1,
    statements,
    input,
    seed: "layout",
    hidingLayout: "extra-variable",
  });
  assert.deepEqual(
    extra,
    proveAggregateV3(p, requests, {
      zk: true,
      hidingLayout: "extra-variable",
      random: whirSeededRandomSource("layout"),
    }),
  );
  assert.ok(extra.length > lib.length, "f′ of one more variable gives a longer opening");
  for (const bytes of [lib, extra]) assert.equal(verdictCode(verifyAggregateV3(p, statements, bytes)), "ok");
  const m = decodeV3ZkMessage(lib);
  const c = decodeWhirHidingCommitment(m.commitment);
  assert.equal(c.layout, "top-block");
  const relabelled = encodeV3ZkMessage({
    ...m,
    commitment: encodeWhirHidingCommitment({ ...c, layout: "extra-variable" }),
  });
  assert.notEqual(verdictCode(verifyAggregateV3(p, statements, relabelled)), "ok");
  // A prover asked to prove a claim that weighs τ's block (the first input claim's padding zeros
  // set to 1) refuses before the opening; the verifier's side is pcs's (test/pcs/hiding.test.ts).
  assert.throws(
    () =>
      forgeV3Zk({
        prepared: p,
        proofKind: 1,
        statements,
        input,
        seed: "layout",
        claims: (derived) => {
          const first = derived[0] as WhirClaim;
          const point = first.point.map((x) => (x.every((w) => w === 0) ? EXT_ONE : x));
          return [{ ...first, point }, ...derived.slice(1)];
        },
      }),
    { code: "PCS_BAD_CLAIM" },
  );
});

test("a committed vector other than the layers' input or masks is rejected by the masked opening", () => {
  for (const kind of KINDS) {
    const { p, statements, input } = honest(kind);
    const layout = p.compiled.layout;
    const circuit = p.compiled.circuit;
    const inputBits = circuit.layers.map((_, i) => inputBitsOf(circuit, i));
    const z = v3ZkVectorLayout(layout, inputBits, 2);
    // lane `at` of layer i's mask block (coefficient c's coordinate t at 4c + t)
    const mask = (i: number, lane: number) => {
      const seg = z.segments[i]!.find((s) => lane >= s.first && lane < s.first + s.lanes)!;
      return seg.offset + lane - seg.first;
    };
    const bump = (at: number) => (f: Uint32Array) => {
      f[at] = (f[at]! + 1) % P;
    };
    const layerMaskLane = 4 * (maskCoefficientCount(inputBits[12]! + 2) - 4) + 1;
    const cases: [string, (f: Uint32Array) => void][] = [
      ["a sibling lane of copy 1", bump(layout.half + layout.sib + 3)],
      ["a random lane of copy 0", bump(layout.committedUsed)],
      ["layer 7's mask constant", bump(mask(7, 0))],
      ["layer 3's first round mask", bump(mask(3, 4))],
      ["layer 12's layer mask", bump(mask(12, layerMaskLane))],
    ];
    for (const [what, change] of cases) {
      const bytes = forgeV3Zk({ prepared: p, proofKind: 1, statements, input, seed: what, vector: change });
      const v = verifyAggregateV3(p, statements, bytes);
      assert.equal(v.ok, false, `${kind}: ${what}`);
      assert.match(verdictCode(v), /^PCS_/, `${kind}: ${what}`);
    }
  }
});

test("masks chosen after the commitment (the layers run on other masks than f holds) are rejected", () => {
  const { p, statements, input } = honest(OpKind.Membership);
  for (const layer of [0, 5, 29]) {
    const bytes = forgeV3Zk({
      prepared: p,
      proofKind: 1,
      statements,
      input,
      seed: `late masks ${layer}`,
      gkrMasks: (m) => m.map((x, i) => (i === layer ? { ...x, constant: extAdd(x.constant, EXT_ONE) } : x)),
    });
    assert.match(verdictCode(verifyAggregateV3(p, statements, bytes)), /^PCS_/, `layer ${layer}`);
  }
});

test("a false mask claim or input claim opened as if true is rejected", () => {
  const { p, statements, input } = honest(OpKind.Update);
  const bump = (claims: ReturnType<NonNullable<Parameters<typeof forgeV3Zk>[0]["claims"]>>, i: number) =>
    claims.map((c, j) => (j === i ? { ...c, value: extAdd(c.value, EXT_ONE) } : c));
  for (const i of [0, 1, 2, 9]) {
    const bytes = forgeV3Zk({
      prepared: p,
      proofKind: 1,
      statements,
      input,
      seed: `claim ${i}`,
      claims: (d) => bump(d, i),
    });
    const v = verifyAggregateV3(p, statements, bytes);
    assert.equal(v.ok, false, `claim ${i}`);
    assert.match(verdictCode(v), /^PCS_/, `claim ${i}`);
  }
});

test("a witness whose path gives another root, proved honestly in zero knowledge, is rejected at the first layer", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const requests = requestsOf(kind);
    const statements = statementsOf(requests);
    const bad = requests.slice();
    const r = bad[1]!;
    const siblings = r.witness.siblings.map((s) => s.slice());
    siblings[2]![5] = (siblings[2]![5]! + 1) % P;
    bad[1] = { ...r, witness: { ...r.witness, siblings } };
    const bytes = proveAggregateV3(p, bad, { zk: true });
    assert.equal(verdictCode(verifyAggregateV3(p, statements, bytes)), "GKR_ROUND_SUM_MISMATCH", kind);
  }
});

test("an input that satisfies the circuit for another public half is rejected", () => {
  for (const kind of KINDS) {
    const { p, statements: truth, input } = honest(kind);
    const s1 = truth[1]!;
    const lies: [string, V3Statement][] = [["key bit 0", { ...s1, key: s1.key ^ 1n }]];
    if (s1.kind === OpKind.Membership) lies.push(["leaf", { ...s1, leaf: occupied([43, 6], identityOf(9)) }]);
    if (s1.kind === OpKind.Update) lies.push(["rule empty", { ...s1, oldLeaf: { rule: "empty" } }]);
    for (const [what, lie] of lies) {
      const statements = [truth[0]!, lie, truth[2]!];
      const bytes = forgeV3Zk({ prepared: p, proofKind: 1, statements, input, seed: what });
      const v = verifyAggregateV3(p, statements, bytes);
      assert.equal(v.ok, false, `${kind}: ${what}`);
      assert.match(verdictCode(v), /^PCS_/, `${kind}: ${what}`);
    }
  }
});

test("another honest v3-zk proof's commitment, or its layers, in a message are rejected", () => {
  const p = P3(OpKind.Membership);
  const a = requestsOf(OpKind.Membership);
  const b = requestsOf(OpKind.Membership, [2n, 5n, 9n]);
  const ma = decodeV3ZkMessage(proveAggregateV3(p, a, { zk: true }));
  const mb = decodeV3ZkMessage(proveAggregateV3(p, b, { zk: true }));
  const st = statementsOf(a);
  assert.equal(verdictCode(verifyAggregateV3(p, st, encodeV3ZkMessage(ma))), "ok");
  for (const [what, m] of [
    ["commitment", { ...ma, commitment: mb.commitment }],
    ["commitment and opening", { ...ma, commitment: mb.commitment, opening: mb.opening }],
    ["layers", { ...ma, proof: mb.proof }],
    ["opening", { ...ma, opening: mb.opening }],
  ] as const) {
    const v = verifyAggregateV3(p, st, encodeV3ZkMessage(m));
    assert.equal(v.ok, false, what);
    assert.match(verdictCode(v), /^(GKR_|PCS_)/, what);
  }
  // statement checks of b's statements with a's proof
  const checks = encodeV3ZkMessage({ ...ma, statementChecks: mb.statementChecks });
  assert.equal(verdictCode(verifyAggregateV3(p, st, checks)), "PUBLIC_INPUTS_MISMATCH@0");
  assert.equal(verdictCode(verifyAggregateV3(p, statementsOf(b), checks)), "GKR_ROUND_SUM_MISMATCH");
});

test("a configuration whose committed halves are full is refused before any work (ZK_UNSUPPORTED)", () => {
  const p = prepareV3("nonmembership", { depth: 4 });
  assert.throws(
    () => proveAggregateV3(p, [goldenFixture("nonmembership", 4, 3n)], { zk: true }),
    (e: unknown) => e instanceof SyncError && e.code === "ZK_UNSUPPORTED" && /128 of 128/.test(e.message),
  );
});
