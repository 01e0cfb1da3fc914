import { test } from "node:test";
import assert from "node:assert/strict";
import { SparseMerkleTree } from "../../src/smt/tree.js";
import { EMPTY, TOMBSTONE, hashLeaf, occupied, type Leaf } from "../../src/smt/leaf.js";
import type { OpRequest } from "../../src/smt/operation.js";
import { checkOperation } from "../../src/smt/semantics.js";
import { OpKind } from "../../src/statement/types.js";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";

const DEPTH = 4;
const id = (b: number) => new Uint8Array(32).fill(b);
const prepared: Record<string, PreparedSync> = {};
const prep = (k: OpKind) => (prepared[k] ??= prepare(k, { depth: DEPTH }));

/** Proves (even a false statement) and verifies the encoded proof; a proving failure counts as rejection. */
function provesAndVerifies(request: OpRequest): boolean {
  const p = prep(request.operation.kind);
  let bytes: Uint8Array;
  try {
    bytes = encodeSyncResult(p, provePrepared(p, request));
  } catch {
    return false;
  }
  return verifyEncoded(p, request, bytes).ok;
}

function tree(): SparseMerkleTree {
  const t = new SparseMerkleTree({ depth: DEPTH });
  t.insert(3n, [7, 8], id(1));
  t.insert(5n, [9], id(2));
  t.insert(6n, [1, 2, 3], id(3));
  t.delete(6n);
  return t;
}

function membership(t: SparseMerkleTree, key: bigint): OpRequest {
  const leaf = t.get(key);
  if (leaf.tag !== 1) throw new Error("not occupied");
  const root = t.root();
  return {
    operation: { kind: OpKind.Membership, key, leaf },
    witness: { leaf, siblings: t.path(key) },
    publicInputs: { oldRoot: root, newRoot: root, opKindTag: 0, assetId: key, valueDigest: hashLeaf(leaf) },
  };
}

function absence(t: SparseMerkleTree, key: bigint, witnessLeaf: Leaf = t.get(key)): OpRequest {
  const root = t.root();
  return {
    operation: { kind: OpKind.NonMembership, key },
    witness: { leaf: witnessLeaf, siblings: t.path(key) },
    publicInputs: { oldRoot: root, newRoot: root, opKindTag: 1, assetId: key, valueDigest: hashLeaf(witnessLeaf) },
  };
}

function update(t: SparseMerkleTree, key: bigint, apply: (t: SparseMerkleTree) => unknown): OpRequest {
  const oldLeaf = t.get(key);
  const oldRoot = t.root();
  const siblings = t.path(key);
  apply(t);
  const newLeaf = t.get(key);
  return {
    operation: { kind: OpKind.Update, key, oldLeaf, newLeaf },
    witness: { leaf: oldLeaf, siblings },
    publicInputs: { oldRoot, newRoot: t.root(), opKindTag: 2, assetId: key, valueDigest: hashLeaf(newLeaf) },
  };
}

const cases: [string, () => OpRequest, boolean][] = [
  ["honest membership", () => membership(tree(), 3n), true],
  ["honest non-membership of a never-used slot", () => absence(tree(), 9n), true],
  ["honest non-membership of a deleted slot", () => absence(tree(), 6n), true],
  ["honest insert", () => update(tree(), 10n, (t) => t.insert(10n, [4], id(4))), true],
  ["honest replace", () => update(tree(), 3n, (t) => t.replace(3n, [70, 80], id(1))), true],
  ["honest delete", () => update(tree(), 5n, (t) => t.delete(5n)), true],
  ["honest restore", () => update(tree(), 6n, (t) => t.restore(6n, [5], id(3))), true],
  [
    "occupied leaf claimed absent (witness is the occupied leaf)",
    () => {
      const t = tree();
      const r = absence(t, 3n);
      return { ...r, publicInputs: { ...r.publicInputs, valueDigest: hashLeaf(EMPTY) } };
    },
    false,
  ],
  ["occupied leaf claimed absent (witness Empty)", () => absence(tree(), 3n, EMPTY), false],
  [
    "wrong sibling",
    () => {
      const r = membership(tree(), 3n);
      const siblings = r.witness.siblings.map((s) => s.slice());
      siblings[2]![0] = (siblings[2]![0]! + 1) % 2130706433;
      return { ...r, witness: { ...r.witness, siblings } };
    },
    false,
  ],
  [
    "wrong root",
    () => {
      const r = membership(tree(), 3n);
      const root = r.publicInputs.oldRoot.slice();
      root[7] = (root[7]! + 1) % 2130706433;
      return { ...r, publicInputs: { ...r.publicInputs, oldRoot: root, newRoot: root } };
    },
    false,
  ],
  [
    "wrong value digest",
    () => {
      const r = membership(tree(), 3n);
      return { ...r, publicInputs: { ...r.publicInputs, valueDigest: hashLeaf(occupied([7, 9], id(1))) } };
    },
    false,
  ],
  [
    "update whose witness leaf differs from old_leaf",
    () => {
      const r = update(tree(), 3n, (t) => t.replace(3n, [1], id(1)));
      return { ...r, witness: { ...r.witness, leaf: occupied([7, 9], id(1)) } };
    },
    false,
  ],
  [
    "update claiming a Tombstone where the slot was Empty",
    () => {
      const r = update(tree(), 11n, (t) => t.insert(11n, [1], id(5)));
      if (r.operation.kind !== OpKind.Update) throw new Error();
      return { ...r, operation: { ...r.operation, oldLeaf: TOMBSTONE }, witness: { ...r.witness, leaf: TOMBSTONE } };
    },
    false,
  ],
  [
    "key out of range",
    () => {
      const r = membership(tree(), 3n);
      const key = 3n + (1n << BigInt(DEPTH));
      if (r.operation.kind !== OpKind.Membership) throw new Error();
      return { ...r, operation: { ...r.operation, key }, publicInputs: { ...r.publicInputs, assetId: key } };
    },
    false,
  ],
  [
    "payload over the leaf bound",
    () => {
      const leaf = occupied(new Array(22).fill(1), id(9));
      const r = membership(tree(), 3n);
      return { ...r, operation: { kind: OpKind.Membership, key: 3n, leaf }, witness: { ...r.witness, leaf } };
    },
    false,
  ],
];

for (const [name, make, expected] of cases) {
  test(`semantics battery: ${name}`, () => {
    const request = make();
    const native = checkOperation(request, { depth: DEPTH });
    assert.equal(native.valid, expected, `native oracle: ${native.code} ${native.message}`);
    assert.equal(provesAndVerifies(request), expected, "proof verification agrees with the native oracle");
  });
}
