import { test } from "node:test";
import assert from "node:assert/strict";
import { P, random } from "../../src/field/koalabear.js";
import { randomWords } from "../pcs/support.js";
import { typescriptPcsBackend, withKernelRunner } from "../../src/pcs/backend.js";
import { codewordReference } from "../../src/pcs/encode.js";
import { nttReference } from "../../src/pcs/ntt.js";
import { defaultKernels } from "../../src/kernels/kernels.js";
import { nttTwiddleTables, wasmPcsBackend } from "../../src/kernels/pcs-kernels.js";
import {
  codewordBatches,
  copiedStages,
  nttBatches,
  nttScratchWords,
  nttStageBatches,
  PASS_STAGES,
  TILED_REVERSE_LOG,
} from "../../src/kernels/pcs-split.js";
import type { PcsKernelCall, PcsKernelRunner } from "../../src/pcs/backend.js";
import { createPcsPool } from "../../src/pcs-workers/index.js";

const wasm = wasmPcsBackend();

/** Runs each batch's calls in reverse order on this thread (a batch's calls are independent). */
function runBackwards(batches: PcsKernelCall[][]): void {
  const raw = defaultKernels().instance.raw as unknown as Record<string, (...args: number[]) => unknown>;
  for (const batch of batches) for (const c of [...batch].reverse()) raw[c.fn]!(...c.args);
}

test("the NTT's passes of several stages per pass equal the reference (sizes around the cache block and the pass length, both widths, any cut)", () => {
  assert.ok(wasm, "the kernel module is available in the test processes");
  const heap = defaultKernels().heap;
  // 2^12 is one block; 2^13 … 2^18 one pass of 1 … 6 stages; 2^19 and 2^20 two passes.
  for (const [width, logN] of [
    [1, 10],
    [1, 13],
    [1, 16],
    [1, 18],
    [1, 19],
    [1, 20],
    [4, 12],
    [4, 14],
    [4, 18],
    [4, 19],
  ] as const) {
    const n = 1 << logN;
    const { twiddles, companions } = nttTwiddleTables(logN);
    const tw = heap.allocFrom(twiddles),
      tws = heap.allocFrom(companions);
    const input = randomWords(n * width, 17 * logN + width);
    const expected = input.slice();
    nttReference(expected, width, logN);
    for (const parts of [1, 5, 16]) {
      const data = heap.allocFrom(input);
      const scratch = heap.alloc(parts * nttScratchWords(width));
      try {
        const op = { data: data.ptr, width, logN, tw: tw.ptr, tws: tws.ptr, scratch: scratch.ptr };
        runBackwards(nttBatches(op, parts));
        assert.deepEqual(data.view().slice(0, n * width), expected, `NTT width ${width}, 2^${logN}, ${parts} parts`);
        const passes = nttStageBatches(op, parts).slice(1);
        assert.equal(passes.length, Math.ceil(Math.max(0, logN - 12) / PASS_STAGES), `passes at 2^${logN}`);
      } finally {
        heap.release(data);
        heap.release(scratch);
      }
    }
    heap.release(tw);
    heap.release(tws);
  }
});

test("the stages a zero-padded codeword's bit reversal does itself: log of the padding, at most 4", () => {
  assert.equal(copiedStages(1 << 22, 24), 2);
  assert.equal(copiedStages(1 << 23, 24), 1);
  assert.equal(copiedStages(1 << 24, 24), 0);
  assert.equal(copiedStages((1 << 22) + 1, 24), 1);
  assert.equal(copiedStages(1, 8), 4);
  assert.equal(copiedStages(100, 8), 1);
});

