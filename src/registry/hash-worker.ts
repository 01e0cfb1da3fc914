/**
 * Worker thread of the import's hash pool (hash-pool.ts): receives packed record batches,
 * returns their leaf digests and the batch buffers (transferred back).
 */
import { parentPort, workerData } from "node:worker_threads";
import { LeafHasher } from "./leaf-hasher.js";
import { packedBuffers, type PackedRecords } from "./packed.js";
import { defaultPermutation, typescriptPermutation } from "./permutation.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();

interface Job {
  readonly id: number;
  readonly packed: PackedRecords;
}

const data = workerData as { leafMaxFields: number; permutation: "auto" | "typescript" };
const hasher = new LeafHasher(data.leafMaxFields, data.permutation === "typescript" ? typescriptPermutation() : defaultPermutation());

parentPort!.on("message", (job: Job) => {
  const started = performance.now();
  try {
    const digests = hasher.hash(job.packed);
    const ms = performance.now() - started;
    parentPort!.postMessage({ id: job.id, digests, packed: job.packed, ms }, [digests.buffer as ArrayBuffer, ...packedBuffers(job.packed)]);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: (e as Error).message });
  }
});
