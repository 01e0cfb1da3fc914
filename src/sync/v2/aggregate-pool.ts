/**
 * Profile v2 aggregates on worker threads (docs/profile-v2.md §6.3): a sync pool
 * (src/sync/parallel) whose workers also prove aggregates, one aggregate per worker at a time, so
 * W workers prove W aggregates at once. Each worker prepares its own copy of the circuit
 * (`prepareV2` of the same kind and configuration, its commitment checked against the owner's)
 * and proves with its own kernels; the requests travel in the binary job form (one buffer per
 * aggregate, transferred). Bytes are those of `proveAggregate` (tested).
 */
import type { OpRequest } from "../../smt/operation.js";
import {
  type ExtensionOutcome,
  type JobError,
  ParallelError,
  type SyncPool,
  type SyncPoolOptions,
  type SyncPoolStats,
  createSyncPool,
  encodeJobs,
} from "../parallel/index.js";
import type { AggregateTimings } from "./aggregate.js";
import type { PreparedV2 } from "./prepared.js";

/** Milliseconds of one aggregate in its worker: decoding the requests, then `proveAggregate`'s phases. */
export interface AggregateJobTimings extends AggregateTimings {
  readonly decodeMs: number;
}

/**
 * The outcome of one aggregate: its inner-proof-v2 bytes and the worker's time per phase, or its
 * error (the code `proveAggregate` throws, e.g. `WITNESS` with `details.operation`, or a pool
 * code such as `WORKER_CRASHED`; `details.index` = the batch's index).
 */
export type AggregateOutcome =
  | { readonly index: number; readonly ok: true; readonly bytes: Uint8Array; readonly timings: AggregateJobTimings }
  | { readonly index: number; readonly ok: false; readonly error: JobError };

/** The worker's description of a circuit (`prepareV2(kind, { depth, leafMaxFields })` and its commitment). */
export interface AggregateCircuitBody {
  readonly kind: PreparedV2["kind"];
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly commitment: Uint32Array;
}

/** One aggregate's job: the requests in `encodeJobs` form in the job's buffer, or cloned here. */
export type AggregateJobBody =
  | { readonly packed: true }
  | { readonly packed: false; readonly requests: readonly OpRequest[] };

/** Options of an aggregate pool: those of the sync pool (workers, heap limits, crash limit, prefetch). */
export type AggregatePoolOptions = Omit<SyncPoolOptions, "worker">;

const workerUrl = new URL("./aggregate-pool-worker.js", import.meta.url);

/** A worker-thread pool proving profile v2 aggregates (see the module comment). */
export class AggregatePool {
  /** The sync pool underneath: compat-v1 batches (`proveBatch`, `verifyBatch`) may share its workers. */
  readonly sync: SyncPool;

  /** Use `createAggregatePool`. @throws ParallelError `BAD_OPTION`. */
  constructor(options: AggregatePoolOptions = {}) {
    this.sync = createSyncPool({ ...options, worker: workerUrl });
  }

  /** Number of worker threads. */
  get size(): number {
    return this.sync.size;
  }

  /** The sync pool's counters (an aggregate counts as one job). */
  stats(): SyncPoolStats {
    return this.sync.stats();
  }

  /**
   * `proveAggregate(prepared, batches[i])` of every batch (1..4096 requests each) in the workers.
   * Outcomes are in input order; the bytes equal the one-thread `proveAggregate` for any worker
   * count. A failing batch has an error outcome with the sequential path's code and details;
   * the others are unaffected. A worker prepares the circuit on its first aggregate with it
   * (about as long as `prepareV2`).
   * @throws ParallelError `BAD_OPTION` (not a profile v2 prepared circuit, batches not an
   *   array), `POOL_CLOSED`, `POOL_BROKEN`.
   * @example
   *   const pool = createAggregatePool({ workers: 2 });
   *   const out = await pool.proveAggregates(prepareV2("membership"), [requestsA, requestsB]);
   *   if (out[0].ok) writeFileSync("a.bin", out[0].bytes);
   *   await pool.close();
   */
  async proveAggregates(prepared: PreparedV2, batches: readonly (readonly OpRequest[])[]): Promise<AggregateOutcome[]> {
    if (prepared === null || typeof prepared !== "object" || prepared.profile !== "v2") {
      throw new ParallelError("BAD_OPTION", "proveAggregates needs a profile v2 prepared circuit (prepareV2)");
    }
    if (!Array.isArray(batches))
      throw new ParallelError("BAD_OPTION", `batches must be an array of request arrays, got ${typeof batches}`);
    const body: AggregateCircuitBody = {
      kind: prepared.kind,
      depth: prepared.config.depth,
      leafMaxFields: prepared.config.leafMaxFields,
      commitment: prepared.commitment,
    };
    const jobs = batches.map((batch) => {
      let packed: Uint32Array | null = null;
      try {
        packed = encodeJobs(batch);
      } catch {
        // e.g. a getter that throws: left to structured clone, which reports it for this batch
      }
      return packed
        ? { body: { packed: true } satisfies AggregateJobBody, buffer: packed }
        : { body: { packed: false, requests: batch } satisfies AggregateJobBody };
    });
    const out = await this.sync.runExtension(prepared, body, jobs);
    return out.map(
      (o: ExtensionOutcome): AggregateOutcome =>
        o.ok ? { index: o.index, ok: true, bytes: o.bytes!, timings: o.result as AggregateJobTimings } : o,
    );
  }

  /** Lets the workers drop `prepared` now (they also do once it is garbage-collected). */
  release(prepared: PreparedV2): void {
    this.sync.release(prepared);
  }

  /** Terminates the workers; unanswered aggregates get `POOL_CLOSED`. Idempotent. */
  close(): Promise<void> {
    return this.sync.close();
  }
}

/**
 * Starts a pool of `options.workers` worker threads (default: available cores) for aggregates.
 * @throws ParallelError `BAD_OPTION`.
 */
export function createAggregatePool(options: AggregatePoolOptions = {}): AggregatePool {
  return new AggregatePool(options);
}

/** Options of the one-call `proveAggregates`: a pool to use, or the options of one started for the call. */
export interface ProveAggregatesOptions extends AggregatePoolOptions {
  readonly pool?: AggregatePool;
}

/**
 * Proves several aggregates at once in worker threads (`AggregatePool.proveAggregates`), on
 * `options.pool` or on a pool started for the call and closed after it.
 * @throws ParallelError `BAD_OPTION`, `POOL_CLOSED`, `POOL_BROKEN`.
 * @example
 *   const prepared = prepareV2("membership", { depth: 24 });
 *   const out = await proveAggregates(prepared, [batchA, batchB, batchC, batchD], { workers: 2 });
 */
export async function proveAggregates(
  prepared: PreparedV2,
  batches: readonly (readonly OpRequest[])[],
  options: ProveAggregatesOptions = {},
): Promise<AggregateOutcome[]> {
  if (options.pool) return options.pool.proveAggregates(prepared, batches);
  const { pool: _unused, ...rest } = options;
  const pool = createAggregatePool(rest);
  try {
    return await pool.proveAggregates(prepared, batches);
  } finally {
    await pool.close();
  }
}
