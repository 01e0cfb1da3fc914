/**
 * What writes the sequencer's epochs, its accepted-writes rows and the server's block proofs into
 * the registry (docs/http.md "How it runs"):
 *
 * - `InlineEpochWriter` writes on the calling thread (a library's sequencer; each epoch holds the
 *   thread while it is hashed and written);
 * - `ThreadEpochWriter` (the server's) hands every write transaction to one worker thread
 *   (epoch-writer-worker.ts) with its own read-write handle on the registry, so the serving thread
 *   never hashes an epoch and never waits on LMDB's write lock: it sends the epoch's writes and gets
 *   each write's result back. One job runs at a time, in the order sent.
 *
 * Both answer the same `EpochJob` with the same `EpochDone` (`runEpochJob`, which the worker runs
 * too): an epoch's batch, each write's result, and the idempotency keys kept.
 */
import { Worker } from "node:worker_threads";
import { InternalError, SsgkrError } from "../../errors.js";
import { formatRoot } from "../root.js";
import type { StoredBlockSummary } from "../store/block-rows.js";
import type { NameStore } from "../store/name-store.js";
import { applyEpoch, type EpochOutcome, type EpochWrite, type KeyIndex } from "./epoch.js";
import { WriteTables, type AcceptedWrite, type KeyRetention, type StoredResult } from "./write-tables.js";

/** One epoch to apply: its writes in order, the accepted rows it settles, the keys whose results it keeps. */
export interface EpochJob {
  readonly writes: readonly EpochWrite[];
  /** `seq-accepted` rows the epoch removes (its accepted writes). */
  readonly seqs: readonly number[];
  /** Writes (by index) under an idempotency key: their results are kept with the epoch. */
  readonly keys: readonly { readonly i: number; readonly key: string; readonly fp: string }[];
  /** The epoch's time, ms since 1970 (the keys' age). */
  readonly now: number;
}

/** An applied epoch. */
export interface EpochDone {
  /** Its batch, or undefined when nothing committed. */
  readonly batch: number | undefined;
  /** When it committed (ISO), or undefined. */
  readonly committedAt: string | undefined;
  /** Each write's result, in order. */
  readonly results: readonly StoredResult[];
  /** Idempotency keys kept after it. */
  readonly keptKeys: number;
}

/** A fault of the store while writing (the write transaction rolled back). */
export interface WriterFault {
  readonly code: string;
  readonly message: string;
}

/** What the sequencer writes through. */
export interface EpochWriter {
  /** Applies an epoch in one write transaction. @throws the store's fault (nothing written). */
  epoch(job: EpochJob): Promise<EpochDone>;
  /** Writes accepted writes' rows in one transaction; returns them numbered. */
  accept(rows: readonly Omit<AcceptedWrite, "seq">[]): Promise<AcceptedWrite[]>;
  /** Stores a block proof of a committed batch (`NameStore.keepBlockProof`); whether it was stored. */
  keepBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): Promise<boolean>;
  /** Idempotency keys kept now. */
  readonly keptKeys: number;
  close(): Promise<void>;
}

function resultOf(o: EpochOutcome, i: number, root: string): StoredResult {
  const r = o.results[i]!;
  if (!r.ok) return { ok: false, code: r.error.code, message: r.error.message };
  return { ok: true, op: r.op, batch: o.entry!.batch, position: r.position, root };
}

/**
 * Applies one epoch job to a registry (the tables' rows in the same transaction).
 * @throws RegistryError faults of the store (nothing written).
 */
export function runEpochJob(store: NameStore, tables: WriteTables, index: KeyIndex, job: EpochJob): EpochDone {
  let results: StoredResult[] = [];
  const outcome = applyEpoch(store, index, job.writes, {
    inside: (o) => {
      tables.applied(job.seqs);
      const root = o.entry !== undefined ? formatRoot(o.entry.root) : "";
      results = job.writes.map((_, i) => resultOf(o, i, root));
      for (const { i, key, fp } of job.keys) tables.keep(key, fp, results[i]!, job.now);
      tables.prune(job.now);
    },
  });
  return {
    batch: outcome.entry?.batch,
    committedAt: outcome.entry?.committedAt,
    results,
    keptKeys: tables.keptKeys,
  };
}

/** Writes on the calling thread. */
export class InlineEpochWriter implements EpochWriter {
  private readonly index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  constructor(
    private readonly store: NameStore,
    private readonly tables: WriteTables,
  ) {}
  async epoch(job: EpochJob): Promise<EpochDone> {
    return runEpochJob(this.store, this.tables, this.index, job);
  }
  async accept(rows: readonly Omit<AcceptedWrite, "seq">[]): Promise<AcceptedWrite[]> {
    return this.tables.accept(rows);
  }
  async keepBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): Promise<boolean> {
    return this.store.keepBlockProof(summary, blockJson, proof);
  }
  get keptKeys(): number {
    return this.tables.keptKeys;
  }
  async close(): Promise<void> {}
}

