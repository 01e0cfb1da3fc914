import { test } from "node:test";
import assert from "node:assert/strict";
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import { occupied, type Leaf } from "../../../src/smt/leaf.js";
import { updateRequestOf } from "../../../src/sync/v2/index.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3OldLeafRule, V3Statement } from "../../../src/smt/v3/statement.js";
import { prepareV3 } from "../../../src/sync/v3/prepared.js";
import {
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  type V3BlockUpdate,
  type V3Verdict,
} from "../../../src/sync/v3/index.js";

const DEPTH = 4;
const id = (b: number) => new Uint8Array(32).fill(b);
const code = (v: V3Verdict) => (v.ok ? "ok" : `${v.code}${v.operation === undefined ? "" : `@${v.operation}`}`);

/** The rule an update's old leaf obeys, as a registry states it. */
function ruleOf(old: Leaf): V3OldLeafRule {
  if (old.tag === 0) return { rule: "empty" };
  if (old.tag === 2) return { rule: "tombstone" };
  return { rule: "record", identity: old.identity };
}

function block(): { updates: OpRequest[]; rules: V3OldLeafRule[]; fromRoot: Uint32Array; toRoot: Uint32Array } {
  const tree = new SparseMerkleTree({ depth: DEPTH });
  tree.insert(9n, [1], id(1));
  const fromRoot = tree.root();
  const records = [
    tree.insert(3n, [7, 8], id(2)),
    tree.replace(9n, [2], id(1)),
    tree.delete(3n),
    tree.insert(12n, [5], id(3)),
    tree.restore(3n, [9], id(2)),
  ];
  const updates = records.map((r) => updateRequestOf(r));
  return {
    updates,
    rules: updates.map((u) => ruleOf((u.operation as { oldLeaf: Leaf }).oldLeaf)),
    fromRoot,
    toRoot: tree.root(),
  };
}

function blockUpdates(updates: readonly OpRequest[], rules: readonly V3OldLeafRule[]): V3BlockUpdate[] {
  return updates.map((u, i) => {
    const op = u.operation as { key: bigint; newLeaf: Leaf };
    return { key: op.key, newLeaf: op.newLeaf, oldLeaf: rules[i]! };
  });
}

const prepared = prepareV3("update", { depth: DEPTH });

test("v3 aggregates of each kind prove and verify from the statements alone", () => {
  for (const kind of ["membership", "nonmembership", "update"] as const) {
    const p = prepareV3(kind, { depth: 8 });
    const requests = [1n, 2n, 7n].map((key) => goldenFixture(kind, 8, key));
    const statements = requests.map((r) => v3StatementOf(r));
    const bytes = proveAggregateV3(p, requests);
    assert.equal(code(verifyAggregateV3(p, statements, bytes)), "ok", kind);
    // another operation's statement in place of the first
    const other = v3StatementOf(goldenFixture(kind, 8, 3n));
    assert.equal(code(verifyAggregateV3(p, [other, ...statements.slice(1)], bytes)), "PUBLIC_INPUTS_MISMATCH@0", kind);
  }
});

test("a v3 block of chained updates verifies from its two roots and the update list; tampering is rejected, naming the operation", () => {
  const { updates, rules, fromRoot, toRoot } = block();
  const bytes = proveBlockV3(prepared, updates, { rules });
  const list = blockUpdates(updates, rules);
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, bytes)), "ok");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot: toRoot, toRoot }, list, bytes)), "PUBLIC_INPUTS_MISMATCH@0");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot: fromRoot }, list, bytes)), "PUBLIC_INPUTS_MISMATCH@4");
  assert.equal(
    code(verifyBlockV3(prepared, { fromRoot, toRoot }, [list[0]!, list[2]!, list[1]!, list[3]!, list[4]!], bytes)),
    "PUBLIC_INPUTS_MISMATCH@1",
  );
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list.slice(0, 4), bytes)), "OPERATION_COUNT");
  assert.equal(
    code(verifyBlockV3(prepared, { fromRoot, toRoot }, [...list.slice(0, 4), list[3]!], bytes)),
    "PUBLIC_INPUTS_MISMATCH@4",
  );
  const replaced = { ...list[1]!, newLeaf: occupied([3], id(1)) };
  assert.equal(
    code(verifyBlockV3(prepared, { fromRoot, toRoot }, [list[0]!, replaced, ...list.slice(2)], bytes)),
    "PUBLIC_INPUTS_MISMATCH@1",
  );
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, [], bytes)), "EMPTY_BLOCK");
});

test("a v3 block whose old-leaf rules are false is rejected: the circuit checks them, not the verifier's trust", () => {
  const { updates, rules, fromRoot, toRoot } = block();
  // insert claimed as a replace of a record, and a replace of the wrong identity: an honest prover of these statements fails
  const lies: [number, V3OldLeafRule][] = [
    [0, { rule: "record", identity: id(2) }],
    [1, { rule: "record", identity: id(7) }],
    [2, { rule: "empty" }],
    [4, { rule: "empty" }],
  ];
  for (const [i, lie] of lies) {
    const bad = rules.slice();
    bad[i] = lie;
    const bytes = proveBlockV3(prepared, updates, { rules: bad });
    const v = verifyBlockV3(prepared, { fromRoot, toRoot }, blockUpdates(updates, bad), bytes);
    assert.equal(v.ok, false, `rule of update ${i}`);
    assert.match(code(v), /^(GKR_|PCS_)/, `rule of update ${i}`);
  }
});

test("a v3 proof checked as the wrong kind, with a bit flipped, truncated or with a foreign commitment is rejected", () => {
  const { updates, rules, fromRoot, toRoot } = block();
  const bytes = proveBlockV3(prepared, updates, { rules });
  const list = blockUpdates(updates, rules);
  const statements: V3Statement[] = updates.map((u, i) => v3StatementOf(u, rules[i]));
  assert.equal(code(verifyAggregateV3(prepared, statements, bytes)), "PROOF_KIND");
  assert.equal(
    code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, bytes.subarray(0, bytes.length - 1))),
    "DECODE_DeclaredLengthMismatch",
  );
  const flipped = bytes.slice();
  flipped[bytes.length - 40]! ^= 1;
  assert.equal(verifyBlockV3(prepared, { fromRoot, toRoot }, list, flipped).ok, false);
  // the same statements proved with the honest commitment of another witness-equal run are bound to their own transcript
  const again = proveBlockV3(prepared, updates, { rules, pcsSet: "ud100-r4" });
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, again)), "ok");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, again, { accept: "provable" })), "ok");
  assert.equal(
    code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, bytes, { accept: "provable" })),
    "PCS_SET_NOT_ACCEPTED",
  );
  assert.equal(
    code(verifyBlockV3(prepareV3("update", { depth: DEPTH + 1 }), { fromRoot, toRoot }, list, bytes)),
    "IDENTITY_MISMATCH",
  );
});
