import { test } from "node:test";
import assert from "node:assert/strict";
import {
  RECYCLED_WORDS_MAX,
  dropRecycledWords,
  giveBackWords,
  recycledWords,
  takeWords,
} from "../../src/memory/recycled-words.js";

test("the free list hands a given-back vector out once, by exact length, and never a view or a vector listed twice", () => {
  dropRecycledWords();
  const a = takeWords(64);
  assert.equal(a.length, 64);
  assert.deepEqual([...a], new Array(64).fill(0), "a new vector is zeroed");
  a.fill(7);
  giveBackWords([a, a]);
  assert.equal(recycledWords(), 64, "listed once");
  assert.notEqual(takeWords(32), a, "another length is a new vector");
  assert.equal(takeWords(64), a, "the same length takes it back");
  assert.notEqual(takeWords(64), a, "handed out once");
  assert.equal(recycledWords(), 0);
  // a view into a larger buffer is not taken
  const big = new Uint32Array(128);
  giveBackWords([big.subarray(0, 64), big.subarray(64)]);
  assert.equal(recycledWords(), 0);
  // dropping empties the list
  giveBackWords([new Uint32Array(16)]);
  assert.equal(recycledWords(), 16);
  dropRecycledWords();
  assert.equal(recycledWords(), 0);
  assert.ok(RECYCLED_WORDS_MAX >= 1 << 26);
});
