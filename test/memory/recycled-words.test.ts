import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  RECYCLED_WORDS_MAX,
  dropRecycledWords,
  giveBackWords,
  recycledWords,
  takeWords,
} from "../../src/memory/recycled-words.js";
import { hasCopiesEvalKernel, hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import {
  evaluateCopiesTs,
  evaluateStructuredCopies,
  proveCopiesGkr,
  residentCopies,
} from "../../src/gkr/structured/dp-prover.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { buildV2Input } from "../../src/smt/v2/input.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { transcriptAfterOutputs } from "../gkr/random-circuit.js";
import { arbStructuredCase } from "../gkr/random-structured.js";

const kernels = gkrKernels();
const withKernels = kernels !== null && hasCopiesEvalKernel(kernels) && hasCopiesKernels(kernels);

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

test("successive evaluations on recycled vectors give the fresh witnesses and the same proofs; recycle is idempotent and the input is never taken", {
  skip: !withKernels,
}, () => {
  dropRecycledWords();
  const wasm = wasmCopiesBackend(kernels!);
  let reused = 0;
  const given = new WeakSet<Uint32Array>();
  const count = (vectors: readonly Uint32Array[]) => {
    if (vectors.some((v) => given.has(v))) reused++;
  };
  const run = (circuit: Parameters<typeof evaluateStructuredCopies>[0], k: number, input: Uint32Array) => {
    const truth = evaluateCopiesTs(circuit, k, input);
    // without a lease: may take listed vectors, never gives them back
    const fresh = evaluateStructuredCopies(circuit, k, input);
    count(fresh);
    assert.deepEqual(fresh, truth);
    const ref = proveCopiesGkr(circuit, k, fresh, transcriptAfterOutputs(fresh[0]!), { backend: wasm });
    const keep = residentCopies()!;
    let kept: Uint32Array[];
    try {
      kept = evaluateStructuredCopies(circuit, k, input, keep);
      count(kept);
      assert.deepEqual(kept, truth);
      assert.deepEqual(proveCopiesGkr(circuit, k, kept, transcriptAfterOutputs(kept[0]!), { backend: wasm }), ref);
    } finally {
      keep.recycle();
      keep.recycle();
    }
    assert.equal(kept[kept.length - 1], input, "the input is the caller's");
    const words = kept.slice(1, -1).reduce((s, v) => s + v.length, 0);
    assert.ok(recycledWords() >= words, "the inner vectors are listed");
    // scribble on the listed vectors: the next evaluation must overwrite every word it hands out
    for (const v of kept.slice(1, -1)) {
      v.fill(0xffffffff);
      given.add(v);
    }
  };
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 3, maxBits: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.nat(),
      (c, k, seed) => {
        const size = 2 ** c.circuit.inputWidthBits;
        const input = Uint32Array.from({ length: size * 2 ** k }, (_, i) => (seed * 7919 + i * 104729) % 2130706433);
        run(c.circuit, k, input);
        run(
          c.circuit,
          k,
          input.map((x) => (x + 1) % 2130706433),
        );
      },
    ),
    { numRuns: 30 },
  );
  const compiled = compileV2(OpKind.Update, { depth: 3 });
  const size = 2 ** compiled.circuit.inputWidthBits;
  for (const offset of [0, 4]) {
    const input = new Uint32Array(size * 4);
    for (let c = 0; c < 4; c++)
      input.set(buildV2Input(compiled.layout, goldenFixture(OpKind.Update, 3, BigInt(c + offset))), c * size);
    run(compiled.circuit, 2, input);
  }
  assert.ok(reused > 0, "some evaluations took recycled vectors");
  dropRecycledWords();
});
