import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { P, vecMul } from "../../src/field/index.js";
import { Kernels, foldBaseRef } from "../../src/kernels/index.js";
import type { WorkerJob } from "./support/kernel-worker.js";
import { randomVector } from "./support/arbitraries.js";

const WORKER = new URL("./support/kernel-worker.js", import.meta.url);

function run(data: WorkerJob): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { workerData: data });
    w.once("message", () => resolve());
    w.once("error", reject);
    w.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
  });
}

test("two workers over one shared memory compute into disjoint regions exactly like one thread", async () => {
  const k = Kernels.create({ initialPages: 16 });
  const stateCount = 1001;
  const tableLen = 4098;
  const challenges = [123456789, P - 2];

  const inputs = [0, 1].map(() => ({ states: randomVector(16 * stateCount), table: randomVector(tableLen) }));
  const regions = inputs.map((x) => ({
    states: k.heap.allocFrom(x.states),
    table: k.heap.allocFrom(x.table),
    scratch: k.heap.alloc(2 * tableLen),
  }));
  const constantsBefore = k.constants.view().slice();
  const barrier = new Int32Array(new SharedArrayBuffer(4));

  await Promise.all(
    regions.map((r, i) =>
      run({
        shared: k.share(),
        states: r.states.describe(),
        stateCount,
        table: r.table.describe(),
        challenge: challenges[i]!,
        scratch: r.scratch.describe(),
        barrier,
        workers: 2,
      }),
    ),
  );

  // Single-thread run of the same work on copies.
  for (let i = 0; i < 2; i++) {
    const states = k.heap.allocFrom(inputs[i]!.states);
    k.instance.poseidon2Permute(states, stateCount);
    assert.deepEqual(regions[i]!.states.view(), states.view(), `worker ${i} Poseidon2 states`);
    k.heap.release(states);

    const folded = foldBaseRef(inputs[i]!.table, challenges[i]!);
    assert.deepEqual(
      regions[i]!.table.view().subarray(0, tableLen / 2),
      vecMul(folded, folded),
      `worker ${i} fold and mul`,
    );
    assert.deepEqual(
      regions[i]!.table.view().subarray(tableLen / 2),
      inputs[i]!.table.subarray(tableLen / 2),
      `worker ${i} upper half untouched`,
    );
  }
  assert.deepEqual(k.constants.view(), constantsBefore, "constants region unchanged by the workers' instantiation");
});
