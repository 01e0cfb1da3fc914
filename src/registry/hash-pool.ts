/**
 * Leaf hashing of import batches on worker threads (hash-worker.ts), or inline on the calling
 * thread when `threads` is 0. Batches are spread over the workers by queue length; results come
 * back as promises. The workers' lifecycle is the shared pool core's (workers/pool-core.ts): a
 * worker that fails fails every pending batch with `HASH_FAILED`, and the pool is not respawned
 * (an import stops at its first failed batch).
 */
import { Worker } from "node:worker_threads";
import { PoolCore } from "../workers/pool-core.js";
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

/** Batches sent to a worker and not answered yet. */
interface SlotState {
  inFlight: number;
}

type HashReply = { id: number; error?: string; digests?: Uint32Array; packed?: PackedRecords; ms?: number };

/**
 * Leaf hashing for imports and checks (see the module comment).
 * @example
 *   const pool = new HashPool(2, 31);
 *   const { digests } = await pool.hash(packed); // 8 words per record
 *   await pool.close();
 */
export class HashPool {
  /** Worker threads (0: hashing on the calling thread). */
  readonly threads: number;
  private readonly core: PoolCore<SlotState> | undefined;
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
    this.core = new PoolCore<SlotState>({
      size: threads,
      maxConsecutiveCrashes: 1,
      spawn: () => new Worker(url, { workerData: { leafMaxFields, permutation } }),
      initialState: () => ({ inFlight: 0 }),
      onMessage: (slot, msg) => {
        const m = msg as HashReply;
        slot.state.inFlight--;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new RegistryError("HASH_FAILED", `leaf hashing failed: ${m.error}`));
        else p.resolve({ digests: m.digests!, packed: m.packed!, ms: m.ms! });
      },
      onCrash: (_slot, crash) => this.fail(crash.reason),
    });
  }

  private fail(reason: string): void {
    this.failure ??= new RegistryError("HASH_FAILED", `leaf hashing failed: ${reason}`);
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
    const slots = this.core!.slots;
    let best = slots[0]!;
    for (const s of slots) if (s.state.inFlight < best.state.inFlight) best = s;
    best.state.inFlight++;
    const id = this.nextId++;
    return new Promise<HashResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      best.worker.postMessage({ id, packed }, packedBuffers(packed));
    });
  }

  /** Stops the workers. Idempotent. */
  async close(): Promise<void> {
    await this.core?.close();
  }
}
