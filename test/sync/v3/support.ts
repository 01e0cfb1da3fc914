/** Fixtures of the profile v3 tests: a chained block of updates over a small tree, and verdicts as short strings. */
import { SparseMerkleTree } from "../../../src/smt/tree.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import type { Leaf } from "../../../src/smt/leaf.js";
import { updateRequestOf } from "../../../src/sync/v2/index.js";
import type { V3OldLeafRule } from "../../../src/smt/v3/statement.js";
import type { V3BlockUpdate, V3Verdict } from "../../../src/sync/v3/index.js";

/** A verdict as `ok` or `CODE` / `CODE@operation`. */
export const verdictCode = (v: V3Verdict): string =>
  v.ok ? "ok" : `${v.code}${v.operation === undefined ? "" : `@${v.operation}`}`;

/** A 32-byte identity filled with `b`. */
export const identityOf = (b: number): Uint8Array => new Uint8Array(32).fill(b);

/** The rule an update's old leaf obeys, as a registry states it. */
export function ruleOf(old: Leaf): V3OldLeafRule {
  if (old.tag === 0) return { rule: "empty" };
  if (old.tag === 2) return { rule: "tombstone" };
  return { rule: "record", identity: old.identity };
}

/** A block fixture: the update requests, their rules and the two outer roots. */
export interface BlockFixture {
  readonly updates: OpRequest[];
  readonly rules: V3OldLeafRule[];
  readonly fromRoot: Uint32Array;
  readonly toRoot: Uint32Array;
}

/**
 * Chained updates over a tree of `depth` (insert, replace, delete, insert, restore; the first
 * `count` of them). `seed` changes the payloads, so two seeds give two different blocks from the
 * same starting tree.
 */
export function blockFixture(depth: number, count = 5, seed = 0): BlockFixture {
  const tree = new SparseMerkleTree({ depth });
  tree.insert(9n, [1], identityOf(1));
  const fromRoot = tree.root();
  const steps = [
    () => tree.insert(3n, [7 + seed, 8], identityOf(2)),
    () => tree.replace(9n, [2 + seed], identityOf(1)),
    () => tree.delete(3n),
    () => tree.insert(12n, [5 + seed], identityOf(3)),
    () => tree.restore(3n, [9 + seed], identityOf(2)),
  ];
  const updates = steps.slice(0, count).map((s) => updateRequestOf(s()));
  return {
    updates,
    rules: updates.map((u) => ruleOf((u.operation as { oldLeaf: Leaf }).oldLeaf)),
    fromRoot,
    toRoot: tree.root(),
  };
}

/** The verifier's view of the updates of a block (key, new leaf, rule). */
export function blockUpdates(updates: readonly OpRequest[], rules: readonly V3OldLeafRule[]): V3BlockUpdate[] {
  return updates.map((u, i) => {
    const op = u.operation as { key: bigint; newLeaf: Leaf };
    return { key: op.key, newLeaf: op.newLeaf, oldLeaf: rules[i]! };
  });
}
