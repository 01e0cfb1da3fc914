import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SparseMerkleTree } from "../../src/smt/tree.js";
import { EMPTY, TOMBSTONE, LeafTag, hashLeaf, leafEquals, occupied, type Leaf } from "../../src/smt/leaf.js";
import { computeRoot } from "../../src/smt/path.js";
import { SmtError } from "../../src/smt/errors.js";
import { compress, digestEquals } from "../../src/hash/digest.js";
import { checkOperation } from "../../src/smt/semantics.js";
import { OpKind } from "../../src/statement/types.js";

const smtCode = (c: string) => (e: unknown) => e instanceof SmtError && e.code === c;

/** Root of a full tree computed from scratch from a model of its leaves. */
function naiveRoot(depth: number, model: Map<bigint, Leaf>): Uint32Array {
  let level: Uint32Array[] = [];
  for (let k = 0n; k < 1n << BigInt(depth); k++) level.push(hashLeaf(model.get(k) ?? EMPTY));
  while (level.length > 1) {
    const up: Uint32Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(compress(level[i]!, level[i + 1]!));
    level = up;
  }
  return level[0]!;
}

const opArb = (keyArb: fc.Arbitrary<bigint>) =>
  fc.record({
    op: fc.constantFrom("insert", "replace", "delete", "restore"),
    key: keyArb,
    payload: fc.array(fc.integer({ min: 0, max: 2130706432 }), { maxLength: 3 }),
    idByte: fc.integer({ min: 0, max: 255 }),
  });

type Op = { op: string; key: bigint; payload: number[]; idByte: number };

/** Applies op to tree and model; asserts the typed error on a wrong state (and that nothing changed). */
function apply(tree: SparseMerkleTree, model: Map<bigint, Leaf>, o: Op): void {
  const cur = model.get(o.key) ?? EMPTY;
  const id = new Uint8Array(32).fill(o.idByte);
  const rootBefore = tree.root();
  const want: Record<string, [LeafTag, string]> = {
    insert: [LeafTag.Empty, "SLOT_NOT_EMPTY"],
    replace: [LeafTag.Occupied, "SLOT_NOT_OCCUPIED"],
    delete: [LeafTag.Occupied, "SLOT_NOT_OCCUPIED"],
    restore: [LeafTag.Tombstone, "SLOT_NOT_TOMBSTONE"],
  };
  const [needed, code] = want[o.op]!;
  const run = () =>
    o.op === "insert"
      ? tree.insert(o.key, o.payload, id)
      : o.op === "replace"
        ? tree.replace(o.key, o.payload, id)
        : o.op === "delete"
          ? tree.delete(o.key)
          : tree.restore(o.key, o.payload, id);
  if (cur.tag !== needed) {
    assert.throws(run, smtCode(code));
    assert.deepEqual(tree.root(), rootBefore, "a failed operation changes nothing");
    return;
  }
  const rec = run();
  const next: Leaf = o.op === "delete" ? TOMBSTONE : occupied(o.payload, id);
  model.set(o.key, next);
  assert.ok(leafEquals(rec.oldLeaf, cur));
  assert.ok(leafEquals(rec.newLeaf, next));
  assert.deepEqual(rec.oldRoot, rootBefore);
  assert.deepEqual(rec.newRoot, tree.root());
  assert.deepEqual(computeRoot(rec.oldLeaf, o.key, rec.siblings, tree.depth), rec.oldRoot);
  assert.deepEqual(computeRoot(rec.newLeaf, o.key, rec.siblings, tree.depth), rec.newRoot);
}

test("fresh tree: root is default_depth, every slot is Empty with default siblings", () => {
  const t = new SparseMerkleTree({ depth: 5 });
  assert.deepEqual(t.defaultDigest(0), hashLeaf(EMPTY));
  assert.deepEqual(t.defaultDigest(1), compress(hashLeaf(EMPTY), hashLeaf(EMPTY)));
  assert.deepEqual(t.root(), t.defaultDigest(5));
  assert.deepEqual(t.root(), naiveRoot(5, new Map()));
  assert.deepEqual(
    t.path(13n),
    [0, 1, 2, 3, 4].map((l) => t.defaultDigest(l)),
  );
  assert.equal(t.get(13n).tag, LeafTag.Empty);
  assert.equal(t.size, 0);
});

test("law (depth 4): after any sequence of inserts, replaces, deletes and restores every path recomputes the root", () => {
  fc.assert(
    fc.property(fc.array(opArb(fc.bigInt({ min: 0n, max: 15n })), { maxLength: 30 }), (ops) => {
      const tree = new SparseMerkleTree({ depth: 4 });
      const model = new Map<bigint, Leaf>();
      for (const o of ops) apply(tree, model, o);
      const root = tree.root();
      assert.deepEqual(root, naiveRoot(4, model));
      for (let k = 0n; k < 16n; k++) {
        assert.ok(leafEquals(tree.get(k), model.get(k) ?? EMPTY));
        assert.deepEqual(computeRoot(tree.get(k), k, tree.path(k), 4), root);
      }
      assert.deepEqual(
        tree.keys(),
        [...model.keys()].sort((a, b) => (a < b ? -1 : 1)),
      );
    }),
    { numRuns: 60 },
  );
});

