/**
 * Real forgeries of profile v3 proofs, each built by running the prover's steps on dishonest
 * choices (test/support/forge-v3.ts) and each rejected: a commitment that is not to the input the
 * GKR ran on, a witness that hashes to another root, an input whose public half is not the
 * statement's, a true proof checked against other statements, and statement checks of other
 * statements.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { decodeV3Message, encodeV3Message } from "../../../src/codec/v3/message.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { occupied } from "../../../src/smt/leaf.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3Statement } from "../../../src/smt/v3/statement.js";
import { OpKind } from "../../../src/statement/types.js";
import {
  prepareV3,
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
} from "../../../src/sync/v3/index.js";
import { committedHalves } from "../../../src/smt/v3/input.js";
import { extEq } from "../../../src/field/extension.js";
import { evaluateMultilinear } from "../../../src/pcs/multilinear.js";
import { forgeV3, honestInputV3 } from "../../support/forge-v3.js";
import { blockFixture, blockUpdates, identityOf, verdictCode } from "./support.js";

const DEPTH = 4;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
const preparedOf = new Map(KINDS.map((k) => [k, prepareV3(k, { depth: DEPTH })]));
const P3 = (kind: OpKind) => preparedOf.get(kind)!;

function requestsOf(kind: OpKind, keys = [1n, 6n, 11n]): OpRequest[] {
  return keys.map((key) => goldenFixture(kind, DEPTH, key));
}

function statementsOf(requests: readonly OpRequest[]): V3Statement[] {
  return requests.map((r) => v3StatementOf(r));
}

/** A verdict's code, asserting it is a rejection. */
function rejected(v: ReturnType<typeof verifyAggregateV3>, what: string): string {
  assert.equal(v.ok, false, `${what}: accepted`);
  return verdictCode(v);
}

test("the open prover reproduces the library's aggregates and blocks byte for byte (its transcript is the documented one)", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const requests = requestsOf(kind);
    const statements = statementsOf(requests);
    const bytes = forgeV3({ prepared: p, proofKind: 1, statements, input: honestInputV3(p, requests, statements) });
    assert.deepEqual(bytes, proveAggregateV3(p, requests), kind);
    assert.equal(verdictCode(verifyAggregateV3(p, statements, bytes)), "ok", kind);
  }
  const p = P3(OpKind.Update);
  const { updates, rules, fromRoot, toRoot } = blockFixture(DEPTH, 3);
  const statements = updates.map((u, i) => v3StatementOf(u, rules[i]));
  const roots = updates.slice(0, -1).map((u) => u.publicInputs.newRoot);
  const bytes = forgeV3({ prepared: p, proofKind: 2, statements, input: honestInputV3(p, updates, statements), roots });
  assert.deepEqual(bytes, proveBlockV3(p, updates, { rules }));
  assert.equal(verdictCode(verifyBlockV3(p, { fromRoot, toRoot }, blockUpdates(updates, rules), bytes)), "ok");
});

test("(a) a commitment to other committed halves than the GKR's input is rejected by the opening", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const layout = p.compiled.layout;
    const requests = requestsOf(kind);
    const statements = statementsOf(requests);
    const input = honestInputV3(p, requests, statements);
    // one sibling lane of copy 1 changed in the committed polynomial only
    const sibling = committedHalves(layout, input);
    sibling[layout.half + layout.sib + 3] = (sibling[layout.half + layout.sib + 3]! + 1) % P;
    const v1 = verifyAggregateV3(
      p,
      statements,
      forgeV3({ prepared: p, proofKind: 1, statements, input, committed: sibling }),
    );
    assert.equal(rejected(v1, `${kind}: sibling changed`), "PCS_FINAL_CLAIM");
    // another valid witness of the same statements: a lane the circuit never reads (above the committed lanes in use)
    // set in copy 0. Committed and proved together it is a proof of the same statements (accepted); committed alone,
    // with the GKR run on the original input, it is rejected.
    if (layout.committedUsed === layout.half) {
      assert.equal(kind, OpKind.NonMembership, "membership and update have unread committed lanes at depth 4");
      continue;
    }
    const other = input.slice();
    other[layout.committedUsed] = 12345;
    assert.equal(
      verdictCode(verifyAggregateV3(p, statements, forgeV3({ prepared: p, proofKind: 1, statements, input: other }))),
      "ok",
      `${kind}: the other witness proved on its own`,
    );
    const v2 = verifyAggregateV3(
      p,
      statements,
      forgeV3({ prepared: p, proofKind: 1, statements, input, committed: committedHalves(layout, other) }),
    );
    assert.equal(rejected(v2, `${kind}: another witness's commitment`), "PCS_FINAL_CLAIM");
  }
});

