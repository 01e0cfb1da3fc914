/**
 * The block prover (docs/registry.md "Consistency between checkpoints"): after the commits, off
 * the write path, every committed batch that changed the tree and has no kept block proof gets
 * one, made from its change log (replay.ts) and stored in the registry (store/block-rows.ts, the
 * format `prove-block --profile v3` keeps, so `GET /v1/blocks` serves it too).
 *
 * One batch at a time, oldest first: each proof is one synchronous step, and the next is
 * scheduled with `setImmediate`, so the process answers requests between proofs; when every
 * batch up to the head is settled it looks again after `idleMs`. Crash-safe: a proof is stored
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

/** What a committed batch has, or will have, as its block proof (see the file comment). */
export type BatchProofState = "kept" | "unchanged" | "pending" | "not-recorded" | "not-provable" | "too-large" | "failed";

/** Options of a `BlockProver`. */
export interface BlockProverOptions {
  /** Milliseconds between looks at the head once every batch is settled (default 500). */
  readonly idleMs?: number;
  /** Called after each stored proof. */
  readonly onProved?: (summary: StoredBlockSummary, proveMs: number) => void;
  /** Called when a batch cannot be proved (default: one line on stderr). */
  readonly onError?: (batch: number, error: unknown) => void;
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
export function proveBatch(store: NameStore, batch: number): { summary: StoredBlockSummary; proveMs: number } | undefined {
  if (kept(store, batch)) return undefined;
  const header = store.changeHeader(batch);
  if (header !== undefined && header.parts > 1) throw new RegistryError("BAD_BLOCK", `batch ${batch} holds ${header.updates} updates, more than one block of 4,096: its block proof in several parts is not made by this version`, { batch, updates: header.updates });
  const [part] = replayBatch(store, batch);
  if (part === undefined) throw new RegistryError("BAD_BLOCK", `batch ${batch} changed nothing: it needs no block proof`, { batch });
  const { depth, leafMaxFields } = store.config;
  const k = `${depth}/${leafMaxFields}`;
  let prove = provers.get(k);
  if (prove === undefined) provers.set(k, (prove = blockProverV3(depth, leafMaxFields)));
  const t0 = performance.now();
  const proof = prove(part);
  const proveMs = performance.now() - t0;
  const files = blockFiles("v3", part, batch, depth, leafMaxFields, proof, proveMs);
  const blockJson = files.find(([name]) => name === "block.json")![1] as string;
  const summary: StoredBlockSummary = { batch, profile: "v3", operations: part.updates.length, from_root: formatRoot(part.fromRoot), to_root: formatRoot(part.toRoot), proof_bytes: proof.length, json_bytes: Buffer.byteLength(blockJson, "utf8") };
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

  constructor(private readonly store: NameStore, private readonly options: BlockProverOptions = {}) {
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

  /** Stops after the current step. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    await Promise.resolve();
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = ms === 0 ? setImmediate(() => this.tick()) : setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running) return;
    let proved: boolean;
    try {
      proved = this.step();
    } catch (e) {
      (this.options.onError ?? defaultOnError)(this.cursor, e);
      proved = true;
    }
    this.schedule(proved ? 0 : this.idleMs);
  }

  /**
   * One step: settles batches from the cursor (at most 1,000 looked at) until one is proved.
   * @returns whether there may be more to do now (a batch was proved or the look was cut short).
   */
  step(): boolean {
    const head = this.store.head().batch;
    const oldest = this.store.window().oldestBatch;
    if (this.cursor < oldest + 1) this.cursor = oldest + 1;
    for (let looked = 0; this.cursor <= head; looked++) {
      if (looked >= 1000) return true;
      const b = this.cursor;
      if (this.failed.has(b) || batchProofState(this.store, b) !== "pending") {
        this.cursor++;
        continue;
      }
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
    return false;
  }

  /** Runs steps until every batch up to the head is settled (tests, `registry prove-blocks`). */
  drain(): void {
    while (this.step());
  }
}

function defaultOnError(batch: number, e: unknown): void {
  process.stderr.write(`block prover: batch ${batch}: ${e instanceof Error ? e.message : String(e)}\n`);
}