test("law (depth 64): random u64 keys; touched slots and an unused slot verify against the root", () => {
  fc.assert(
    fc.property(
      fc.array(
        opArb(fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(0n, 1n, (1n << 63n) + 1n))),
        { maxLength: 8 },
      ),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      (ops, probe) => {
        const tree = new SparseMerkleTree({ depth: 64 });
        const model = new Map<bigint, Leaf>();
        for (const o of ops) apply(tree, model, o);
        const root = tree.root();
        for (const k of [...model.keys(), probe]) assert.deepEqual(computeRoot(tree.get(k), k, tree.path(k), 64), root);
      },
    ),
    { numRuns: 15 },
  );
});

test("non-membership of a never-used slot verifies through the default subtree (oracle)", () => {
  const tree = new SparseMerkleTree({ depth: 6 });
  tree.insert(3n, [1], new Uint8Array(32).fill(1));
  tree.insert(40n, [2], new Uint8Array(32).fill(2));
  tree.delete(40n);
  const key = 17n;
  const request = {
    operation: { kind: OpKind.NonMembership, key },
    witness: { leaf: tree.get(key), siblings: tree.path(key) },
    publicInputs: {
      oldRoot: tree.root(),
      newRoot: tree.root(),
      opKindTag: 1,
      assetId: key,
      valueDigest: hashLeaf(EMPTY),
    },
  };
  assert.equal(checkOperation(request, { depth: 6 }).code, "VALID");
  const tomb = {
    ...request,
    operation: { kind: OpKind.NonMembership, key: 40n },
    witness: { leaf: tree.get(40n), siblings: tree.path(40n) },
    publicInputs: { ...request.publicInputs, assetId: 40n, valueDigest: hashLeaf(TOMBSTONE) },
  };
  assert.equal(checkOperation(tomb, { depth: 6 }).code, "VALID", "a deleted slot proves absence as a Tombstone");
  const live = {
    ...request,
    operation: { kind: OpKind.NonMembership, key: 3n },
    witness: { leaf: EMPTY, siblings: tree.path(3n) },
    publicInputs: { ...request.publicInputs, assetId: 3n },
  };
  assert.equal(
    checkOperation(live, { depth: 6 }).code,
    "OLD_ROOT_MISMATCH",
    "an occupied slot cannot be claimed Empty",
  );
});

test("operations on wrong states and bad inputs give typed errors", () => {
  const tree = new SparseMerkleTree({ depth: 8 });
  const id = new Uint8Array(32).fill(7);
  tree.insert(5n, [1], id);
  assert.throws(() => tree.insert(5n, [2], id), smtCode("SLOT_NOT_EMPTY"));
  assert.throws(() => tree.delete(6n), smtCode("SLOT_NOT_OCCUPIED"));
  assert.throws(() => tree.replace(6n, [1], id), smtCode("SLOT_NOT_OCCUPIED"));
  assert.throws(() => tree.restore(5n, [1], id), smtCode("SLOT_NOT_TOMBSTONE"), "restore of a live slot");
  assert.throws(() => tree.restore(6n, [1], id), smtCode("SLOT_NOT_TOMBSTONE"), "restore of an empty slot");
  tree.delete(5n);
  assert.throws(() => tree.delete(5n), smtCode("SLOT_NOT_OCCUPIED"));
  assert.throws(() => tree.insert(5n, [1], id), smtCode("SLOT_NOT_EMPTY"), "a tombstone is not Empty");
  const before = tree.root();
  assert.throws(() => tree.restore(5n, new Array(22).fill(1), id), smtCode("LEAF_ENCODING"));
  assert.ok(digestEquals(tree.root(), before));
  assert.equal(tree.get(5n).tag, LeafTag.Tombstone);
  tree.restore(5n, [3], id);
  assert.equal(tree.get(5n).tag, LeafTag.Occupied);
  assert.throws(() => tree.get(256n), smtCode("KEY_OUT_OF_RANGE"));
  assert.throws(() => tree.path(-1n), smtCode("BAD_KEY"));
  assert.throws(() => new SparseMerkleTree({ depth: 0 }), smtCode("BAD_DEPTH"));
  assert.throws(() => new SparseMerkleTree({ depth: 65 }), smtCode("BAD_DEPTH"));
  assert.throws(() => new SparseMerkleTree({ leafMaxFields: 9 }), smtCode("BAD_LEAF_BOUND"));
});
