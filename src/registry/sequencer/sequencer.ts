/**
 * The write sequencer of a name-keyed registry (docs/http.md "How it runs"): every write of the
 * server goes through it and is applied in epochs.
 *
 * - A write is checked (name, NFC form, value bounds: `checkEpochWriteForm`) before it is queued,
 *   its name not hashed there: the epoch hashes the names of its writes in one batched call; the
 *   queue holds at most `writeQueue` writes (default 100,000; a full queue refuses at once).
 * - An epoch closes every `epochMs` (default 1,000 ms) or as soon as `epochMax` writes (default
 *   4,096) wait, whichever comes first, and applies up to `epochMax` of them in arrival order as
 *   one batch (epoch.ts): one change log, one root, one history entry, one checkpoint. An epoch
 *   none of whose writes succeed, or with no writes, commits nothing.
 * - `submit` answers once the write's epoch has committed: its update, batch, position in the
 *   batch's change log and the new root, or its own error (a write invalid after the earlier
 *   writes of the epoch fails alone).
 * - `accept` (the API's `Prefer: respond-async`) answers as soon as the write is durable: it is
 *   written to the accepted-writes table (write-tables.ts) first, in one transaction with the
 *   other writes accepted in the same turn of the event loop; the epoch that applies it removes
 *   the row in its commit transaction, and `start` applies rows left by a stopped or killed
 *   process first, in order.
 * - Epochs are hashed and written by an `EpochWriter` (epoch-writer.ts): on the calling thread, or
 *   (`writer: "thread"`, the server's) on a worker thread while the calling thread goes on queueing
 *   and answering; one epoch is written at a time, the next taking every write queued meanwhile.
 * - An idempotency key makes a retried write apply once: a retry of a write still queued shares
 *   its answer, a retry after its epoch gets the stored result, and a retry under the same key
 *   with another write is refused (`key-reused`).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { SsgkrError } from "../../errors.js";
import type { NameStore } from "../store/name-store.js";
import { checkEpochWriteForm, type EpochWrite } from "./epoch.js";
import { InlineEpochWriter, ThreadEpochWriter, type EpochDone, type EpochWriter } from "./epoch-writer.js";
import { DEFAULT_KEY_RETENTION, WriteTables, type KeyRetention, type StoredResult } from "./write-tables.js";

export type { KeyRetention, StoredResult } from "./write-tables.js";
export type { EpochWrite, EpochWriteOp } from "./epoch.js";

/** Default epoch length, ms. */
export const DEFAULT_EPOCH_MS = 1000;
/** Default largest epoch, in writes (the largest block the registry proves in one part at depth 48 is documented in docs/registry.md). */
export const DEFAULT_EPOCH_MAX = 4096;
/** Default bound of the queue of writes waiting for an epoch. */
export const DEFAULT_WRITE_QUEUE = 100_000;
/** Limits of the options (validated by the CLI). */
export const SEQUENCER_LIMITS = {
  epochMs: { min: 1, max: 60_000 },
  epochMax: { min: 1, max: 65_536 },
  writeQueue: { min: 1, max: 10_000_000 },
} as const;

/** Options of a sequencer. */
export interface SequencerOptions {
  readonly epochMs?: number;
  readonly epochMax?: number;
  readonly writeQueue?: number;
  readonly keyRetention?: KeyRetention;
  /** Called after each committed epoch (the server logs one line). */
  readonly onEpoch?: (e: EpochStats) => void;
  /** Called when an epoch fails as a whole (a fault of the store; its accepted writes are tried again). */
  readonly onError?: (e: unknown) => void;
  /**
   * Where epochs are hashed and written: `"thread"` — one worker thread with its own read-write
   * handle on the registry (the server's: the calling thread never hashes an epoch nor waits on
   * LMDB's write lock); `"inline"` — the calling thread (default); or a writer of its own.
   */
  readonly writer?: "thread" | "inline" | ((store: NameStore, tables: WriteTables) => EpochWriter);
}

/** One committed epoch. */
export interface EpochStats {
  readonly batch: number;
  /** Writes applied (the batch's change log). */
  readonly updates: number;
  /** Writes of the epoch that failed alone. */
  readonly failed: number;
  readonly ms: number;
  readonly committedAt: string;
}