test("the tiled bit reversal of zero-padded coefficients (with the stages that only copy), then the stages, is the codeword (counts below, at and above a tile row, any cut)", () => {
  assert.ok(wasm);
  const heap = defaultKernels().heap;
  for (const [width, logN, counts] of [
    [1, TILED_REVERSE_LOG, [1, 16, 100, 256]],
    [1, 14, [1 << 12, 1 << 13, 5000, 1 << 14]],
    [1, 17, [1 << 15, 1 << 16, 77777, 1 << 13, 1 << 12]],
    [4, 13, [1 << 11, 3333, 1 << 13]],
    [4, 16, [1 << 14, 1 << 15]],
  ] as const) {
    const n = 1 << logN;
    const { twiddles, companions } = nttTwiddleTables(logN);
    const tw = heap.allocFrom(twiddles),
      tws = heap.allocFrom(companions);
    for (const count of counts) {
      const coeffs = randomWords(count * width, count + logN);
      const expected = codewordReference(coeffs, width, logN);
      for (const parts of [1, 3, 16]) {
        const src = heap.allocFrom(coeffs);
        const dst = heap.alloc(n * width);
        dst.view().fill(P - 1);
        const scratch = heap.alloc(parts * nttScratchWords(width));
        try {
          const op = { data: dst.ptr, width, logN, tw: tw.ptr, tws: tws.ptr, scratch: scratch.ptr };
          runBackwards(codewordBatches(op, src.ptr, count, parts));
          assert.deepEqual(
            dst.view().slice(0, n * width),
            expected,
            `codeword width ${width}, 2^${logN}, ${count} coefficients, ${parts} parts`,
          );
        } finally {
          for (const r of [src, dst, scratch]) heap.release(r);
        }
      }
    }
    heap.release(tw);
    heap.release(tws);
  }
});

test("the backend's codeword, NTT, rows and tree equal the references on one thread, on a pool, and on a runner that runs calls in reverse", async () => {
  assert.ok(wasm);
  const ref = typescriptPcsBackend;
  const reverse: PcsKernelRunner = {
    threads: 3,
    minCallElements: 4,
    kernelCalls: (_shared, calls, local) => [...calls].reverse().forEach(local),
    grind: () => {
      throw new Error("not used");
    },
  };
  const pool = createPcsPool({ threads: 1, minCallElements: 4 });
  try {
    await pool.ready();
    for (const runner of [null, reverse, pool]) {
      for (const [width, m, logN] of [
        [1, 5, 7],
        [1, 12, 14],
        [1, 17, 19],
        [4, 11, 13],
        [4, 16, 18],
      ] as const) {
        const coeffs = randomWords(width << m, 31 * m + width);
        const expected = ref.codeword(coeffs, width, logN);
        withKernelRunner(runner, () => {
          const resident = wasm.resident(coeffs);
          const fromResident = wasm.codeword(resident, width, logN);
          const fromPlain = wasm.codeword(coeffs, width, logN);
          const label = `width ${width}, 2^${m} → 2^${logN}, ${runner === null ? "one thread" : runner === pool ? "pool" : "reversed"}`;
          assert.deepEqual(fromResident, expected, label);
          assert.deepEqual(fromPlain, expected, label);
          const inPlace = wasm.resident(expected.subarray(0, width << m));
          const refInPlace = expected.slice(0, width << m);
          wasm.ntt(inPlace, width, m);
          ref.ntt(refInPlace, width, m);
          assert.deepEqual(inPlace, refInPlace, `NTT ${label}`);
          assert.deepEqual(wasm.encode(coeffs, width, logN, 2), ref.encode(coeffs, width, logN, 2), `rows ${label}`);
          // The tree's `alongside` runs once, whether the leaves are spread or not, and reads the codeword unchanged.
          let copies = 0;
          let copied: Uint32Array | null = null;
          const tree = wasm.merkle(fromResident, width, logN, 2, 16, () => {
            copies++;
            copied = fromResident.slice();
          });
          assert.equal(copies, 1, `alongside ${label}`);
          assert.deepEqual(copied, expected, `alongside's copy ${label}`);
          assert.deepEqual(tree.root, ref.merkle(expected, width, logN, 2).root, `tree ${label}`);
          for (const t of [resident, fromResident, fromPlain, inPlace]) wasm.release(t);
        });
      }
    }
    assert.ok(pool.stats.workerCalls > 0, "the pool's worker ran calls");
  } finally {
    await pool.close();
  }
});

test("random inputs: the codeword of random sizes equals the definition's reference", () => {
  assert.ok(wasm);
  for (let trial = 0; trial < 6; trial++) {
    const width = trial % 2 === 0 ? 1 : 4;
    const logN = 8 + ((trial * 5) % 9);
    const count = 1 + Math.floor(random() % (1 << logN));
    const coeffs = randomWords(count * width, 1000 + trial);
    const cw: Uint32Array = wasm.codeword(coeffs, width, logN);
    assert.deepEqual(cw, codewordReference(coeffs, width, logN), `width ${width}, 2^${logN}, ${count}`);
    wasm.release(cw);
  }
});
