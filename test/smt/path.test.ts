import { test } from "node:test";
import assert from "node:assert/strict";
import { computeRoot, pathBits, checkKeyInRange, pathAccumulators, computeRootFromDigest } from "../../src/smt/path.js";
import { EMPTY, hashLeaf, occupied } from "../../src/smt/leaf.js";
import { SmtError } from "../../src/smt/errors.js";
import { compress } from "../../src/hash/digest.js";
import { goldenFixture, goldenSiblings } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";

const smtCode = (c: string) => (e: unknown) => e instanceof SmtError && e.code === c;

test("§18: F(Membership, 24, 5) old_root = new_root and value_digest", () => {
  const f = goldenFixture(OpKind.Membership, 24, 5n);
  const root = [713004424, 270442322, 1876444405, 1505254917, 494852605, 719176658, 1480955704, 421700720];
  assert.deepEqual(Array.from(f.publicInputs.oldRoot), root);
  assert.deepEqual(Array.from(f.publicInputs.newRoot), root);
  assert.deepEqual(
    Array.from(f.publicInputs.valueDigest),
    [1630914124, 962698856, 216251327, 5423522, 312446001, 334061253, 1375161570, 1608966517],
  );
  assert.equal(f.publicInputs.opKindTag, 0);
  assert.equal(f.publicInputs.assetId, 5n);
});

test("golden fixtures of every kind: shapes and roots", () => {
  const m = goldenFixture(OpKind.Membership, 4, 9n);
  assert.equal(m.operation.kind, OpKind.Membership);
  assert.deepEqual(
    m.witness.siblings.map((s) => s[0]),
    [1, 14, 27, 40],
  );
  assert.ok(m.witness.siblings.every((s) => s.every((x) => x === s[0])));
  const n = goldenFixture(OpKind.NonMembership, 4, 9n);
  assert.deepEqual(n.publicInputs.valueDigest, hashLeaf(EMPTY));
  assert.deepEqual(n.publicInputs.oldRoot, computeRoot(EMPTY, 9n, goldenSiblings(4), 4));
  const u = goldenFixture(OpKind.Update, 4, 9n);
  assert.notDeepEqual(u.publicInputs.oldRoot, u.publicInputs.newRoot);
  assert.equal(u.config.depth, 4);
  assert.throws(() => goldenFixture(OpKind.Membership, 4, 16n), smtCode("KEY_OUT_OF_RANGE"));
  const big = goldenFixture(OpKind.Membership, 40, 0x1_ffff_ffffn);
  assert.equal(
    big.operation.kind === OpKind.Membership && big.operation.leaf.payload[1],
    4294967295 - 2 * 2130706433,
    "key mod 2^32, reduced mod p",
  );
});

test("compute_root folds siblings upward by key bit (leaf-adjacent first)", () => {
  const leaf = occupied([1, 2, 3], new Uint8Array(32).fill(1));
  const sibs = [new Uint32Array(8).fill(11), new Uint32Array(8).fill(22), new Uint32Array(8).fill(33)];
  const key = 0b101n;
  const h = hashLeaf(leaf);
  const expected = compress(sibs[2]!, compress(compress(sibs[0]!, h), sibs[1]!));
  assert.deepEqual(computeRoot(leaf, key, sibs, 3), expected);
  assert.deepEqual(computeRootFromDigest(h, key, sibs), expected);
  assert.deepEqual(pathAccumulators(h, key, sibs)[3], expected);
  assert.deepEqual(pathBits(key, 3), [1, 0, 1]);
  assert.deepEqual(pathBits((1n << 64n) - 1n, 64).length, 64);
});

test("compute_root checks, in order: path length, key range, leaf encoding", () => {
  const sibs = goldenSiblings(3);
  const longLeaf = occupied(new Array(40).fill(1), new Uint8Array(32));
  assert.throws(() => computeRoot(longLeaf, 99n, sibs.slice(1), 3), smtCode("PATH_LENGTH_MISMATCH"));
  assert.throws(() => computeRoot(longLeaf, 8n, sibs, 3), smtCode("KEY_OUT_OF_RANGE"));
  assert.throws(() => computeRoot(longLeaf, 7n, sibs, 3), smtCode("LEAF_ENCODING"));
  assert.throws(() => computeRoot(EMPTY, -1n, sibs, 3), smtCode("BAD_KEY"));
  assert.throws(() => computeRoot(EMPTY, 5 as unknown as bigint, sibs, 3), smtCode("BAD_KEY"));
  assert.throws(() => computeRoot(EMPTY, 0n, [], 0), smtCode("BAD_DEPTH"));
  assert.equal(checkKeyInRange((1n << 64n) - 1n, 64), (1n << 64n) - 1n, "no range check at depth 64");
  assert.throws(() => checkKeyInRange(1n << 64n, 64), smtCode("BAD_KEY"));
});
