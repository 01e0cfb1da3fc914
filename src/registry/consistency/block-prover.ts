/**
 * The block prover (docs/registry.md "Consistency between checkpoints"): after the commits, off
 * the write path, every committed batch that changed the tree and has no kept block proof gets
 * one, made from its change log (replay.ts) and stored in the registry (store/block-rows.ts, the
 * format `prove-block --profile v3` keeps, so `GET /v1/blocks` serves it too).
 *
 * One batch at a time, oldest first: the batch is replayed on the calling thread and, with
 * `worker: true` (what the HTTP server uses), proved on a worker thread (prove-worker.ts), so the
 * process keeps answering requests while a block is proved; without it each proof is one
 * synchronous step. The next step is scheduled with `setImmediate`; when every batch up to the
 * head is settled it looks again after `idleMs`. Crash-safe: a proof is stored
 * in its own write transaction, and a restarted prover starts again from the oldest batch whose
 * tree is kept, skipping those that have their proof.
 *
 * What a batch can have (`batchProofState`): `kept` (a stored proof), `unchanged` (the batch left
 * the root as it was: no block is needed), `pending` (it will be proved), `not-recorded`
 * (committed before the registry kept its change log), `not-provable` (the tree of the batch
 * before left the retention window before the batch was proved), `failed` (proving it failed in
 * this process; `lastError` says why).
 *
 * A batch of more updates than one block proof holds at the registry's depth (`maxBlockUpdates`:
 * 2,048 at depth 48, 4,096 at depths up to 37; an import, a large epoch) is proved in parts, each
 * a block from the root the part before left (replay.ts); each part is a step of its own and is
 * stored as soon as it is proved (block-rows.ts), so a restarted prover goes on with the first
 * part missing. The prover replays such a batch once and keeps the replay while it proves its parts.
 */
import { RegistryError } from "../errors.js";
import { formatRoot } from "../root.js";
import { blockFiles, blockProverV3, type ProvableBlock } from "../block-dir.js";
import type { NameStore } from "../store/name-store.js";
import type { StoredBlockSummary } from "../store/block-rows.js";
import { BatchReplay, batchPartUpdates, type ReplayedPart } from "./replay.js";

export { batchBlockParts } from "./replay.js";
import { blockParts } from "../block-size.js";
import { Worker } from "node:worker_threads";
import type { ProveJob, ProveReply } from "./prove-job.js";

/** What a stored block (or part) says in a log line: "batch 7 part 2 of 3: 2048 updates proved in 9.1 s". */
export function blockProvedText(s: StoredBlockSummary, ms: number): string {
  const part = s.parts !== undefined ? ` part ${s.part! + 1} of ${s.parts}` : "";
  return `batch ${s.batch}${part}: ${s.operations} update${s.operations === 1 ? "" : "s"} proved in ${(ms / 1000).toFixed(1)} s`;
}

/** What a committed batch has, or will have, as its block proof (see the file comment). */
export type BatchProofState = "kept" | "unchanged" | "pending" | "not-recorded" | "not-provable" | "failed";

/** Options of a `BlockProver`. */
export interface BlockProverOptions {
  /** Milliseconds between looks at the head once every batch is settled (default 500). */
  readonly idleMs?: number;
  /** Called after each stored proof. */
  readonly onProved?: (summary: StoredBlockSummary, proveMs: number) => void;
  /** Called when a batch cannot be proved (default: one line on stderr). */
  readonly onError?: (batch: number, error: unknown) => void;
  /** Prove on a worker thread (prove-worker.ts) instead of the calling thread (default false). */
  readonly worker?: boolean;
  /**
   * Replay and prove on a proving pool's workers (src/proving) instead: up to
   * `pool.blockCapacity` parts at once, the parts of one batch in parallel, stored in part order
   * as they come. Nothing is replayed or proved on the calling thread. Takes precedence over `worker`.
   */
  readonly pool?: BlockPartProver;
  /**
   * With `pool`: what stores the proved parts (the server's epoch writer, so that the calling
   * thread never waits on LMDB's write lock); default the store's `keepBlockProof` on the calling thread.
   */
  readonly keeper?: BlockProofKeeper;
}

/** What stores a proved block part (`NameStore.keepBlockProof`'s contract): whether it was stored. */
export interface BlockProofKeeper {
  keepBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): Promise<boolean>;
}