test("(a) a message whose commitment is another honest proof's (same statement count) is rejected", () => {
  const p = P3(OpKind.Membership);
  const a = requestsOf(OpKind.Membership);
  const b = requestsOf(OpKind.Membership, [2n, 5n, 9n]);
  const ma = decodeV3Message(proveAggregateV3(p, a));
  const mb = decodeV3Message(proveAggregateV3(p, b));
  const spliced = encodeV3Message({ ...ma, commitment: mb.commitment });
  assert.equal(
    rejected(verifyAggregateV3(p, statementsOf(a), spliced), "spliced commitment"),
    "GKR_ROUND_SUM_MISMATCH",
  );
  // and the opening of the other proof with it
  const both = encodeV3Message({ ...ma, commitment: mb.commitment, opening: mb.opening });
  assert.equal(
    rejected(verifyAggregateV3(p, statementsOf(a), both), "spliced commitment and opening"),
    "GKR_ROUND_SUM_MISMATCH",
  );
  // a block's commitment in an update aggregate of the same updates
  const u = P3(OpKind.Update);
  const { updates, rules } = blockFixture(DEPTH, 3);
  const agg = decodeV3Message(proveAggregateV3(u, updates, { rules }));
  const blk = decodeV3Message(proveBlockV3(u, updates, { rules }));
  const st = updates.map((x, i) => v3StatementOf(x, rules[i]));
  assert.equal(verdictCode(verifyAggregateV3(u, st, encodeV3Message(agg))), "ok");
  assert.equal(
    rejected(verifyAggregateV3(u, st, encodeV3Message({ ...agg, commitment: blk.commitment })), "a block's commitment"),
    "GKR_ROUND_SUM_MISMATCH",
  );
});

test("(b) a witness whose path gives another root than the statement's, proved honestly, is rejected", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const requests = requestsOf(kind);
    const statements = statementsOf(requests);
    for (const [i, level] of [
      [0, 0],
      [2, DEPTH - 1],
    ] as const) {
      const bad = requests.slice();
      const r = bad[i]!;
      const siblings = r.witness.siblings.map((s) => s.slice());
      siblings[level]![5] = (siblings[level]![5]! + 1) % P;
      bad[i] = { ...r, witness: { ...r.witness, siblings } };
      // the statements are still the true ones (the roots come from the public inputs)
      assert.deepEqual(statementsOf(bad), statements);
      const bytes = proveAggregateV3(p, bad);
      assert.equal(
        rejected(verifyAggregateV3(p, statements, bytes), `${kind} request ${i} sibling ${level}`),
        "GKR_ROUND_SUM_MISMATCH",
      );
    }
  }
  // an update whose witness is of another old leaf than the one its old root holds
  const p = P3(OpKind.Update);
  const requests = requestsOf(OpKind.Update);
  const r = requests[1]!;
  const op = r.operation as Extract<OpRequest["operation"], { kind: OpKind.Update }>;
  const wrongOld = {
    ...r,
    operation: { ...op, oldLeaf: occupied([101], identityOf(3)) },
    witness: { ...r.witness, leaf: occupied([101], identityOf(3)) },
  };
  const bad = [requests[0]!, wrongOld, requests[2]!];
  const bytes = proveAggregateV3(p, bad);
  assert.equal(
    rejected(verifyAggregateV3(p, statementsOf(requests), bytes), "update of another old leaf"),
    "GKR_ROUND_SUM_MISMATCH",
  );
  // a block one of whose updates has a sibling changed
  const { updates, rules, fromRoot, toRoot } = blockFixture(DEPTH, 3);
  const u = updates[1]!;
  const siblings = u.witness.siblings.map((s) => s.slice());
  siblings[2]![0] = (siblings[2]![0]! + 1) % P;
  const badBlock = [updates[0]!, { ...u, witness: { ...u.witness, siblings } }, updates[2]!];
  const blockBytes = proveBlockV3(p, badBlock, { rules });
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot, toRoot }, blockUpdates(updates, rules), blockBytes), "block sibling"),
    "GKR_ROUND_SUM_MISMATCH",
  );
});

