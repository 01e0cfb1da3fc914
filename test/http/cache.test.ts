import { test } from "node:test";
import assert from "node:assert/strict";
import { ProofCache, type CachedProof } from "../../src/http/cache.js";

const entry = (tag: string, size = 10): CachedProof => ({
  body: { tag },
  json: JSON.stringify({ tag }),
  hit: Buffer.from(tag),
  bytes: new Uint8Array(0),
  size,
});

test("ProofCache.find: the entry under whichever kind holds one, one hit or one miss per call, roots as digits or text alike", () => {
  const c = new ProofCache(1000);
  const root = Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
  c.set(ProofCache.key(root, "a", "nonmembership@v3"), entry("absent-a"));
  c.set(ProofCache.key(root, "b", "membership@v3"), entry("member-b"));
  const kinds = ["membership@v3", "nonmembership@v3"];
  assert.equal(c.find(root, "a", kinds)?.body["tag"], "absent-a");
  assert.equal(c.find(root, "b", kinds)?.body["tag"], "member-b");
  assert.equal(c.hits, 2);
  assert.equal(c.misses, 0);
  // another profile's kinds, another name, another root: misses, counted once each
  assert.equal(c.find(root, "a", ["membership", "nonmembership"]), undefined);
  assert.equal(c.find(root, "c", kinds), undefined);
  assert.equal(c.find(Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 9]), "a", kinds), undefined);
  assert.equal(c.misses, 3);
  assert.equal(c.hits, 2);
  // the root as its formatted text finds the same entry
  const text = ProofCache.key(root, "", "").split("|")[0]!;
  assert.equal(c.find(text, "a", kinds)?.body["tag"], "absent-a");
});

test("ProofCache.find keeps the least-recently-used order: a found entry outlives an older one", () => {
  const c = new ProofCache(25);
  const root = Uint32Array.from([0, 0, 0, 0, 0, 0, 0, 1]);
  c.set(ProofCache.key(root, "x", "membership"), entry("x"));
  c.set(ProofCache.key(root, "y", "membership"), entry("y"));
  assert.ok(c.find(root, "x", ["membership", "nonmembership"]));
  c.set(ProofCache.key(root, "z", "membership"), entry("z"));
  assert.ok(c.find(root, "x", ["membership"]), "the entry found last stays");
  assert.equal(c.find(root, "y", ["membership"]), undefined, "the least recently used goes");
});