/** A proved part of a batch's block: its stored summary, block.json text and block.bin bytes. */
export interface ProvedBlockPart {
  readonly summary: StoredBlockSummary;
  readonly blockJson: string;
  readonly proof: Uint8Array;
  /** Replay and proof, ms. */
  readonly proveMs: number;
}

/** What proves the parts of committed batches off the calling thread (the proving pool of src/proving). */
export interface BlockPartProver {
  /** Parts proved at once at most. */
  readonly blockCapacity: number;
  proveBlockPart(batch: number, part: number): Promise<ProvedBlockPart>;
}

const provers = new Map<string, (a: ProvableBlock) => Uint8Array>();

/** A batch's change header (undefined without a change log), its block proofs' parts (`batchBlockParts`) and those with a stored proof (0-based). */
function partsOf(
  store: NameStore,
  batch: number,
): { header: ReturnType<NameStore["changeHeader"]>; parts: number; kept: Set<number> } {
  const header = store.changeHeader(batch);
  const parts = header === undefined ? 1 : blockParts(header.updates, batchPartUpdates(store));
  const kept = new Set<number>();
  for (const s of store.blockProofs({ after: batch - 1, limit: parts })) if (s.batch === batch) kept.add(s.part ?? 0);
  return { header, parts, kept };
}

/**
 * The state of batch `batch`'s block proof (1 ≤ batch ≤ head), from the registry alone;
 * `failed` is the prover's (`BlockProver.state`). A batch proved in parts is `kept` once every
 * part is.
 * @throws RegistryError `DB_CORRUPT` (a damaged row).
 */
export function batchProofState(store: NameStore, batch: number): Exclude<BatchProofState, "failed"> {
  return stateOf(store, batch, partsOf(store, batch));
}

/** `batchProofState` from the batch's `partsOf`, read once by the caller. */
function stateOf(
  store: NameStore,
  batch: number,
  { header, parts, kept }: ReturnType<typeof partsOf>,
): Exclude<BatchProofState, "failed"> {
  // A batch that changed nothing logs no part (parts = 0): it is unchanged, never kept.
  if (parts > 0 && kept.size === parts) return "kept";
  if (header === undefined) return "not-recorded";
  if (header.updates === 0) return "unchanged";
  if (batch - 1 < store.window().oldestBatch) return "not-provable";
  return "pending";
}

/** A replay of a batch proved in parts, kept while its parts are proved. */
type Replay = BatchReplay;

/**
 * Makes and stores the block proof of one batch from its change log (replayed at the batch
 * before), unless it has one; of a batch proved in parts, the first part it has no proof of.
 * @returns the stored summary and the proving time (ms), or undefined when the batch already had
 *   its proof (every part).
 * @throws RegistryError `CHANGES_NOT_RECORDED`, `ROOT_NOT_PROVABLE` (the tree of the batch before
 *   is no longer kept), `BAD_BLOCK` (the batch changed nothing), `PROOF_FAILED`, `DB_CORRUPT`.
 */
export function proveBatch(
  store: NameStore,
  batch: number,
): { summary: StoredBlockSummary; proveMs: number } | undefined {
  return provePart(store, batch, undefined).done;
}

/** `proveBatch` with a replay to reuse; returns the replay it used (for the next part). */
function provePart(
  store: NameStore,
  batch: number,
  replay: Replay | undefined,
): { done: { summary: StoredBlockSummary; proveMs: number } | undefined; replay: Replay | undefined } {
  const next = partToProve(store, batch, replay);
  if (next === undefined) return { done: undefined, replay };
  const { depth, leafMaxFields } = store.config;
  const k = `${depth}/${leafMaxFields}`;
  let prove = provers.get(k);
  if (prove === undefined) provers.set(k, (prove = blockProverV3(depth, leafMaxFields)));
  const t0 = performance.now();
  const proof = prove(next.part);
  return { done: keepProof(store, batch, next.part, proof, performance.now() - t0), replay: next.replay };
}

/** The replayed part of a batch to prove next (and the replay it came from), or undefined when every part is kept. @throws as `proveBatch`. */
function partToProve(
  store: NameStore,
  batch: number,
  replay: Replay | undefined,
): { part: ReplayedPart; replay: Replay } | undefined {
  const { parts, kept } = partsOf(store, batch);
  let p = 0;
  while (p < parts && kept.has(p)) p++;
  if (p === parts) return undefined;
  const r = replay?.batch === batch ? replay : new BatchReplay(store, batch);
  if (r.parts === 0)
    throw new RegistryError("BAD_BLOCK", `batch ${batch} changed nothing: it needs no block proof`, { batch });
  return { part: r.part(p), replay: r };
}

