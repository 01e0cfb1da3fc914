import { test } from "node:test";
import assert from "node:assert/strict";
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { SyncError } from "../../../src/statement/errors.js";
import { prepareV2, proveBlock, updateRequestOf, verifyBlock } from "../../../src/sync/v2/index.js";

const DEPTH = 4;
const prepared = prepareV2("update", { depth: DEPTH });
const id = (b: number) => new Uint8Array(32).fill(b);

function block(): { updates: OpRequest[]; fromRoot: Uint32Array; toRoot: Uint32Array } {
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
  return { updates: records.map((r) => updateRequestOf(r)), fromRoot, toRoot: tree.root() };
}

test("a block of chained tree updates proves and verifies from its from-root to its to-root", () => {
  const { updates, fromRoot, toRoot } = block();
  const bytes = proveBlock(prepared, updates);
  assert.deepEqual(verifyBlock({ fromRoot, toRoot }, updates, bytes, { prepared }), { ok: true });
});

test("block tamper battery: wrong roots, a replaced, dropped or swapped update are rejected, naming the operation", () => {
  const { updates, fromRoot, toRoot } = block();
  const bytes = proveBlock(prepared, updates);
  const code = (v: ReturnType<typeof verifyBlock>) =>
    v.ok ? "ok" : `${v.code}${v.operation === undefined ? "" : `@${v.operation}`}`;
  assert.equal(code(verifyBlock({ fromRoot: toRoot, toRoot }, updates, bytes, { prepared })), "FROM_ROOT_MISMATCH@0");
  assert.equal(code(verifyBlock({ fromRoot, toRoot: fromRoot }, updates, bytes, { prepared })), "TO_ROOT_MISMATCH@4");
  assert.equal(
    code(
      verifyBlock({ fromRoot, toRoot }, [updates[0]!, updates[2]!, updates[1]!, updates[3]!, updates[4]!], bytes, {
        prepared,
      }),
    ),
    "CHAIN_BROKEN@1",
  );
  assert.equal(code(verifyBlock({ fromRoot, toRoot }, updates.slice(0, 4), bytes, { prepared })), "TO_ROOT_MISMATCH@3");
  // one update replaced by another valid, chained update (a different tree history)
  const other = new SparseMerkleTree({ depth: DEPTH });
  other.insert(9n, [1], id(1));
  const alt = [
    other.insert(3n, [7, 9], id(2)),
    other.replace(9n, [2], id(1)),
    other.delete(3n),
    other.insert(12n, [5], id(3)),
    other.restore(3n, [9], id(2)),
  ].map((r) => updateRequestOf(r));
  const v = verifyBlock({ fromRoot, toRoot: other.root() }, alt, bytes, { prepared });
  assert.equal(v.ok, false);
  assert.equal(code(v), "PUBLIC_INPUTS_MISMATCH@0");
  assert.equal(code(verifyBlock({ fromRoot, toRoot }, [], bytes, { prepared })), "EMPTY_BLOCK");
});

test("proveBlock refuses unchained updates and circuits of another kind", () => {
  const { updates } = block();
  assert.throws(
    () => proveBlock(prepared, [updates[1]!, updates[0]!]),
    (e) => e instanceof SyncError && e.code === "BAD_BLOCK" && e.details.operation === 1,
  );
  assert.throws(
    () => proveBlock(prepareV2("membership", { depth: DEPTH }), updates),
    (e) => e instanceof SyncError && e.code === "BAD_BLOCK",
  );
});
