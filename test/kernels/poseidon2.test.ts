import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/index.js";
import { permute } from "../../src/hash/poseidon2.js";
import { Kernels, KernelError, poseidon2ConstantWords, POSEIDON2_CONSTANT_WORDS } from "../../src/kernels/index.js";
import { vectors } from "../support/vectors.js";
import { element, randomVector } from "./support/arbitraries.js";

const k = Kernels.create({ initialPages: 32 });

function reference(states: Uint32Array): Uint32Array {
  const out = new Uint32Array(states.length);
  for (let i = 0; i < states.length; i += 16) out.set(permute(states.subarray(i, i + 16)), i);
  return out;
}

test("known-answer vector (compat-v1 §3, Plonky3 v0.4.x constants) in every lane position", () => {
  const kat = vectors.poseidon2.test_vectors.find(
    (v: { width: number; constants: string }) => v.width === 16 && v.constants === "plonky3_v0.4.x",
  );
  assert.ok(kat, "width-16 v0.4.x vector present");
  for (let n = 1; n <= 5; n++) {
    const states = new Uint32Array(16 * n);
    for (let i = 0; i < n; i++) states.set(kat.input, 16 * i);
    const out = k.permuteMany(states);
    for (let i = 0; i < n; i++)
      assert.deepEqual(Array.from(out.subarray(16 * i, 16 * i + 16)), kat.expected_output, `n = ${n}, state ${i}`);
  }
});

test("batched permutation equals the TypeScript permutation for 0..9 states (partial SIMD batches)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 9 }).chain((n) => fc.array(element, { minLength: 16 * n, maxLength: 16 * n })),
      (words) => {
        const states = Uint32Array.from(words);
        assert.deepEqual(k.permuteMany(states), reference(states));
      },
    ),
    { numRuns: 60 },
  );
});

test("edge states: all zero, all p − 1, all 2^30, and 1000 random states", () => {
  const edge = new Uint32Array(16 * 3);
  edge.fill(P - 1, 16, 32);
  edge.fill(2 ** 30, 32, 48);
  assert.deepEqual(k.permuteMany(edge), reference(edge));
  const many = randomVector(16 * 1000);
  assert.deepEqual(k.permuteMany(many), reference(many));
});

test("constants region holds the round constants in Montgomery form", () => {
  const words = poseidon2ConstantWords();
  assert.equal(words.length, POSEIDON2_CONSTANT_WORDS);
  assert.deepEqual(k.constants.view().slice(), words);
  assert.equal(k.instance.raw.poseidon2_constant_words(), POSEIDON2_CONSTANT_WORDS);
});

test("permuteMany rejects lengths that are not a multiple of 16 and non-canonical words", () => {
  assert.throws(
    () => k.permuteMany(new Uint32Array(17)),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
  const s = new Uint32Array(32);
  s[20] = P;
  assert.throws(
    () => k.permuteMany(s),
    (e: unknown) => e instanceof KernelError && e.code === "NON_CANONICAL" && /states\[20\]/.test(e.message),
  );
});