/**
 * A proved part of a batch as the registry stores it: its block.json text and its summary.
 * @param config the registry's depth and leaf bound.
 */
export function provedPart(
  config: { readonly depth: number; readonly leafMaxFields: number },
  batch: number,
  part: ReplayedPart,
  proof: Uint8Array,
  proveMs: number,
): ProvedBlockPart {
  const files = blockFiles("v3", part, batch, config.depth, config.leafMaxFields, proof, proveMs, part);
  const blockJson = files.find(([name]) => name === "block.json")![1] as string;
  const summary: StoredBlockSummary = {
    batch,
    profile: "v3",
    operations: part.updates.length,
    from_root: formatRoot(part.fromRoot),
    to_root: formatRoot(part.toRoot),
    proof_bytes: proof.length,
    json_bytes: Buffer.byteLength(blockJson, "utf8"),
    ...(part.parts > 1 ? { part: part.part, parts: part.parts } : {}),
  };
  return { summary, blockJson, proof, proveMs };
}

/** Stores a batch's proof with its block.json; undefined when the batch got one meanwhile. */
function keepProof(
  store: NameStore,
  batch: number,
  part: ReplayedPart,
  proof: Uint8Array,
  proveMs: number,
): { summary: StoredBlockSummary; proveMs: number } | undefined {
  const { summary, blockJson } = provedPart(store.config, batch, part, proof, proveMs);
  return store.keepBlockProof(summary, blockJson, proof) ? { summary, proveMs } : undefined;
}

/**
 * Proves the registry's committed batches in the background (see the file comment).
 * @example
 *   const prover = new BlockProver(store);
 *   prover.start();
 *   // … serve; GET /v1/consistency reads the kept proofs
 *   await prover.stop();
 */
export class BlockProver {
  private cursor = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private running = false;
  private readonly failed = new Map<number, unknown>();
  private readonly idleMs: number;
  private worker: Worker | undefined;
  private jobs = 0;
  private inFlight: Promise<unknown> | undefined;
  /** The replay of the batch proved in parts that the prover is on. */
  private replay: Replay | undefined;

  constructor(
    private readonly store: NameStore,
    private readonly options: BlockProverOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 500;
  }

  /** The state of a batch's proof, with `failed` for a batch this prover could not prove. */
  state(batch: number): BatchProofState {
    const s = batchProofState(this.store, batch);
    return s === "pending" && this.failed.has(batch) ? "failed" : s;
  }

  /**
   * Where proving stands (`GET /v1/status`): the head, the last batch before which every batch is
   * settled (`provedThrough`), the pending batches after it (at most 1,000 counted), the parts
   * proving now, the batches that failed in this process, and the proving lag: seconds since the
   * oldest pending batch was committed (0 with none pending).
   */
  status(): {
    head: number;
    provedThrough: number;
    pendingBatches: number;
    provingParts: number;
    failedBatches: number;
    lagSeconds: number;
  } {
    const head = this.store.head().batch;
    let first: number | undefined;
    let pending = 0;
    const from = Math.max(this.cursor, this.store.window().oldestBatch + 1);
    for (let b = from; b <= head && b < from + 1000; b++)
      if (!this.failed.has(b) && batchProofState(this.store, b) === "pending") {
        pending++;
        first ??= b;
      }
    const lag = first === undefined ? 0 : (Date.now() - Date.parse(this.store.batchEntry(first).committedAt)) / 1000;
    return {
      head,
      provedThrough: (first ?? head + 1) - 1,
      pendingBatches: pending,
      provingParts: this.onPool.size,
      failedBatches: this.failed.size,
      lagSeconds: Math.round(lag * 10) / 10,
    };
  }

  /** Why proving a batch failed in this process, or undefined. */
  lastError(batch: number): unknown {
    return this.failed.get(batch);
  }

