/**
 * Worker used by threads.test.ts: attaches to the shared kernel memory and runs its jobs inside
 * the regions it was given (scratch carved with a ScratchArena), then reports back.
 * Does nothing when not started as a worker (the test runner may load it as a file).
 */
import { parentPort, workerData } from "node:worker_threads";
import { attachKernels, ScratchArena, type RegionDescriptor, type SharedKernels } from "../../../src/kernels/index.js";

export interface WorkerJob {
  shared: SharedKernels;
  /** 16·states words of canonical Poseidon2 states, permuted in place. */
  states: RegionDescriptor;
  stateCount: number;
  /** A base table folded in place with `challenge`, then multiplied elementwise by itself. */
  table: RegionDescriptor;
  challenge: number;
  /** This thread's scratch. */
  scratch: RegionDescriptor;
  /** Barrier: wait until every worker has attached before computing. */
  barrier: Int32Array;
  workers: number;
}

if (parentPort) {
  const job = workerData as WorkerJob;
  const k = attachKernels(job.shared);
  Atomics.add(job.barrier, 0, 1);
  Atomics.notify(job.barrier, 0);
  while (Atomics.load(job.barrier, 0) < job.workers) Atomics.wait(job.barrier, 0, Atomics.load(job.barrier, 0), 1000);

  k.poseidon2Permute(job.states, job.stateCount);

  const arena = new ScratchArena(k.region(job.scratch));
  const len = job.table.words;
  const folded = arena.alloc(len / 2);
  k.foldBase(folded, job.table, len, job.challenge);
  const mont = arena.alloc(len / 2);
  k.toMontgomery(mont, folded);
  k.baseMul(job.table, folded, mont, len / 2);
  parentPort.postMessage({ done: true });
}