/** What the sequencer reports (`GET /v1/status`). */
export interface SequencerStatus {
  readonly epochMs: number;
  readonly epochMax: number;
  readonly writeQueue: number;
  readonly epochsCommitted: number;
  /** Epochs that closed with writes none of which succeeded (nothing committed). */
  readonly epochsEmpty: number;
  readonly lastEpoch: EpochStats | undefined;
  /** Writes waiting for an epoch (accepted ones included). */
  readonly writesQueued: number;
  /** Idempotency keys kept. */
  readonly idempotencyKeys: number;
  /** Where epochs are written: a writer thread, the calling thread, or a writer of the caller's. */
  readonly writer: "thread" | "inline" | "custom";
  /** Whether an epoch is being written now. */
  readonly writing: boolean;
}

/** A write as submitted, with its optional idempotency key. */
export interface SequencedWrite extends EpochWrite {
  readonly idempotencyKey?: string | undefined;
}

/** The answer to `submit` / `accept`. */
export type SequencerAnswer =
  | { readonly kind: "done"; readonly result: StoredResult; readonly replayed: boolean }
  | { readonly kind: "accepted"; readonly replayed: boolean }
  | { readonly kind: "queue-full"; readonly retryAfterS: number; readonly queued: number }
  | { readonly kind: "key-reused"; readonly key: string };

interface Queued {
  readonly write: EpochWrite;
  seq?: number;
  readonly key?: string | undefined;
  readonly fp: string;
  readonly done: Promise<StoredResult>;
  resolve: (r: StoredResult) => void;
  /** Whether its first answer was 202 (accepted). */
  readonly async: boolean;
}

/** The fingerprint of a write: what a retry under the same idempotency key must repeat. */
export function writeFingerprint(w: EpochWrite): string {
  return bytesToHex(sha256(new TextEncoder().encode(JSON.stringify([w.op, w.name, w.value ?? null]))));
}

/** A write's fingerprint when it has an idempotency key (only then is it compared or kept), else "". */
function fingerprintOf(w: SequencedWrite): string {
  return w.idempotencyKey !== undefined ? writeFingerprint(w) : "";
}

/** Writes answered per turn of the event loop once their epoch has committed. */
const ANSWER_SLICE = 256;