  /** Starts proving in the background (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.cursor = this.store.window().oldestBatch + 1;
    this.schedule(0);
  }

  /** Stops: no further step starts; a proof on the worker is abandoned and the worker ended. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    const w = this.worker;
    this.worker = undefined;
    if (w !== undefined) await w.terminate();
    this.wake?.();
    await this.inFlight?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = ms === 0 ? setImmediate(() => this.tick()) : setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running) return;
    if (this.options.pool !== undefined) {
      this.inFlight = this.poolLoop(this.options.pool);
      return;
    }
    if (this.options.worker === true) {
      const run = this.stepInWorker().then(
        (more) => this.schedule(more ? 0 : this.idleMs),
        (e: unknown) => {
          (this.options.onError ?? defaultOnError)(this.cursor, e);
          this.schedule(this.idleMs);
        },
      );
      this.inFlight = run;
      return;
    }
    let proved: boolean;
    try {
      proved = this.step();
    } catch (e) {
      (this.options.onError ?? defaultOnError)(this.cursor, e);
      proved = true;
    }
    this.schedule(proved ? 0 : this.idleMs);
  }

  /** The next batch to prove from the cursor (at most 1,000 looked at), or "later"/"none". */
  private nextPending(): number | "later" | "none" {
    const head = this.store.head().batch;
    const oldest = this.store.window().oldestBatch;
    if (this.cursor < oldest + 1) this.cursor = oldest + 1;
    for (let looked = 0; this.cursor <= head; looked++) {
      if (looked >= 1000) return "later";
      const b = this.cursor;
      if (this.failed.has(b) || batchProofState(this.store, b) !== "pending") {
        this.cursor++;
        continue;
      }
      return b;
    }
    return "none";
  }

  /** Ends the pool loop's wait (stop). */
  private wake: (() => void) | undefined;
  /** Parts on the pool now, by `batch.part`. */
  private readonly onPool = new Map<string, Promise<void>>();
  /** Proved parts waiting for the parts before them to be stored, by `batch.part`. */
  private readonly proved = new Map<string, ProvedBlockPart>();

  /** The pool's loop (options.pool): keeps up to `blockCapacity` parts proving, stores them in order. */
  private async poolLoop(pool: BlockPartProver): Promise<void> {
    while (this.running) {
      while (this.onPool.size < pool.blockCapacity) {
        const next = this.nextPart();
        if (next === undefined) break;
        const key = `${next.batch}.${next.part}`;
        this.onPool.set(
          key,
          this.provePartOnPool(pool, next.batch, next.part).finally(() => this.onPool.delete(key)),
        );
      }
      const stopped = new Promise<void>((resolve) => (this.wake = resolve));
      if (this.onPool.size === 0) {
        await Promise.race([stopped, new Promise<void>((resolve) => (this.timer = setTimeout(resolve, this.idleMs)))]);
        this.timer = undefined;
        continue;
      }
      await Promise.race([stopped, ...this.onPool.values()]);
    }
  }

  /** The next part to hand to the pool: of the oldest pending batches (at most 64 looked at past the cursor), not kept, proving or proved. */
  private nextPart(): { batch: number; part: number } | undefined {
    const head = this.store.head().batch;
    const oldest = this.store.window().oldestBatch;
    if (this.cursor < oldest + 1) this.cursor = oldest + 1;
    while (
      this.cursor <= head &&
      (this.failed.has(this.cursor) || batchProofState(this.store, this.cursor) !== "pending")
    )
      this.cursor++;
    for (let b = this.cursor; b <= head && b < this.cursor + 64; b++) {
      if (this.failed.has(b)) continue;
      const of = partsOf(this.store, b);
      if (stateOf(this.store, b, of) !== "pending") continue;
      const { parts, kept } = of;
      for (let p = 0; p < parts; p++) {
        const key = `${b}.${p}`;
        if (!kept.has(p) && !this.onPool.has(key) && !this.proved.has(key)) return { batch: b, part: p };
      }
    }
    return undefined;
  }

  private async provePartOnPool(pool: BlockPartProver, batch: number, part: number): Promise<void> {
    try {
      const done = await pool.proveBlockPart(batch, part);
      if (!this.running) return;
      this.proved.set(`${batch}.${part}`, done);
      // store the parts of the batch in order, as far as they are proved
      for (;;) {
        const { parts, kept } = partsOf(this.store, batch);
        let p = 0;
        while (p < parts && kept.has(p)) p++;
        const next = this.proved.get(`${batch}.${p}`);
        if (p === parts || next === undefined) break;
        this.proved.delete(`${batch}.${p}`);
        const stored =
          this.options.keeper !== undefined
            ? await this.options.keeper.keepBlockProof(next.summary, next.blockJson, next.proof)
            : this.store.keepBlockProof(next.summary, next.blockJson, next.proof);
        if (!this.running) return;
        if (stored) this.options.onProved?.(next.summary, next.proveMs);
      }
    } catch (e) {
      if (!this.running) return;
      if (!this.failed.has(batch)) {
        this.failed.set(batch, e);
        (this.options.onError ?? defaultOnError)(batch, e);
      }
      for (const key of [...this.proved.keys()]) if (key.startsWith(`${batch}.`)) this.proved.delete(key);
    }
  }