test("(c) an input that satisfies the circuit for another public half (a key bit, the leaf, a root, the rule) is rejected", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const requests = requestsOf(kind);
    const truth = statementsOf(requests);
    const input = honestInputV3(p, requests, truth);
    // the input is valid: proved against its own statements it is accepted
    assert.equal(
      verdictCode(verifyAggregateV3(p, truth, forgeV3({ prepared: p, proofKind: 1, statements: truth, input }))),
      "ok",
    );
    const lies: [string, V3Statement][] = [
      ["key bit 0", { ...truth[1]!, key: truth[1]!.key ^ 1n }],
      ["key bit 3", { ...truth[1]!, key: truth[1]!.key ^ 8n }],
    ];
    const s1 = truth[1]!;
    if (s1.kind === OpKind.Membership)
      lies.push(
        ["leaf", { ...s1, leaf: occupied([43, 6], identityOf(9)) }],
        ["root", { ...s1, root: s1.root.map((x, i) => (i === 7 ? (x + 1) % P : x)) }],
      );
    if (s1.kind === OpKind.NonMembership)
      lies.push(["root", { ...s1, root: s1.root.map((x, i) => (i === 0 ? (x + 1) % P : x)) }]);
    if (s1.kind === OpKind.Update) {
      lies.push(["new root", { ...s1, newRoot: s1.newRoot.map((x, i) => (i === 2 ? (x + 1) % P : x)) }]);
      lies.push(["new leaf", { ...s1, newLeaf: occupied([1], identityOf(4)) }]);
      lies.push(["rule empty", { ...s1, oldLeaf: { rule: "empty" } }]);
      lies.push(["rule record", { ...s1, oldLeaf: { rule: "record", identity: identityOf(3) } }]);
    }
    for (const [what, lie] of lies) {
      const statements = [truth[0]!, lie, truth[2]!];
      const bytes = forgeV3({ prepared: p, proofKind: 1, statements, input });
      assert.equal(
        rejected(verifyAggregateV3(p, statements, bytes), `${kind}: ${what}`),
        "PCS_FINAL_CLAIM",
        `${kind}: ${what}`,
      );
    }
  }
});

test("(c) an input whose public half is another statement's, opened honestly at the values its own input gives, is rejected", () => {
  // the forger opens C at the values the committed halves really have there (a valid opening of its commitment); the
  // verifier derives other values from its statements' U, so the opening is of other claims than the verifier's
  for (const kind of KINDS) {
    const p = P3(kind);
    const requests = requestsOf(kind);
    const truth = statementsOf(requests);
    const input = honestInputV3(p, requests, truth);
    const C = committedHalves(p.compiled.layout, input);
    const statements = [truth[0]!, { ...truth[1]!, key: truth[1]!.key ^ 2n }, truth[2]!];
    let opened = 0;
    const bytes = forgeV3({
      prepared: p,
      proofKind: 1,
      statements,
      input,
      claims: (derived) =>
        derived.map((c) => {
          const value = evaluateMultilinear(C, c.point);
          if (!extEq(value, c.value)) opened++;
          return { point: c.point, value };
        }),
    });
    assert.ok(opened > 0, `${kind}: the true values differ from the verifier's`);
    // the opening absorbs its claims before its first challenge: the verifier absorbs the values it derived, so the
    // grinding witnesses of the forger's transcript do not hold on the verifier's
    assert.equal(rejected(verifyAggregateV3(p, statements, bytes), `${kind}: own values`), "PCS_PROOF_OF_WORK");
    // with the statements' own public halves the same opening is the honest one
    assert.equal(
      verdictCode(
        verifyAggregateV3(
          p,
          truth,
          forgeV3({
            prepared: p,
            proofKind: 1,
            statements: truth,
            input,
            claims: (d) => d.map((c) => ({ point: c.point, value: evaluateMultilinear(C, c.point) })),
          }),
        ),
      ),
      "ok",
    );
  }
});

