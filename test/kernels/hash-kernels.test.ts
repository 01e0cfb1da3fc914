import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/index.js";
import { permuteInPlace } from "../../src/hash/poseidon2.js";
import { grindSearchReference } from "../../src/hash/backend.js";
import { rng } from "../pcs/support.js";
import { compress, compressReference, sponge, spongeReference } from "../../src/hash/digest.js";
import { hashBackend, permuteFast } from "../../src/hash/fast-permutation.js";
import { KernelError } from "../../src/kernels/errors.js";
import { HashKernels, hashKernels, SPONGE_CONSTANT_WORDS } from "../../src/kernels/hash-kernels.js";
import { poseidon2ConstantWords, POSEIDON2_CONSTANT_WORDS } from "../../src/kernels/constants.js";
import { INTERNAL_DIAGONAL } from "../../src/hash/poseidon2-constants.js";
import { absorbSource, absorbSources, WINDOW_WORDS, type WordSource } from "../../src/kernels/sponge-runner.js";
import { vectors } from "../support/vectors.js";
import { EDGE_VALUES, element, randomVector } from "./support/arbitraries.js";

const hk = HashKernels.create();

function refPermute(s: ArrayLike<number>): Uint32Array {
  const out = Uint32Array.from(s);
  permuteInPlace(out);
  return out;
}

/** Overwrite sponge in TypeScript from a given state (the reference of the sponge kernels). */
function refSponge(words: ArrayLike<number>, initial: ArrayLike<number> = new Uint32Array(16)): Uint32Array {
  const s = Uint32Array.from(initial);
  for (let off = 0; off < words.length; off += 8) {
    const end = Math.min(words.length, off + 8);
    for (let i = off; i < end; i++) s[i - off] = words[i]!;
    permuteInPlace(s);
  }
  return s;
}

/** A source over an array that writes at most `piece` words per fill. */
function arraySource(words: Uint32Array, piece = Infinity): WordSource {
  let pos = 0;
  return {
    length: words.length,
    fill(k, dst, max) {
      const n = Math.min(max, piece, words.length - pos);
      new Uint32Array(k.heap.memory.buffer, dst, n).set(words.subarray(pos, pos + n));
      pos += n;
      return n;
    },
  };
}

const state16 = fc.array(element, { minLength: 16, maxLength: 16 }).map((a) => Uint32Array.from(a));

test("the module in dist has the hashing kernels; this thread uses them", () => {
  assert.ok(hashKernels() !== null);
  assert.equal(hashBackend(), "wasm");
});

test("extended constants region: round constants, internal diagonal with Shoup companions, lane mask", () => {
  const v = hk.constants.view();
  assert.equal(v.length, SPONGE_CONSTANT_WORDS);
  assert.deepEqual(v.slice(0, POSEIDON2_CONSTANT_WORDS), poseidon2ConstantWords());
  for (let i = 0; i < 16; i++) {
    const at = POSEIDON2_CONSTANT_WORDS + 8 * (i >> 2) + (i & 3);
    assert.equal(v[at], INTERNAL_DIAGONAL[i], `V[${i}]`);
    assert.equal(BigInt(v[at + 4]!), (BigInt(INTERNAL_DIAGONAL[i]!) << 32n) / BigInt(P), `Shoup companion of V[${i}]`);
  }
  assert.deepEqual(Array.from(v.slice(180, 184)), [0, 2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1]);
});

test("single-state permutation: known answers (compat-v1 §3, §18)", () => {
  const kat = vectors.poseidon2.test_vectors.find(
    (v: { width: number; constants: string }) => v.width === 16 && v.constants === "plonky3_v0.4.x",
  );
  const s = Uint32Array.from(kat.input);
  hk.permute(s);
  assert.deepEqual(Array.from(s), kat.expected_output);
  const derived = vectors.derived_vectors_NOT_from_plonky3["poseidon2_width16_v0.4.x_constants"];
  const z = new Uint32Array(16);
  permuteFast(z);
  assert.deepEqual(Array.from(z), derived.perm16_of_zero_state);
  const c = Uint32Array.from({ length: 16 }, (_, i) => i);
  permuteFast(c);
  assert.deepEqual(Array.from(c), derived.perm16_of_0_to_15);
});

