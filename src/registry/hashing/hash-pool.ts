/**
 * Leaf hashing of import batches and the compact trees of key-range partitions (name-keyed bulk
 * import) on worker threads (hash-worker.ts), or inline on the calling thread when `threads` is
 * 0. Jobs are spread over the workers by queue length; results come back as promises. The
 * workers' lifecycle is the shared pool core's (workers/pool-core.ts): a worker that fails fails
 * every pending job with `HASH_FAILED`, and the pool is not respawned (an import stops at its
 * first failed job).
 */
import { Worker } from "node:worker_threads";
import { PoolCore } from "../../workers/pool-core.js";
import { RegistryError } from "../errors.js";
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

/** Batches sent to a worker and not answered yet. */
interface SlotState {
  inFlight: number;
}

type HashReply = {
  id: number;
  error?: string;
  digests?: Uint32Array;
  packed?: PackedRecords;
  ms?: number;
  ids?: Uint8Array;
  subtree?: SubtreeResult;
};

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
      this.inline = new LeafHasher(
        leafMaxFields,
        permutation === "typescript" ? typescriptPermutation() : defaultPermutation(),
      );
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
        if (m.error !== undefined) p.reject(new RegistryError("HASH_FAILED", `hashing failed: ${m.error}`));
        else if (m.subtree !== undefined) p.resolve(m.subtree);
        else p.resolve({ digests: m.digests!, packed: m.packed!, ms: m.ms!, ids: m.ids! });
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
        this.inlineCompressor ??= new Compressor(
          this.inlinePermutation === "typescript" ? typescriptPermutation() : defaultPermutation(),
        );
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
    const slots = this.core!.slots;
    let best = slots[0]!;
    for (const s of slots) if (s.state.inFlight < best.state.inFlight) best = s;
    best.state.inFlight++;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      best.worker.postMessage({ id, ...message }, transfer);
    });
  }

  /** Stops the workers. Idempotent. */
  async close(): Promise<void> {
    await this.core?.close();
  }
}