/** The write sequencer of one open, writable name-keyed registry. */
export class Sequencer {
  readonly epochMs: number;
  readonly epochMax: number;
  readonly writeQueue: number;
  /** What the epochs, accepted rows and (for the server's block prover) block proofs are written through. */
  readonly writer: EpochWriter;
  private readonly tables: WriteTables;
  private queue: Queued[] = [];
  private readonly inflight = new Map<string, Queued>();
  private acceptBuffer: { q: Queued; fail: (e: unknown) => void; ok: () => void }[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Epochs asked for and not yet applied (they run one after another). */
  private epochsAsked = 0;
  private tail: Promise<unknown> = Promise.resolve();
  /** The clock struck while an epoch was being written: the next starts when it ends. */
  private due = false;
  private committed = 0;
  private empty = 0;
  private last: EpochStats | undefined;

  constructor(
    private readonly store: NameStore,
    private readonly options: SequencerOptions = {},
  ) {
    this.epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
    this.epochMax = options.epochMax ?? DEFAULT_EPOCH_MAX;
    this.writeQueue = options.writeQueue ?? DEFAULT_WRITE_QUEUE;
    const retention = options.keyRetention ?? DEFAULT_KEY_RETENTION;
    this.tables = new WriteTables(store, retention);
    const w = options.writer;
    this.writer =
      w === "thread"
        ? new ThreadEpochWriter({ dir: store.dir, retention }, this.tables.keptKeys)
        : typeof w === "function"
          ? w(store, this.tables)
          : new InlineEpochWriter(store, this.tables);
  }

  /**
   * Starts the writer, applies the writes a stopped or killed process accepted and had not
   * applied (in order, in epochs), then starts the epoch clock.
   * @throws RegistryError `DB_CORRUPT` and other faults of the store.
   */
  async start(): Promise<void> {
    if (this.writer instanceof ThreadEpochWriter) await this.writer.start();
    for (const a of this.tables.pending()) {
      const q = this.entry(a, a.fingerprint ?? fingerprintOf(a), a.idempotencyKey, true);
      q.seq = a.seq;
      this.queue.push(q);
    }
    while (this.queue.length > 0) if (!(await this.runEpoch())) break;
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.kick();
      this.tick();
    }, this.epochMs);
    this.timer.unref?.();
  }

  /** An epoch is due: now, or when the one being written ends. */
  private kick(): void {
    if (this.epochsAsked > 0) this.due = true;
    else if (this.queue.length > 0) void this.runEpoch();
  }

  private entry(w: EpochWrite, fp: string, key: string | undefined, async: boolean): Queued {
    let resolve!: (r: StoredResult) => void;
    const done = new Promise<StoredResult>((r) => (resolve = r));
    const q: Queued = {
      write: {
        op: w.op,
        name: w.name,
        ...(w.value !== undefined ? { value: w.value } : {}),
        ...(w.key !== undefined ? { key: w.key } : {}),
        ...(w.checked === true ? { checked: true } : {}),
      },
      key,
      fp,
      done,
      resolve,
      async,
    };
    if (key !== undefined) {
      this.inflight.set(key, q);
      void done.then(() => {
        if (this.inflight.get(key) === q) this.inflight.delete(key);
      });
    }
    return q;
  }

  /** What an idempotency key already answers, if anything. */
  private replay(
    w: SequencedWrite,
    fp: string,
    async: boolean,
  ): SequencerAnswer | Promise<SequencerAnswer> | undefined {
    const key = w.idempotencyKey;
    if (key === undefined) return undefined;
    const q = this.inflight.get(key);
    if (q !== undefined) {
      if (q.fp !== fp) return { kind: "key-reused", key };
      if (async && q.async) return { kind: "accepted", replayed: true };
      return q.done.then((result) => ({ kind: "done", result, replayed: true }));
    }
    const row = this.tables.keyRow(key);
    if (row === undefined) return undefined;
    if (row.fingerprint !== fp) return { kind: "key-reused", key };
    return { kind: "done", result: row.result, replayed: true };
  }

  private full(): SequencerAnswer | undefined {
    const queued = this.queue.length + this.acceptBuffer.length;
    return queued >= this.writeQueue
      ? { kind: "queue-full", retryAfterS: Math.max(1, Math.ceil(this.epochMs / 1000)), queued }
      : undefined;
  }

  private enqueue(q: Queued): void {
    this.queue.push(q);
    if (this.queue.length >= this.epochMax) this.kick();
  }

  /**
   * Queues a write and answers once its epoch has committed (`done`, with its result: its update,
   * batch, position and root, or its own error).
   * @throws RegistryError `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE` (nothing queued).
   */
  async submit(w: SequencedWrite): Promise<SequencerAnswer> {
    checkEpochWriteForm(this.store, w);
    const fp = fingerprintOf(w);
    const r = this.replay(w, fp, false);
    if (r !== undefined) return await r;
    const full = this.full();
    if (full !== undefined) return full;
    const q = this.entry({ op: w.op, name: w.name, value: w.value, checked: true }, fp, w.idempotencyKey, false);
    this.enqueue(q);
    return { kind: "done", result: await q.done, replayed: false };
  }

  /**
   * Makes a write durable (the accepted-writes table) and answers `accepted` at once; an epoch
   * applies it later. The writes accepted while the writer is busy are written together.
   * @throws RegistryError as `submit`, and faults of the store writing the row.
   */
  async accept(w: SequencedWrite): Promise<SequencerAnswer> {
    checkEpochWriteForm(this.store, w);
    const fp = fingerprintOf(w);
    const r = this.replay(w, fp, true);
    if (r !== undefined) return await r;
    const full = this.full();
    if (full !== undefined) return full;
    const q = this.entry({ op: w.op, name: w.name, value: w.value, checked: true }, fp, w.idempotencyKey, true);
    await new Promise<void>((ok, fail) => {
      this.acceptBuffer.push({ q, ok, fail });
      if (this.acceptBuffer.length === 1) setImmediate(() => void this.flushAccepted());
    });
    return { kind: "accepted", replayed: false };
  }

  /** Writes the accepted rows buffered (after the batch being written, if any). */
  private flushAccepted(): Promise<void> {
    if (this.flushing !== undefined) return this.flushing.then(() => this.flushAccepted());
    if (this.acceptBuffer.length === 0) return Promise.resolve();
    const p = this.flushOnce();
    this.flushing = p;
    void p.then(() => {
      if (this.flushing === p) this.flushing = undefined;
    });
    return p;
  }

  private async flushOnce(): Promise<void> {
    const batch = this.acceptBuffer;
    this.acceptBuffer = [];
    try {
      const rows = await this.writer.accept(
        batch.map(({ q }) => ({ ...q.write, idempotencyKey: q.key, fingerprint: q.fp })),
      );
      batch.forEach(({ q, ok }, i) => {
        q.seq = rows[i]!.seq;
        this.enqueue(q);
        ok();
      });
    } catch (e) {
      for (const { q, fail } of batch) {
        if (q.key !== undefined && this.inflight.get(q.key) === q) this.inflight.delete(q.key);
        fail(e);
      }
    }
  }

  /**
   * Closes the next epoch (once the epoch being written, if any, has ended) and resolves when it
   * is applied: false when it failed as a whole.
   */
  runEpoch(): Promise<boolean> {
    this.epochsAsked++;
    const p = this.tail.then(() => this.epochNow());
    this.tail = p.then(
      (ok) => this.afterEpoch(ok),
      () => this.afterEpoch(false),
    );
    return p;
  }

  private afterEpoch(ok: boolean): void {
    this.epochsAsked--;
    if (this.epochsAsked > 0 || this.stopped) return;
    const again = ok && (this.queue.length >= this.epochMax || (this.due && this.queue.length > 0));
    this.due = false;
    if (again) void this.runEpoch();
  }

  private async epochNow(): Promise<boolean> {
    const take = this.queue.splice(0, this.epochMax);
    if (take.length === 0) return true;
    const t0 = performance.now();
    let done: EpochDone;
    try {
      done = await this.writer.epoch({
        writes: take.map((q) => q.write),
        seqs: take.flatMap((q) => (q.seq !== undefined ? [q.seq] : [])),
        keys: take.flatMap((q, i) => (q.key !== undefined ? [{ i, key: q.key, fp: q.fp }] : [])),
        now: Date.now(),
      });
    } catch (e) {
      this.options.onError?.(e);
      // Accepted writes are durable: those whose rows are still there are tried again (a writer
      // thread that died after its commit, before its answer, has applied and removed them); the
      // others get the fault as their answer, or the result their key kept.
      this.store.renewReadSnapshot();
      const again = take.filter((q) => q.seq !== undefined && this.tables.isAccepted(q.seq));
      this.queue = [...again, ...this.queue];
      const code = e instanceof SsgkrError ? e.code : "INTERNAL";
      const message = e instanceof Error ? e.message : String(e);
      for (const q of take)
        if (!again.includes(q))
          q.resolve(
            (q.key !== undefined ? this.tables.keyRow(q.key)?.result : undefined) ?? { ok: false, code, message },
          );
      return false;
    }
    // this thread's reads see the epoch from now on (its read snapshot may predate the commit)
    if (done.batch !== undefined) this.store.renewReadSnapshot();
    answerInSlices(take, done.results);
    const ms = performance.now() - t0;
    if (done.batch === undefined) this.empty++;
    else {
      this.committed++;
      const updates = done.results.filter((r) => r.ok).length;
      this.last = {
        batch: done.batch,
        updates,
        failed: take.length - updates,
        ms: Math.round(ms * 10) / 10,
        committedAt: done.committedAt!,
      };
      this.options.onEpoch?.(this.last);
    }
    return true;
  }

  /** The sequencer's figures. */
  status(): SequencerStatus {
    return {
      epochMs: this.epochMs,
      epochMax: this.epochMax,
      writeQueue: this.writeQueue,
      epochsCommitted: this.committed,
      epochsEmpty: this.empty,
      lastEpoch: this.last,
      writesQueued: this.queue.length + this.acceptBuffer.length,
      idempotencyKeys: this.writer.keptKeys,
      writer:
        this.writer instanceof ThreadEpochWriter
          ? "thread"
          : this.writer instanceof InlineEpochWriter
            ? "inline"
            : "custom",
      writing: this.epochsAsked > 0,
    };
  }

  /** Stops the clock after applying every queued write, then stops the writer (a server's graceful stop). */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.flushAccepted();
    await this.tail;
    while (this.queue.length > 0) if (!(await this.runEpoch())) break;
    await this.writer.close();
  }
}

/**
 * Answers an epoch's writes, `ANSWER_SLICE` per turn of the event loop, so that the other requests
 * the serving thread holds are served between the slices (an epoch of 4,096 writes answered at once
 * would hold it for the whole epoch's replies).
 */
function answerInSlices(take: readonly Queued[], results: readonly StoredResult[], from = 0): void {
  const end = Math.min(take.length, from + ANSWER_SLICE);
  for (let i = from; i < end; i++) take[i]!.resolve(results[i]!);
  if (end < take.length) setImmediate(() => answerInSlices(take, results, end));
}
