/**
 * The width-24 leaf kernels (src/kernels/assembly/merkle24.ts, poseidon2-x4w24.ts) against the
 * TypeScript reference (src/hash/poseidon2-24.ts, src/pcs/merkle.ts): the permutation on random
 * and edge states and on the Plonky3 known answer, and the leaf sponge of whole trees — base and
 * extension codewords, single and paired, with and without the fallback to the reference.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P, random } from "../../src/field/koalabear.js";
import { permute24, sponge24 } from "../../src/hash/poseidon2-24.js";
import { merkleTreeOfCodeword, merkleTreeOfCodewordPair, typescriptPcsBackend } from "../../src/pcs/backend.js";
import { rowsOfCodeword } from "../../src/pcs/encode.js";
import { buildMerkleTreeReference, hashRows24 } from "../../src/pcs/merkle.js";
import { wasmPcsBackend } from "../../src/kernels/pcs-kernels.js";
import { vectors } from "../support/vectors.js";

const wasm = wasmPcsBackend();

function inputs(words: number): Uint32Array[] {
  return [
    new Uint32Array(words).map(() => random()),
    new Uint32Array(words).fill(P - 1),
    new Uint32Array(words),
    Uint32Array.from({ length: words }, (_, i) => (i % 5 === 0 ? P - 1 : i % 7)),
  ];
}

test("the kernel's width-24 permutation gives the Plonky3 v0.4.x known answer and the reference's result on random and edge states", () => {
  assert.ok(wasm);
  const kat = vectors.poseidon2.test_vectors.find(
    (t: { constants: string; width: number }) => t.constants === "plonky3_v0.4.x" && t.width === 24,
  );
  const one = Uint32Array.from(kat.input as number[]);
  wasm.permute24(one);
  assert.deepEqual(Array.from(one), kat.expected_output);
  for (const n of [1, 2, 3, 4, 5, 7, 8, 9]) {
    for (const states of inputs(24 * n)) {
      const expected = new Uint32Array(24 * n);
      for (let i = 0; i < n; i++) expected.set(permute24(states.subarray(24 * i, 24 * i + 24)), 24 * i);
      const got = states.slice();
      wasm.permute24(got);
      assert.deepEqual(got, expected, `${n} states`);
    }
  }
  assert.throws(() => wasm.permute24(new Uint32Array(23)), RangeError);
});

test("the width-24 leaf kernel's trees equal the reference (base and extension codewords; fallback where rows are not whole blocks of 16)", () => {
  assert.ok(wasm);
  const before = wasm.residentTables;
  // [width, log|L|, k]: width 1 with k < 4 and log rows < 2 take the reference.
  for (const [width, logDomain, k] of [
    [1, 9, 5],
    [1, 8, 4],
    [1, 7, 3],
    [4, 9, 5],
    [4, 8, 2],
    [4, 6, 1],
    [1, 6, 5],
    [4, 12, 5],
  ] as const) {
    for (const codeword of inputs((1 << logDomain) * width)) {
      const what = `width ${width}, log|L| ${logDomain}, k ${k}`;
      const rows = rowsOfCodeword(codeword, width, logDomain, k);
      const reference = buildMerkleTreeReference(rows, (1 << k) * width, logDomain - k, 24);
      // The reference's leaves are sponge24 of each row, and differ from the width-16 leaves.
      assert.deepEqual(reference.levels[0]!.subarray(0, 8), sponge24(rows.subarray(0, (1 << k) * width)), what);
      assert.notDeepEqual(reference.root, buildMerkleTreeReference(rows, (1 << k) * width, logDomain - k).root, what);
      const tree = wasm.merkle(codeword, width, logDomain, k, 24);
      assert.deepEqual(
        tree.levels.map((l) => l.slice()),
        reference.levels,
        what,
      );
      assert.deepEqual(tree.root, reference.root, what);
      assert.deepEqual(typescriptPcsBackend.merkle(codeword, width, logDomain, k, 24).levels, reference.levels, what);
      assert.deepEqual(merkleTreeOfCodeword(codeword, width, logDomain, k, 24).root, reference.root, what);
      const resident = wasm.resident(codeword);
      assert.deepEqual(wasm.merkle(resident, width, logDomain, k, 24).root, reference.root, `${what}, a working table`);
      wasm.release(resident);
    }
  }
  assert.equal(wasm.residentTables, before, "every working table released");
});

test("the width-24 leaf kernel over two codewords' rows side by side equals the reference", () => {
  assert.ok(wasm);
  for (const [logDomain, k, wa, wb] of [
    [7, 5, 1, 4],
    [9, 4, 1, 4],
    [10, 4, 4, 1],
    [8, 5, 4, 4],
    [9, 3, 1, 4],
    [6, 5, 1, 4],
  ] as const) {
    const what = `log|L| ${logDomain}, k ${k}, widths ${wa} and ${wb}`;
    for (const [a, b] of [0, 1, 2].map((v) => [inputs((1 << logDomain) * wa)[v]!, inputs((1 << logDomain) * wb)[v]!])) {
      const ra = rowsOfCodeword(a!, wa, logDomain, k),
        rb = rowsOfCodeword(b!, wb, logDomain, k);
      const aw = (1 << k) * wa,
        bw = (1 << k) * wb;
      const rows = new Uint32Array(ra.length + rb.length);
      for (let j = 0; j < 1 << (logDomain - k); j++) {
        rows.set(ra.subarray(j * aw, (j + 1) * aw), j * (aw + bw));
        rows.set(rb.subarray(j * bw, (j + 1) * bw), j * (aw + bw) + aw);
      }
      const reference = buildMerkleTreeReference(rows, aw + bw, logDomain - k, 24);
      const tree = wasm.merklePair(a!, wa, b!, wb, logDomain, k, 24);
      assert.deepEqual(
        tree.levels.map((l) => l.slice()),
        reference.levels,
        what,
      );
      assert.deepEqual(merkleTreeOfCodewordPair(a!, wa, b!, wb, logDomain, k, 24).root, reference.root, what);
    }
  }
});

test("the verifier's batched width-24 leaves (hashRows24 through the kernel's permutation) equal each row's sponge24, whatever the row length", () => {
  assert.ok(wasm);
  for (const rowWords of [1, 8, 15, 16, 17, 40, 128, 160]) {
    for (const n of [1, 3, 4, 5, 9]) {
      for (const rows of inputs(rowWords * n)) {
        const expected = new Uint32Array(8 * n);
        for (let i = 0; i < n; i++) expected.set(sponge24(rows.subarray(i * rowWords, (i + 1) * rowWords)), 8 * i);
        assert.deepEqual(
          hashRows24(rows, rowWords, n, (s) => wasm.permute24(s)),
          expected,
          `${n} rows of ${rowWords}`,
        );
        assert.deepEqual(hashRows24(rows, rowWords, n), expected, `${n} rows of ${rowWords}, reference`);
      }
    }
  }
});