test("(d) a true block proof checked against another update list or other roots is rejected", () => {
  const p = P3(OpKind.Update);
  const a = blockFixture(DEPTH, 3, 0);
  const b = blockFixture(DEPTH, 3, 1);
  const bytesA = proveBlockV3(p, a.updates, { rules: a.rules });
  const listA = blockUpdates(a.updates, a.rules);
  const listB = blockUpdates(b.updates, b.rules);
  assert.equal(verdictCode(verifyBlockV3(p, { fromRoot: a.fromRoot, toRoot: a.toRoot }, listA, bytesA)), "ok");
  // block B's list (same keys and ops, other payloads) with A's roots, B's roots with A's list, B entirely
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: a.fromRoot, toRoot: a.toRoot }, listB, bytesA), "B's updates"),
    "PUBLIC_INPUTS_MISMATCH@0",
  );
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: b.fromRoot, toRoot: b.toRoot }, listA, bytesA), "B's roots"),
    "PUBLIC_INPUTS_MISMATCH@2",
  );
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: b.fromRoot, toRoot: b.toRoot }, listB, bytesA), "B"),
    "PUBLIC_INPUTS_MISMATCH@0",
  );
  // a prefix of A is another block: A's proof does not prove it, nor does the prefix's proof prove A
  const prefix = blockFixture(DEPTH, 2, 0);
  const bytesPrefix = proveBlockV3(p, prefix.updates, { rules: prefix.rules });
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: a.fromRoot, toRoot: a.toRoot }, listA, bytesPrefix), "prefix proof for A"),
    "OPERATION_COUNT",
  );
  assert.equal(
    rejected(
      verifyBlockV3(p, { fromRoot: prefix.fromRoot, toRoot: prefix.toRoot }, listA.slice(0, 2), bytesA),
      "A for the prefix",
    ),
    "OPERATION_COUNT",
  );
  // A's proof with its intermediate roots replaced by B's: the statements then differ at the first changed root
  const m = decodeV3Message(bytesA);
  const mb = decodeV3Message(proveBlockV3(p, b.updates, { rules: b.rules }));
  const withRoots = encodeV3Message({ ...m, roots: mb.roots });
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: a.fromRoot, toRoot: a.toRoot }, listA, withRoots), "B's intermediate roots"),
    "PUBLIC_INPUTS_MISMATCH@0",
  );
  // a true aggregate of A's updates is not a block of them
  const agg = proveAggregateV3(p, a.updates, { rules: a.rules });
  assert.equal(
    rejected(verifyBlockV3(p, { fromRoot: a.fromRoot, toRoot: a.toRoot }, listA, agg), "aggregate as block"),
    "PROOF_KIND",
  );
});

test("(e) statement checks replaced by those of other statements are rejected, whichever statements the verifier holds", () => {
  for (const kind of KINDS) {
    const p = P3(kind);
    const ra = requestsOf(kind);
    const rb = requestsOf(kind, [2n, 6n, 13n]);
    const sa = statementsOf(ra),
      sb = statementsOf(rb);
    const ma = decodeV3Message(proveAggregateV3(p, ra));
    const mb = decodeV3Message(proveAggregateV3(p, rb));
    const swapped = encodeV3Message({ ...ma, statementChecks: mb.statementChecks });
    assert.equal(rejected(verifyAggregateV3(p, sa, swapped), `${kind}: A's statements`), "PUBLIC_INPUTS_MISMATCH@0");
    assert.equal(rejected(verifyAggregateV3(p, sb, swapped), `${kind}: B's statements`), "GKR_ROUND_SUM_MISMATCH");
    // only the middle check replaced (B's key 6 equals A's: the checks differ in the leaf for membership only)
    const one = encodeV3Message({
      ...ma,
      statementChecks: [ma.statementChecks[0]!, mb.statementChecks[2]!, ma.statementChecks[2]!],
    });
    const mixed = [sa[0]!, sb[2]!, sa[2]!];
    assert.equal(rejected(verifyAggregateV3(p, sa, one), `${kind}: one check`), "PUBLIC_INPUTS_MISMATCH@1");
    assert.equal(
      rejected(verifyAggregateV3(p, mixed, one), `${kind}: one check, mixed statements`),
      "GKR_ROUND_SUM_MISMATCH",
    );
    // a forger who writes B's checks but absorbs A's digests: the verifier absorbs B's
    const forged = forgeV3({
      prepared: p,
      proofKind: 1,
      statements: sa,
      input: honestInputV3(p, ra, sa),
      checks: mb.statementChecks,
    });
    assert.equal(
      rejected(verifyAggregateV3(p, sb, forged), `${kind}: checks of B, transcript of A`),
      "GKR_ROUND_SUM_MISMATCH",
    );
  }
});
