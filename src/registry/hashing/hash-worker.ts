/**
 * Worker thread of the import's hash pool (hash-pool.ts): receives packed record batches and
 * returns their leaf digests and the batch buffers (transferred back), or key-range partitions
 * of a name-keyed bulk import and returns their compact trees (name-tree.ts `subtreeCompact`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { LeafHasher } from "./leaf-hasher.js";
import { packedBuffers, type PackedRecords } from "./packed.js";
import { defaultPermutation, typescriptPermutation } from "./permutation.js";
import { Compressor, subtreeCompact, subtreeTransfer, type SubtreeJob } from "./name-tree.js";
import { installKernelBackend } from "../../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();

interface Job {
  readonly id: number;
  readonly packed?: PackedRecords;
  readonly subtree?: SubtreeJob;
}

const data = workerData as { leafMaxFields: number; permutation: "auto" | "typescript" };
const perm = data.permutation === "typescript" ? typescriptPermutation() : defaultPermutation();
const hasher = new LeafHasher(data.leafMaxFields, perm);
const compressor = new Compressor(perm);

parentPort!.on("message", (job: Job) => {
  const started = performance.now();
  try {
    if (job.subtree !== undefined) {
      const subtree = subtreeCompact(job.subtree, compressor);
      parentPort!.postMessage({ id: job.id, subtree }, subtreeTransfer(subtree));
      return;
    }
    const digests = hasher.hash(job.packed!);
    const ms = performance.now() - started;
    const ids = hasher.identities;
    parentPort!.postMessage({ id: job.id, digests, packed: job.packed, ms, ids }, [
      digests.buffer as ArrayBuffer,
      ids.buffer as ArrayBuffer,
      ...packedBuffers(job.packed!),
    ]);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: (e as Error).message });
  }
});