test("single-state permutation equals the TypeScript reference: edge states and random states", () => {
  for (const v of EDGE_VALUES) {
    const s = new Uint32Array(16).fill(v);
    const r = refPermute(s);
    hk.permute(s);
    assert.deepEqual(s, r, `all lanes ${v}`);
  }
  for (let lane = 0; lane < 16; lane++) {
    const s = new Uint32Array(16);
    s[lane] = P - 1;
    const r = refPermute(s);
    hk.permute(s);
    assert.deepEqual(s, r, `lane ${lane} = p − 1`);
  }
  fc.assert(
    fc.property(state16, (s) => {
      const r = refPermute(s);
      const f = s.slice();
      permuteFast(f);
      assert.deepEqual(f, r);
    }),
    { numRuns: 300 },
  );
});

test("compress and sponge equal their references (lengths 0..140 cross the 64-word chunks)", () => {
  fc.assert(
    fc.property(state16, (s) => {
      assert.deepEqual(compress(s.subarray(0, 8), s.subarray(8)), compressReference(s.subarray(0, 8), s.subarray(8)));
    }),
    { numRuns: 100 },
  );
  fc.assert(
    fc.property(fc.array(element, { maxLength: 140 }), (xs) => {
      assert.deepEqual(sponge(xs), spongeReference(xs));
    }),
    { numRuns: 100 },
  );
  assert.deepEqual(sponge([]), new Uint32Array(8));
});

test("raw sponge kernel from arbitrary states: every length 0..33 and a partial last block", () => {
  const state = hk.heap.alloc(16);
  const src = hk.heap.alloc(40);
  try {
    for (let n = 0; n <= 33; n++) {
      const init = randomVector(16);
      const words = randomVector(n);
      state.view().set(init);
      src.view().set(words);
      hk.raw.poseidon2_sponge(state.ptr, src.ptr, n, hk.constantsPtr);
      assert.deepEqual(state.view().slice(), refSponge(words, init), `n = ${n}`);
    }
  } finally {
    hk.heap.release(state);
    hk.heap.release(src);
  }
});

test("absorbSource over several windows, fed in pieces of every size, equals the reference", () => {
  const long = randomVector(2 * WINDOW_WORDS + 13);
  const expected = refSponge(long);
  assert.deepEqual(absorbSource(hk, arraySource(long)), expected);
  assert.deepEqual(absorbSource(hk, arraySource(long, 5)), expected);
  const init = randomVector(16);
  for (const n of [0, 1, 7, 8, 9, 64, WINDOW_WORDS, WINDOW_WORDS + 8]) {
    const w = randomVector(n);
    assert.deepEqual(absorbSource(hk, arraySource(w, 3), init), refSponge(w, init), `n = ${n}`);
  }
});

test("absorbSources in 2 and 4 lanes equals one reference sponge per source (lane reuse, uneven lengths)", () => {
  const lengths = [WINDOW_WORDS + 21, 0, 1, 8, 9, 2 * WINDOW_WORDS, 100, WINDOW_WORDS - 3, 17];
  const words = lengths.map((n) => randomVector(n));
  const expected = words.map((w) => refSponge(w));
  for (const lanes of [2, 4] as const) {
    const got = absorbSources(
      hk,
      words.map((w, i) => arraySource(w, i % 2 === 0 ? Infinity : 7)),
      lanes,
    );
    got.forEach((s, i) => assert.deepEqual(s, expected[i], `lanes ${lanes}, source ${i} (${lengths[i]} words)`));
  }
  assert.deepEqual(absorbSources(hk, []), []);
});

test("multi-lane sponges on random short sources (property)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(element, { maxLength: 40 }), { minLength: 1, maxLength: 6 }),
      fc.constantFrom(2, 4),
      (lists, lanes) => {
        const words = lists.map((l) => Uint32Array.from(l));
        const got = absorbSources(
          hk,
          words.map((w) => arraySource(w)),
          lanes as 2 | 4,
        );
        got.forEach((s, i) => assert.deepEqual(s, refSponge(words[i]!)));
      },
    ),
    { numRuns: 60 },
  );
});