/** What the writer thread is started with. */
export interface WriterThreadData {
  readonly dir: string;
  readonly retention: KeyRetention;
}

/** A job of the writer thread (without its id). */
export type WriterJob =
  | { readonly kind: "epoch"; readonly job: EpochJob }
  | { readonly kind: "accept"; readonly rows: readonly Omit<AcceptedWrite, "seq">[] }
  | {
      readonly kind: "keep-block";
      readonly summary: StoredBlockSummary;
      readonly blockJson: string;
      readonly proof: Uint8Array;
    };

/** A job of the writer thread as sent. */
export type WriterMessage = WriterJob & { readonly id: number };

/** The writer thread's answer. */
export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly value: EpochDone | AcceptedWrite[] | boolean }
  | { readonly id: number; readonly ok: false; readonly fault: WriterFault & { readonly details?: unknown } };

/** The error a fault of the writer thread is answered with (its own code and details, or `InternalError`). */
function faultError(f: WriterFault & { readonly details?: unknown }): Error {
  return f.code === "INTERNAL"
    ? new InternalError(f.message)
    : new SsgkrError(f.code, f.message, (f.details as Record<string, unknown> | undefined) ?? {});
}

/** The fault of an error thrown while writing (sent back to the serving thread). */
export function writerFault(e: unknown): WriterFault & { readonly details?: unknown } {
  return e instanceof SsgkrError
    ? { code: e.code, message: e.message, details: (e as { details?: unknown }).details }
    : { code: "INTERNAL", message: e instanceof Error ? e.message : String(e) };
}

/**
 * Writes on one worker thread with its own read-write handle on the registry. A job in flight
 * when the thread dies is answered `INTERNAL` (its transaction rolled back: nothing of it is
 * written) and the next job starts a new thread.
 */
export class ThreadEpochWriter implements EpochWriter {
  private worker: Worker | undefined;
  private ready: Promise<Worker> | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: unknown) => void }>();
  private readonly sent = new Set<Promise<unknown>>();
  private kept: number;
  private closed = false;

  constructor(
    private readonly data: WriterThreadData,
    keptKeys: number,
  ) {
    this.kept = keptKeys;
  }

  /** Starts the thread (opens the registry there); resolves once it is ready. */
  start(): Promise<Worker> {
    if (this.ready !== undefined) return this.ready;
    const w = new Worker(new URL("./epoch-writer-worker.js", import.meta.url), { workerData: this.data });
    this.worker = w;
    this.ready = new Promise<Worker>((ok, fail) => {
      const first = (m: { ready: boolean; code?: string; message?: string }) => {
        if (m.ready) ok(w);
        else fail(faultError({ code: m.code ?? "INTERNAL", message: m.message ?? "the epoch writer did not start" }));
      };
      w.once("message", (m) => {
        first(m);
        w.on("message", (r: WriterReply) => this.answer(r));
      });
      w.once("error", (e) => fail(e));
    });
    w.on("error", (e) => this.lost(w, e));
    w.on("exit", (code) => this.lost(w, new Error(`the epoch writer thread exited with code ${code}`)));
    return this.ready;
  }

  private answer(r: WriterReply): void {
    const p = this.waiting.get(r.id);
    if (p === undefined) return;
    this.waiting.delete(r.id);
    if (r.ok) p.ok(r.value);
    else p.fail(faultError(r.fault));
  }

  private lost(w: Worker, e: unknown): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.ready = undefined;
    const fault = new InternalError(`the epoch writer thread stopped: ${(e as Error)?.message ?? e}`);
    for (const p of this.waiting.values()) p.fail(fault);
    this.waiting.clear();
  }

  private async send<T>(m: WriterJob): Promise<T> {
    if (this.closed) throw new InternalError("the epoch writer is closed");
    const p = this.start().then(
      (w) =>
        new Promise<T>((ok, fail) => {
          const id = this.nextId++;
          this.waiting.set(id, { ok: ok as (v: unknown) => void, fail });
          w.postMessage({ ...m, id });
        }),
    );
    this.sent.add(p);
    const forget = () => this.sent.delete(p);
    p.then(forget, forget);
    return await p;
  }

  async epoch(job: EpochJob): Promise<EpochDone> {
    const done = await this.send<EpochDone>({ kind: "epoch", job });
    this.kept = done.keptKeys;
    return done;
  }

  accept(rows: readonly Omit<AcceptedWrite, "seq">[]): Promise<AcceptedWrite[]> {
    return this.send<AcceptedWrite[]>({ kind: "accept", rows });
  }

  keepBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): Promise<boolean> {
    return this.send<boolean>({ kind: "keep-block", summary, blockJson, proof });
  }

  get keptKeys(): number {
    return this.kept;
  }

  /** Waits for the jobs sent, then stops the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.sent]);
    const w = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (w !== undefined) await w.terminate();
  }
}
