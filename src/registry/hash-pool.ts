/**
 * Leaf hashing of import batches and the compact trees of key-range partitions (name-keyed bulk
 * import) on worker threads (hash-worker.ts), or inline on the calling thread when `threads` is
 * 0. Jobs are spread over the workers by queue length; results come back as promises.
 */
import { Worker } from "node:worker_threads";
import { RegistryError } from "./errors.js";
import { LeafHasher } from "./leaf-hasher.js";
import { packedBuffers, type PackedRecords } from "./packed.js";
import { defaultPermutation, typescriptPermutation } from "./permutation.js";
import { Compressor, subtreeCompact, type SubtreeJob, type SubtreeResult } from "./name-tree.js";

/** Which permutation the hashers use: the WASM kernel when built ("auto") or the TypeScript reference. */
export type PermutationChoice = "auto" | "typescript";

export interface HashResult {
  /** 8 words per record. */
  readonly digests: Uint32Array;
  /** The batch (its buffers travel to the worker and back). */
  readonly packed: PackedRecords;
  /** Time spent hashing, ms. */
  readonly ms: number;
  /** Keccak-256 of each name, 32 bytes per record (the leaf identities; name keys are their prefixes). */
  readonly ids: Uint8Array;
}

interface Pending {
  resolve(r: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  readonly worker: Worker;
  inFlight: number;
}

export class HashPool {
  readonly threads: number;
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly inline: LeafHasher | undefined;
  private readonly inlinePermutation: PermutationChoice;
  private nextId = 0;
  private failure: Error | undefined;

  /**
   * @param threads worker threads (0 = hash on the calling thread).
   * @param leafMaxFields registry leaf bound B.
   */
  constructor(threads: number, leafMaxFields: number, permutation: PermutationChoice = "auto") {
    this.threads = threads;
    this.inlinePermutation = permutation;
    if (threads === 0) {
      this.inline = new LeafHasher(leafMaxFields, permutation === "typescript" ? typescriptPermutation() : defaultPermutation());
      return;
    }
    const url = new URL("./hash-worker.js", import.meta.url);
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(url, { workerData: { leafMaxFields, permutation } });
      const slot: Slot = { worker, inFlight: 0 };
      worker.on("message", (m: { id: number; error?: string; digests?: Uint32Array; packed?: PackedRecords; ms?: number; ids?: Uint8Array; subtree?: SubtreeResult }) => {
        slot.inFlight--;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new RegistryError("HASH_FAILED", `hashing failed: ${m.error}`));
        else if (m.subtree !== undefined) p.resolve(m.subtree);
        else p.resolve({ digests: m.digests!, packed: m.packed!, ms: m.ms!, ids: m.ids! });
      });
      worker.on("error", (e) => this.fail(e));
      worker.on("exit", (code) => {
        if (code !== 0) this.fail(new Error(`hash worker exited with code ${code}`));
      });
      this.slots.push(slot);
    }
  }

  private fail(e: Error): void {
    this.failure ??= new RegistryError("HASH_FAILED", `leaf hashing failed: ${e.message}`);
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  /** Leaf digests of a batch (its buffers are transferred to a worker and come back in the result). */
  hash(packed: PackedRecords): Promise<HashResult> {
    if (this.inline !== undefined) {
      const started = performance.now();
      try {
        const digests = this.inline.hash(packed);
        return Promise.resolve({ digests, packed, ms: performance.now() - started, ids: this.inline.identities });
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.post({ packed }, packedBuffers(packed));
  }

  /**
   * The compact tree of one key-range partition (`subtreeCompact`, name-tree.ts) on a worker;
   * the job's buffers are transferred.
   */
  subtree(job: SubtreeJob): Promise<SubtreeResult> {
    if (this.inline !== undefined) {
      try {
        this.inlineCompressor ??= new Compressor(this.inlinePermutation === "typescript" ? typescriptPermutation() : defaultPermutation());
        return Promise.resolve(subtreeCompact(job, this.inlineCompressor));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.post({ subtree: job }, [job.keys.buffer, job.digests.buffer, job.defaults.buffer] as ArrayBuffer[]);
  }

  private inlineCompressor: Compressor | undefined;

  private post<T>(message: object, transfer: ArrayBuffer[]): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    let best = this.slots[0]!;
    for (const s of this.slots) if (s.inFlight < best.inFlight) best = s;
    best.inFlight++;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      best.worker.postMessage({ id, ...message }, transfer);
    });
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
