import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { currentHashBackend, typescriptHashBackend } from "../../src/hash/backend.js";

function states(n: number, seed: number, edge = false): Uint32Array {
  const s = new Uint32Array(16 * n);
  for (let i = 0; i < s.length; i++)
    s[i] = edge ? [0, 1, P - 1, P - 2][(i + seed) % 4]! : (Math.imul(i + seed, 0x9e3779b1) >>> 0) % P;
  return s;
}

test("the backend's batched permutation (permuteMany) is the WASM kernel and equals the TypeScript reference on 0..9 and 1,000 states, random and edge values", () => {
  assert.equal(currentHashBackend().name, "wasm");
  for (const n of [0, 1, 2, 3, 4, 5, 7, 8, 9, 1000]) {
    for (const edge of [false, true]) {
      const a = states(n, n + 1, edge);
      const b = a.slice();
      currentHashBackend().permuteMany(a, n);
      typescriptHashBackend.permuteMany(b, n);
      assert.deepEqual(a, b, `n ${n} edge ${edge}`);
      if (n > 0) assert.notDeepEqual(a, states(n, n + 1, edge));
    }
  }
});

test("the backend's batched permutation touches only the first n states, WASM and TypeScript", () => {
  const a = states(6, 3);
  const tail = a.slice(16 * 4);
  const b = a.slice();
  currentHashBackend().permuteMany(a, 4);
  typescriptHashBackend.permuteMany(b, 4);
  assert.deepEqual(a.subarray(16 * 4), tail);
  assert.deepEqual(b.subarray(16 * 4), tail);
});
