import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compressReference, type Digest } from "../../src/hash/digest.js";
import { computeRootFromDigest } from "../../src/smt/path.js";
import { defaultDigests } from "../../src/registry/store/store.js";
import { defaultPermutation, typescriptPermutation } from "../../src/registry/hashing/permutation.js";
import {
  Compressor,
  lcaHeight,
  pathOf,
  prefixOf,
  referenceCompact,
  updateCompact,
  type CompactSource,
} from "../../src/registry/hashing/name-tree.js";

const B = 31;

function randomDigest(rand: () => number): Digest {
  return Uint32Array.from({ length: 8 }, () => Math.floor(rand() * 2130706433));
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** In-memory rows: the leaf digests and the branches of a compact tree. */
class MemoryTree implements CompactSource {
  leaves = new Map<number, Digest>();
  branches = new Map<string, Digest>();
  sorted(): number[] {
    return [...this.leaves.keys()].sort((a, b) => a - b);
  }
  firstKeyIn(lo: number, hi: number): number | undefined {
    return this.sorted().find((k) => k >= lo && k < hi);
  }
  lastKeyIn(lo: number, hi: number): number | undefined {
    return this.sorted()
      .filter((k) => k >= lo && k < hi)
      .pop();
  }
  leafDigest(key: number): Digest {
    return this.leaves.get(key)!;
  }
  branch(h: number, p: number): Digest {
    const d = this.branches.get(`${h}/${p}`);
    assert.ok(d, `branch ${h}/${p} is stored`);
    return d;
  }
}

/** Branches written by `applyBatch` so far: [overwritten, created]. */
const seenCreated = [0, 0];

function applyBatch(
  t: MemoryTree,
  depth: number,
  defaults: Digest[],
  c: Compressor,
  changes: Map<number, Digest>,
): Digest {
  const E = Float64Array.from(t.sorted());
  const keys = Float64Array.from([...changes.keys()].sort((a, b) => a - b));
  const digests = new Uint32Array(8 * keys.length);
  keys.forEach((k, i) => digests.set(changes.get(k)!, 8 * i));
  const { root, branches } = updateCompact(depth, defaults, c, E, E.length, keys, digests, t);
  // a branch is created by the batch exactly when no row of it was stored before
  for (let i = 0; i < branches.count; i++) {
    const id = `${branches.heights[i]}/${branches.prefixes[i]}`;
    assert.equal(branches.created[i], t.branches.has(id) ? 0 : 1, `created flag of branch ${id}`);
    seenCreated[branches.created[i]!]!++;
  }
  for (const [k, d] of changes) t.leaves.set(k, d);
  for (let i = 0; i < branches.count; i++)
    t.branches.set(`${branches.heights[i]}/${branches.prefixes[i]}`, branches.digests.slice(8 * i, 8 * i + 8));
  return root;
}

test("lcaHeight and prefixOf on keys up to 2^48", () => {
  assert.equal(lcaHeight(5, 5), 0);
  assert.equal(lcaHeight(4, 5), 1);
  assert.equal(lcaHeight(0, 2 ** 47), 48);
  assert.equal(lcaHeight(2 ** 40 + 3, 2 ** 40 + 1), 2);
  assert.equal(lcaHeight(2 ** 33, 2 ** 33 + 2 ** 32), 33);
  assert.equal(prefixOf(2 ** 47 + 6, 1), 2 ** 46 + 3);
});

test("batched compact updates equal the plain reference, and paths recompute the root (random keys, depths 6, 20, 48)", () => {
  const c = new Compressor(defaultPermutation());
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 30 }),
      fc.constantFrom(6, 20, 48),
      fc.integer({ min: 1, max: 40 }),
      (seed, depth, count) => {
        const rand = rng(seed);
        const defaults = defaultDigests(depth, B);
        const t = new MemoryTree();
        const all = new Map<number, Digest>();
        let root = defaults[depth]!;
        for (let batch = 0; batch < 3; batch++) {
          const changes = new Map<number, Digest>();
          for (let i = 0; i < count; i++) {
            // new keys, and now and then a stored key that changes its leaf
            const stored = t.sorted();
            const key =
              stored.length > 0 && rand() < 0.2
                ? stored[Math.floor(rand() * stored.length)]!
                : Math.floor(rand() * 2 ** depth);
            changes.set(key, randomDigest(rand));
          }
          root = applyBatch(t, depth, defaults, c, changes);
          for (const [k, d] of changes) all.set(k, d);
          const keys = [...all.keys()].sort((a, b) => a - b);
          const ref = referenceCompact(
            depth,
            defaults,
            compressReference,
            keys,
            keys.map((k) => all.get(k)!),
          );
          assert.deepEqual(Array.from(root), Array.from(ref.root));
          assert.deepEqual([...t.branches.keys()].sort(), [...ref.branches.keys()].sort());
          for (const [k, d] of ref.branches)
            assert.deepEqual(Array.from(t.branches.get(k)!), Array.from(d), `branch ${k}`);
        }
        for (const key of [...all.keys()].slice(0, 5).concat([Math.floor(rand() * 2 ** depth)])) {
          const path = pathOf(t, c, defaults, depth, key);
          const leaf = all.get(key) ?? defaults[0]!;
          assert.deepEqual(
            Array.from(computeRootFromDigest(leaf, BigInt(key), path.siblings)),
            Array.from(root),
            `path of ${key}`,
          );
        }
      },
    ),
    { numRuns: 40 },
  );
});

