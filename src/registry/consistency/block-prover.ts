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
 * before left the retention window before the batch was proved), `too-large` (more than 4,096
 * updates: a block of several parts, which this prover does not make yet), `failed` (proving it
 * failed in this process; `lastError` says why).
 */
import { RegistryError } from "../errors.js";
import { formatRoot } from "../root.js";
import { blockFiles, blockProverV3, type ProvableBlock } from "../block-dir.js";
import type { NameStore } from "../store/name-store.js";
import type { StoredBlockSummary } from "../store/block-rows.js";
import { replayBatch } from "./replay.js";
import { Worker } from "node:worker_threads";
import type { ProveJob, ProveReply } from "./prove-worker.js";

/** What a committed batch has, or will have, as its block proof (see the file comment). */
export type BatchProofState =
  | "kept"
  | "unchanged"
  | "pending"
  | "not-recorded"
  | "not-provable"
  | "too-large"
  | "failed";

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
}

const provers = new Map<string, (a: ProvableBlock) => Uint8Array>();

/** Whether batch `batch` has a stored block proof. */
function kept(store: NameStore, batch: number): boolean {
  return store.blockProofs({ after: batch - 1, limit: 1 })[0]?.batch === batch;
}

/**
 * The state of batch `batch`'s block proof (1 ≤ batch ≤ head), from the registry alone;
 * `failed` is the prover's (`BlockProver.state`).
 * @throws RegistryError `DB_CORRUPT` (a damaged row).
 */
export function batchProofState(store: NameStore, batch: number): Exclude<BatchProofState, "failed"> {
  if (kept(store, batch)) return "kept";
  const header = store.changeHeader(batch);
  if (header === undefined) return "not-recorded";
  if (header.updates === 0) return "unchanged";
  if (header.parts > 1) return "too-large";
  if (batch - 1 < store.window().oldestBatch) return "not-provable";
  return "pending";
}

/**
 * Makes and stores the block proof of one batch from its change log (replayed at the batch
 * before), unless it has one.
 * @returns the stored summary and the proving time (ms), or undefined when the batch already had one.
 * @throws RegistryError `CHANGES_NOT_RECORDED`, `ROOT_NOT_PROVABLE` (the tree of the batch before
 *   is no longer kept), `BAD_BLOCK` (more than 4,096 updates), `PROOF_FAILED`, `DB_CORRUPT`.
 */
export function proveBatch(
  store: NameStore,
  batch: number,
): { summary: StoredBlockSummary; proveMs: number } | undefined {
  const part = blockToProve(store, batch);
  if (part === undefined) return undefined;
  const { depth, leafMaxFields } = store.config;
  const k = `${depth}/${leafMaxFields}`;
  let prove = provers.get(k);
  if (prove === undefined) provers.set(k, (prove = blockProverV3(depth, leafMaxFields)));
  const t0 = performance.now();
  const proof = prove(part);
  return keepProof(store, batch, part, proof, performance.now() - t0);
}

/** The replayed block of a batch to prove, or undefined when it has a kept one. @throws as `proveBatch`. */
function blockToProve(store: NameStore, batch: number): ProvableBlock | undefined {
  if (kept(store, batch)) return undefined;
  const header = store.changeHeader(batch);
  if (header !== undefined && header.parts > 1)
    throw new RegistryError(
      "BAD_BLOCK",
      `batch ${batch} holds ${header.updates} updates, more than one block of 4,096: its block proof in several parts is not made by this version`,
      { batch, updates: header.updates },
    );
  const [part] = replayBatch(store, batch);
  if (part === undefined)
    throw new RegistryError("BAD_BLOCK", `batch ${batch} changed nothing: it needs no block proof`, { batch });
  return part;
}

/** Stores a batch's proof with its block.json; undefined when the batch got one meanwhile. */
function keepProof(
  store: NameStore,
  batch: number,
  part: ProvableBlock,
  proof: Uint8Array,
  proveMs: number,
): { summary: StoredBlockSummary; proveMs: number } | undefined {
  const { depth, leafMaxFields } = store.config;
  const files = blockFiles("v3", part, batch, depth, leafMaxFields, proof, proveMs);
  const blockJson = files.find(([name]) => name === "block.json")![1] as string;
  const summary: StoredBlockSummary = {
    batch,
    profile: "v3",
    operations: part.updates.length,
    from_root: formatRoot(part.fromRoot),
    to_root: formatRoot(part.toRoot),
    proof_bytes: proof.length,
    json_bytes: Buffer.byteLength(blockJson, "utf8"),
  };
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
    await this.inFlight?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = ms === 0 ? setImmediate(() => this.tick()) : setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running) return;
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

  /** One step with the proof on the worker thread; resolves whether there may be more to do now. */
  private async stepInWorker(): Promise<boolean> {
    const b = this.nextPending();
    if (b === "none") return false;
    if (b === "later") return true;
    this.cursor++;
    try {
      const part = blockToProve(this.store, b);
      if (part === undefined) return true;
      const t0 = performance.now();
      const proof = await this.proveOnWorker(part);
      if (!this.running) return false;
      const done = keepProof(this.store, b, part, proof, performance.now() - t0);
      if (done !== undefined) this.options.onProved?.(done.summary, done.proveMs);
    } catch (e) {
      if (!this.running) return false;
      this.failed.set(b, e);
      (this.options.onError ?? defaultOnError)(b, e);
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
      const done = proveBatch(this.store, b);
      if (done !== undefined) this.options.onProved?.(done.summary, done.proveMs);
    } catch (e) {
      this.failed.set(b, e);
      (this.options.onError ?? defaultOnError)(b, e);
    }
    this.cursor++;
    return true;
  }

  /** Runs steps until every batch up to the head is settled (tests, `registry prove-blocks`). */
  drain(): void {
    while (this.step());
  }
}

function defaultOnError(batch: number, e: unknown): void {
  process.stderr.write(`block prover: batch ${batch}: ${e instanceof Error ? e.message : String(e)}\n`);
}