test("a non-canonical word is reported with its source and index; bad lane counts are rejected", () => {
  const w = randomVector(WINDOW_WORDS + 50);
  w[WINDOW_WORDS + 7] = P;
  const isAt = (source: number, index: number) => (e: unknown) =>
    e instanceof KernelError &&
    e.code === "NON_CANONICAL" &&
    e.details["source"] === source &&
    e.details["index"] === index &&
    e.details["value"] === P;
  assert.throws(() => absorbSource(hk, arraySource(w)), isAt(0, WINDOW_WORDS + 7));
  assert.throws(() => absorbSources(hk, [arraySource(randomVector(10)), arraySource(w)], 4), isAt(1, WINDOW_WORDS + 7));
  assert.throws(
    () => absorbSources(hk, [], 3 as 2),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_OPTIONS",
  );
  const liar: WordSource = { length: 10, fill: () => 0 };
  assert.throws(
    () => absorbSource(hk, liar),
    (e: unknown) => e instanceof KernelError && e.code === "BAD_LENGTH",
  );
});

test("regions are returned: repeated runs do not grow the allocation", () => {
  absorbSources(hk, [arraySource(randomVector(100))], 2);
  const before = hk.heap.allocatedBytes;
  absorbSource(hk, arraySource(randomVector(3 * WINDOW_WORDS)));
  absorbSources(hk, [arraySource(randomVector(WINDOW_WORDS + 1)), arraySource(randomVector(5))], 4);
  assert.equal(hk.heap.allocatedBytes, before);
});

test("interleave kernel: dst[k·i + j] = src_j[i]", () => {
  for (const k of [1, 2, 5]) {
    const n = 37;
    const srcs = Array.from({ length: k }, () => randomVector(n));
    const table = hk.heap.alloc(8);
    const regions = srcs.map((s) => hk.heap.allocFrom(s));
    const dst = hk.heap.alloc(k * n);
    try {
      table.view().set(regions.map((r) => r.ptr));
      hk.raw.interleave_words(dst.ptr, table.ptr, k, n);
      const out = dst.view();
      for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) assert.equal(out[k * i + j], srcs[j]![i]);
    } finally {
      for (const r of [table, dst, ...regions]) hk.heap.release(r);
    }
  }
});

test("worker threads hash with their own kernel memory, concurrently with this thread", async () => {
  const { Worker } = await import("node:worker_threads");
  const url = new URL("../../src/hash/fast-permutation.js", import.meta.url).href;
  const backendUrl = new URL("../../src/kernels/backend.js", import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(${JSON.stringify(backendUrl)}).then(({ installKernelBackend }) => { installKernelBackend(); return import(${JSON.stringify(url)}); }).then(({ permuteFast, hashBackend }) => {
      const s = Uint32Array.from(workerData);
      for (let i = 0; i < 1000; i++) permuteFast(s);
      parentPort.postMessage({ backend: hashBackend(), state: Array.from(s) });
    });`;
  const inputs = [randomVector(16), randomVector(16)];
  const results = await Promise.all(
    inputs.map(
      (input) =>
        new Promise<{ backend: string; state: number[] }>((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData: Array.from(input) });
          w.once("message", (m) => {
            resolve(m);
            void w.terminate();
          });
          w.once("error", reject);
        }),
    ),
  );
  inputs.forEach((input, i) => {
    const s = input.slice();
    for (let k = 0; k < 1000; k++) permuteInPlace(s);
    assert.equal(results[i]!.backend, "wasm");
    assert.deepEqual(results[i]!.state, Array.from(s));
  });
});

test("the proof-of-work search kernel finds the reference's candidate (found, not found, lanes 0..7, counts not a multiple of 4)", () => {
  const next = rng(0x2545f491);
  for (let trial = 0; trial < 24; trial++) {
    const template = Uint32Array.from({ length: 16 }, () => next());
    const lane = trial % 8;
    const bits = [0, 1, 3, 6, 9][trial % 5]!;
    const mask = ((1 << bits) - 1) >>> 0;
    const start = trial === 23 ? P - 37 : next() % 1000;
    const count = trial === 23 ? 37 : [1, 3, 4, 5, 130, 1023][trial % 6]!;
    const want = grindSearchReference(template, lane, mask, start, count);
    const copy = template.slice();
    assert.equal(hk.grindSearch(template, lane, mask, start, count), want, `trial ${trial}`);
    assert.deepEqual(template, copy, "the template is not changed");
  }
  // a mask no candidate meets: −1 after every candidate
  const t = Uint32Array.from({ length: 16 }, (_, i) => i);
  assert.equal(hk.grindSearch(t, 2, 0xffffffff, 0, 9), grindSearchReference(t, 2, 0xffffffff, 0, 9));
  assert.equal(hk.grindSearch(t, 2, 0xffffffff, 0, 9), -1);
});