test("the created flags of a batch's branches name the branches stored before it (dense keys at depth 10, three batches)", () => {
  const c = new Compressor(defaultPermutation());
  const depth = 10;
  const defaults = defaultDigests(depth, B);
  const rand = rng(7);
  const t = new MemoryTree();
  const before = [seenCreated[0]!, seenCreated[1]!];
  for (let batch = 0; batch < 3; batch++) {
    const changes = new Map<number, Digest>();
    for (let i = 0; i < 200; i++) changes.set(Math.floor(rand() * 2 ** depth), randomDigest(rand));
    applyBatch(t, depth, defaults, c, changes);
  }
  // both kinds occur (applyBatch checks each flag against the stored branches)
  assert.ok(seenCreated[0]! - before[0]! > 100, "overwritten branches");
  assert.ok(seenCreated[1]! - before[1]! > 100, "created branches");
});

test("edge keys: 0, 2^d − 1, neighbours and one record", () => {
  const c = new Compressor(defaultPermutation());
  for (const depth of [1, 2, 48]) {
    const defaults = defaultDigests(depth, B);
    const t = new MemoryTree();
    const rand = rng(depth);
    const keys = [...new Set([0, 2 ** depth - 1, Math.min(1, 2 ** depth - 1)])];
    const all = new Map<number, Digest>();
    for (const k of keys) {
      const one = new Map([[k, randomDigest(rand)]]);
      const root = applyBatch(t, depth, defaults, c, one);
      for (const [kk, d] of one) all.set(kk, d);
      const sorted = [...all.keys()].sort((a, b) => a - b);
      assert.deepEqual(
        Array.from(root),
        Array.from(
          referenceCompact(
            depth,
            defaults,
            compressReference,
            sorted,
            sorted.map((x) => all.get(x)!),
          ).root,
        ),
      );
    }
  }
});

test("h_node of one pair is compat-v1's compression whichever way it runs (the kernels' one-state compression, a batch of one, the TypeScript permutation)", () => {
  const field = fc.integer({ min: 0, max: 0x7f000000 });
  const digest = fc.array(field, { minLength: 8, maxLength: 8 });
  const compressors = [new Compressor(defaultPermutation()), new Compressor(typescriptPermutation())];
  fc.assert(
    fc.property(digest, digest, (l, r) => {
      const want = compressReference(l, r);
      for (const c of compressors) {
        assert.deepEqual([...c.one(l, r)], [...want], c.perm.kind);
        const b = c.buffer(1);
        b.set(l, 0);
        b.set(r, 8);
        assert.deepEqual([...c.run(1).subarray(0, 8)], [...want], `${c.perm.kind}, a batch of one`);
      }
    }),
    { numRuns: 200 },
  );
});
