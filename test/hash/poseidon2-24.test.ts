import { test } from "node:test";
import assert from "node:assert/strict";
import { P, FieldError } from "../../src/field/index.js";
import { permute24, sponge24, poseidon2Constants24 } from "../../src/hash/index.js";
import { vectors } from "../support/vectors.js";

const rc = vectors.poseidon2.round_constants["plonky3_v0.4.x"].width24;

test("generated width-24 constant tables equal the Plonky3 v0.4.x width-24 set in the JSON", () => {
  assert.deepEqual(poseidon2Constants24.RC24_EXTERNAL_INITIAL, rc.external_initial);
  assert.deepEqual(poseidon2Constants24.RC24_INTERNAL, rc.internal);
  assert.equal(rc.internal.length, 23);
  assert.deepEqual(poseidon2Constants24.RC24_EXTERNAL_TERMINAL, rc.external_terminal);
  assert.deepEqual(poseidon2Constants24.INTERNAL_DIAGONAL_24, vectors.poseidon2.internal_linear_layer.V_24_canonical);
});

test("Plonky3 width-24 known answer (v0.4.x constants)", () => {
  const kat = vectors.poseidon2.test_vectors.find(
    (t: { constants: string; width: number }) => t.constants === "plonky3_v0.4.x" && t.width === 24,
  );
  assert.ok(kat, "the JSON has the v0.4.x width-24 vector");
  assert.deepEqual(Array.from(permute24(kat.input)), kat.expected_output);
});

test("the v0.5.0 width-24 constants give a different permutation (the vector pins the v0.4.x set)", () => {
  const kat = vectors.poseidon2.test_vectors.find(
    (t: { constants: string; width: number }) => t.constants === "plonky3_v0.5.0_to_head" && t.width === 24,
  );
  assert.notDeepEqual(Array.from(permute24(kat.input)), kat.expected_output);
});

test("permute24 refuses a state of the wrong length or with a non-canonical word", () => {
  assert.throws(() => permute24(new Array(16).fill(0)), FieldError);
  const s = new Array(24).fill(0);
  s[23] = P;
  assert.throws(() => permute24(s), FieldError);
});

test("sponge24: overwrite absorption at rate 16, partial last block, no extra permutation on a boundary", () => {
  assert.deepEqual(Array.from(sponge24([])), new Array(8).fill(0));
  const words = Array.from({ length: 40 }, (_, i) => (i * 2654435761) % P);
  // By hand: three blocks (16, 16, 8 words), each overwriting lanes 0.. of the state and permuted.
  let s = new Array(24).fill(0);
  for (const [a, b] of [
    [0, 16],
    [16, 32],
    [32, 40],
  ] as const) {
    for (let l = a; l < b; l++) s[l - a] = words[l]!;
    s = Array.from(permute24(s));
  }
  assert.deepEqual(Array.from(sponge24(words)), s.slice(0, 8));
  const one = Array.from(permute24([...words.slice(0, 16), ...new Array(8).fill(0)]));
  assert.deepEqual(Array.from(sponge24(words.slice(0, 16))), one.slice(0, 8));
  assert.notDeepEqual(Array.from(sponge24(words.slice(0, 17))), Array.from(sponge24(words.slice(0, 16))));
});
