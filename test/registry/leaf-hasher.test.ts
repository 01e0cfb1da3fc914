/**
 * `LeafHasher.hashLeaves` (the leaf digests of leaves already built, as a mirror hashes a verified
 * block's new leaves) against `hashLeaf` leaf by leaf: Occupied leaves of every payload length the
 * bound allows, Tombstone and Empty, at leaf bounds 10, 31 and 63, with the WASM and the
 * TypeScript permutation.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { LeafHasher } from "../../src/registry/hashing/leaf-hasher.js";
import { typescriptPermutation, wasmPermutation } from "../../src/registry/hashing/permutation.js";
import { EMPTY, TOMBSTONE, hashLeaf, occupied, type Leaf } from "../../src/smt/leaf.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function leaves(B: number, rand: () => number): Leaf[] {
  const out: Leaf[] = [EMPTY, TOMBSTONE];
  for (let len = 0; len <= B - 10; len++) {
    const identity = Uint8Array.from({ length: 32 }, () => Math.floor(rand() * 256));
    out.push(
      occupied(
        Array.from({ length: len }, () => Math.floor(rand() * 2130706433)),
        identity,
      ),
    );
  }
  out.push(TOMBSTONE);
  return out;
}

test("hashLeaves equals hashLeaf leaf by leaf (bounds 10, 31, 63; WASM and TypeScript permutations)", () => {
  for (const perm of [wasmPermutation(), typescriptPermutation()])
    for (const B of [10, 31, 63]) {
      const list = leaves(B, rng(B));
      const got = new LeafHasher(B, perm).hashLeaves(list);
      assert.equal(got.length, 8 * list.length);
      list.forEach((l, i) =>
        assert.deepEqual(Array.from(got.subarray(8 * i, 8 * i + 8)), Array.from(hashLeaf(l, B)), `B ${B} leaf ${i}`),
      );
      assert.equal(new LeafHasher(B, perm).hashLeaves([]).length, 0);
    }
});

test("hashLeaves refuses a leaf longer than the bound", () => {
  const long = occupied(new Array(2).fill(1), new Uint8Array(32));
  assert.throws(() => new LeafHasher(10, typescriptPermutation()).hashLeaves([long]), { code: "LEAF_ENCODING" });
});