  /** One step with the proof on the worker thread; resolves whether there may be more to do now. */
  private async stepInWorker(): Promise<boolean> {
    const b = this.nextPending();
    if (b === "none") return false;
    if (b === "later") return true;
    try {
      const next = partToProve(this.store, b, this.replay);
      if (next === undefined) {
        this.settled(b);
        return true;
      }
      this.replay = next.replay.parts > 1 ? next.replay : undefined;
      const t0 = performance.now();
      const proof = await this.proveOnWorker(next.part);
      if (!this.running) return false;
      const done = keepProof(this.store, b, next.part, proof, performance.now() - t0);
      if (done !== undefined) this.options.onProved?.(done.summary, done.proveMs);
      if (batchProofState(this.store, b) !== "pending") this.settled(b);
    } catch (e) {
      if (!this.running) return false;
      this.failed.set(b, e);
      (this.options.onError ?? defaultOnError)(b, e);
      this.settled(b);
    }
    return true;
  }

  private proveOnWorker(block: ProvableBlock): Promise<Uint8Array> {
    const w = (this.worker ??= new Worker(new URL("./prove-worker.js", import.meta.url)));
    const id = ++this.jobs;
    return new Promise<Uint8Array>((resolve, reject) => {
      const done = () => {
        w.off("message", onMessage);
        w.off("error", onError);
        w.off("exit", onExit);
      };
      const onMessage = (m: ProveReply) => {
        if (m.id !== id) return;
        done();
        if (m.ok) resolve(m.proof);
        else
          reject(
            new RegistryError(
              m.code === "PROOF_FAILED" ? "PROOF_FAILED" : "DB_CORRUPT",
              `proving the block on the worker: ${m.message}`,
            ),
          );
      };
      const onError = (e: Error) => {
        done();
        if (this.worker === w) this.worker = undefined;
        reject(new RegistryError("PROOF_FAILED", `the block prover's worker failed: ${e.message}`));
      };
      const onExit = (code: number) => {
        done();
        if (this.worker === w) this.worker = undefined;
        reject(new RegistryError("PROOF_FAILED", `the block prover's worker exited (${code})`));
      };
      w.on("message", onMessage);
      w.on("error", onError);
      w.on("exit", onExit);
      w.postMessage({
        id,
        depth: this.store.config.depth,
        leafMaxFields: this.store.config.leafMaxFields,
        block,
      } satisfies ProveJob);
    });
  }

  /**
   * One step: settles batches from the cursor (at most 1,000 looked at) until one is proved.
   * @returns whether there may be more to do now (a batch was proved or the look was cut short).
   */
  step(): boolean {
    const b = this.nextPending();
    if (b === "none") return false;
    if (b === "later") return true;
    try {
      const { done, replay } = provePart(this.store, b, this.replay);
      this.replay = replay !== undefined && replay.parts > 1 ? replay : undefined;
      if (done !== undefined) this.options.onProved?.(done.summary, done.proveMs);
      if (done === undefined || batchProofState(this.store, b) !== "pending") this.settled(b);
    } catch (e) {
      this.failed.set(b, e);
      (this.options.onError ?? defaultOnError)(b, e);
      this.settled(b);
    }
    return true;
  }

  /** Moves on past batch `b` (every part proved, or failed) and lets its replay go. */
  private settled(b: number): void {
    if (this.cursor === b) this.cursor++;
    if (this.replay?.batch === b) this.replay = undefined;
  }

  /** Runs steps until every batch up to the head is settled (tests, `registry prove-blocks`). */
  drain(): void {
    while (this.step());
  }
}

function defaultOnError(batch: number, e: unknown): void {
  process.stderr.write(`block prover: batch ${batch}: ${e instanceof Error ? e.message : String(e)}\n`);
}
