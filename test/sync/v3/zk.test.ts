import { test } from "node:test";
import assert from "node:assert/strict";
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import type { Leaf } from "../../../src/smt/leaf.js";
import { updateRequestOf } from "../../../src/sync/v2/index.js";
import { v3StatementOf } from "../../../src/smt/v3/input.js";
import type { V3OldLeafRule } from "../../../src/smt/v3/statement.js";
import { prepareV3 } from "../../../src/sync/v3/prepared.js";
import {
  proveAggregateV3,
  proveBlockV3,
  verifyAggregateV3,
  verifyBlockV3,
  type V3BlockUpdate,
  type V3Verdict,
} from "../../../src/sync/v3/index.js";
import { decodeV3Message, decodeV3ZkMessage, hasV3ZkEncoding } from "../../../src/codec/v3/message.js";
import { V3DecodeError } from "../../../src/codec/v3/errors.js";
import { whirSeededRandomSource } from "../../../src/pcs/random.js";

const DEPTH = 4;
const id = (b: number) => new Uint8Array(32).fill(b);
const code = (v: V3Verdict) => (v.ok ? "ok" : `${v.code}${v.operation === undefined ? "" : `@${v.operation}`}`);

function ruleOf(old: Leaf): V3OldLeafRule {
  if (old.tag === 0) return { rule: "empty" };
  if (old.tag === 2) return { rule: "tombstone" };
  return { rule: "record", identity: old.identity };
}

function block(): { updates: OpRequest[]; rules: V3OldLeafRule[]; fromRoot: Uint32Array; toRoot: Uint32Array } {
  const tree = new SparseMerkleTree({ depth: DEPTH });
  tree.insert(9n, [1], id(1));
  const fromRoot = tree.root();
  const records = [tree.insert(3n, [7, 8], id(2)), tree.replace(9n, [2], id(1)), tree.delete(3n)];
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

test("v3-zk aggregates of each kind prove and verify from the statements alone; the v3 decoder refuses them", () => {
  for (const kind of ["membership", "nonmembership", "update"] as const) {
    const p = prepareV3(kind, { depth: 8 });
    const requests = [1n, 2n, 7n].map((key) => goldenFixture(kind, 8, key));
    const statements = requests.map((r) => v3StatementOf(r));
    const bytes = proveAggregateV3(p, requests, { zk: true });
    assert.ok(hasV3ZkEncoding(bytes), kind);
    assert.equal(code(verifyAggregateV3(p, statements, bytes)), "ok", kind);
    assert.throws(() => decodeV3Message(bytes), V3DecodeError);
    decodeV3ZkMessage(bytes);
    const other = v3StatementOf(goldenFixture(kind, 8, 3n));
    assert.equal(code(verifyAggregateV3(p, [other, ...statements.slice(1)], bytes)), "PUBLIC_INPUTS_MISMATCH@0", kind);
  }
});

test("a v3-zk block verifies from its two roots and the update list; a changed list or root is rejected", () => {
  const prepared = prepareV3("update", { depth: DEPTH });
  const { updates, rules, fromRoot, toRoot } = block();
  const bytes = proveBlockV3(prepared, updates, { rules, zk: true });
  const list = blockUpdates(updates, rules);
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list, bytes)), "ok");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot: toRoot, toRoot }, list, bytes)), "PUBLIC_INPUTS_MISMATCH@0");
  assert.equal(code(verifyBlockV3(prepared, { fromRoot, toRoot }, list.slice(0, 2), bytes)), "OPERATION_COUNT");
  const flipped = bytes.slice();
  flipped[bytes.length - 40]! ^= 1;
  assert.equal(verifyBlockV3(prepared, { fromRoot, toRoot }, list, flipped).ok, false);
});

test("two v3-zk proofs of one statement differ; with one seed they are the same bytes", () => {
  const p = prepareV3("membership", { depth: 8 });
  const requests = [goldenFixture("membership", 8, 5n)];
  const a = proveAggregateV3(p, requests, { zk: true });
  const b = proveAggregateV3(p, requests, { zk: true });
  assert.notDeepEqual(a, b);
  const s1 = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource(1) });
  const s2 = proveAggregateV3(p, requests, { zk: true, random: whirSeededRandomSource(1) });
  assert.deepEqual(s1, s2);
  assert.equal(
    code(
      verifyAggregateV3(
        p,
        requests.map((r) => v3StatementOf(r)),
        s1,
      ),
    ),
    "ok",
  );
});
