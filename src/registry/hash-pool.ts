/**
 * Leaf hashing of import batches on worker threads (hash-worker.ts), or inline on the calling
 * thread when `threads` is 0. Batches are spread over the workers by queue length; results come
 * back as promises.
 */
import { Worker } from "node:worker_threads";
import { RegistryError } from "./errors.js";
import { LeafHasher } from "./leaf-hasher.js";
import { packedBuffers, type PackedRecords } from "./packed.js";
import { defaultPermutation, typescriptPermutation } from "./permutation.js";

/** Which permutation the hashers use: the WASM kernel when built ("auto") or the TypeScript reference. */
export type PermutationChoice = "auto" | "typescript";

export interface HashResult {
  /** 8 words per record. */
  readonly digests: Uint32Array;
  /** The batch (its buffers travel to the worker and back). */
  readonly packed: PackedRecords;
  /** Time spent hashing, ms. */
  readonly ms: number;
}

interface Pending {
  resolve(r: HashResult): void;
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
  private nextId = 0;
  private failure: Error | undefined;

  /**
   * @param threads worker threads (0 = hash on the calling thread).
   * @param leafMaxFields registry leaf bound B.
   */
  constructor(threads: number, leafMaxFields: number, permutation: PermutationChoice = "auto") {
    this.threads = threads;
    if (threads === 0) {
      this.inline = new LeafHasher(leafMaxFields, permutation === "typescript" ? typescriptPermutation() : defaultPermutation());
      return;
    }
    const url = new URL("./hash-worker.js", import.meta.url);
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(url, { workerData: { leafMaxFields, permutation } });
      const slot: Slot = { worker, inFlight: 0 };
      worker.on("message", (m: { id: number; error?: string; digests?: Uint32Array; packed?: PackedRecords; ms?: number }) => {
        slot.inFlight--;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new RegistryError("HASH_FAILED", `leaf hashing failed: ${m.error}`));
        else p.resolve({ digests: m.digests!, packed: m.packed!, ms: m.ms! });
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
        return Promise.resolve({ digests, packed, ms: performance.now() - started });
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (this.failure) return Promise.reject(this.failure);
    let best = this.slots[0]!;
    for (const s of this.slots) if (s.inFlight < best.inFlight) best = s;
    best.inFlight++;
    const id = this.nextId++;
    return new Promise<HashResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      best.worker.postMessage({ id, packed }, packedBuffers(packed));
    });
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
