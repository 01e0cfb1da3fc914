/**
 * The write sequencer of a name-keyed registry (docs/http.md "How it runs"): every write of the
 * server goes through it and is applied in epochs.
 *
 * - A write is checked (name, NFC form, value bounds: `checkEpochWrite`) before it is queued; the
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
 * - An idempotency key makes a retried write apply once: a retry of a write still queued shares
 *   its answer, a retry after its epoch gets the stored result, and a retry under the same key
 *   with another write is refused (`key-reused`).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { SsgkrError } from "../../errors.js";
import { formatRoot } from "../root.js";
import type { NameStore } from "../store/name-store.js";
import { applyEpoch, checkEpochWrite, type EpochOutcome, type EpochWrite, type KeyIndex } from "./epoch.js";
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

/** The write sequencer of one open, writable name-keyed registry. */
export class Sequencer {
  readonly epochMs: number;
  readonly epochMax: number;
  readonly writeQueue: number;
  private readonly tables: WriteTables;
  private readonly index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  private queue: Queued[] = [];
  private readonly inflight = new Map<string, Queued>();
  private acceptBuffer: { q: Queued; fail: (e: unknown) => void; ok: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  private stopped = false;
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
    this.tables = new WriteTables(store, options.keyRetention ?? DEFAULT_KEY_RETENTION);
  }

  /**
   * Applies the writes a stopped or killed process accepted and had not applied (in order, in
   * epochs), then starts the epoch clock.
   * @throws RegistryError `DB_CORRUPT` and other faults of the store.
   */
  start(): void {
    for (const a of this.tables.pending()) {
      const q = this.entry(a, a.fingerprint ?? writeFingerprint(a), a.idempotencyKey, true);
      q.seq = a.seq;
      this.queue.push(q);
    }
    while (this.queue.length > 0) if (!this.runEpoch()) break;
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (this.queue.length > 0) this.runEpoch();
      this.tick();
    }, this.epochMs);
    this.timer.unref?.();
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
    if (this.queue.length >= this.epochMax && this.soon === undefined)
      this.soon = setImmediate(() => {
        this.soon = undefined;
        while (this.queue.length >= this.epochMax) if (!this.runEpoch()) break;
      });
  }

  /**
   * Queues a write and answers once its epoch has committed (`done`, with its result: its update,
   * batch, position and root, or its own error).
   * @throws RegistryError `BAD_NAME`, `NAME_NOT_NFC`, `BAD_VALUE`, `VALUE_TOO_LARGE` (nothing queued).
   */
  async submit(w: SequencedWrite): Promise<SequencerAnswer> {
    const key = checkEpochWrite(this.store, w);
    const fp = writeFingerprint(w);
    const r = this.replay(w, fp, false);
    if (r !== undefined) return await r;
    const full = this.full();
    if (full !== undefined) return full;
    const q = this.entry({ ...w, key }, fp, w.idempotencyKey, false);
    this.enqueue(q);
    return { kind: "done", result: await q.done, replayed: false };
  }

  /**
   * Makes a write durable (the accepted-writes table) and answers `accepted` at once; an epoch
   * applies it later.
   * @throws RegistryError as `submit`, and faults of the store writing the row.
   */
  async accept(w: SequencedWrite): Promise<SequencerAnswer> {
    const key = checkEpochWrite(this.store, w);
    const fp = writeFingerprint(w);
    const r = this.replay(w, fp, true);
    if (r !== undefined) return await r;
    const full = this.full();
    if (full !== undefined) return full;
    const q = this.entry({ ...w, key }, fp, w.idempotencyKey, true);
    await new Promise<void>((ok, fail) => {
      this.acceptBuffer.push({ q, ok, fail });
      if (this.acceptBuffer.length === 1) setImmediate(() => this.flushAccepted());
    });
    return { kind: "accepted", replayed: false };
  }

  private flushAccepted(): void {
    const batch = this.acceptBuffer;
    this.acceptBuffer = [];
    if (batch.length === 0) return;
    try {
      const rows = this.tables.accept(batch.map(({ q }) => ({ ...q.write, idempotencyKey: q.key, fingerprint: q.fp })));
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

  /** Closes the next epoch now; false when it failed as a whole. */
  runEpoch(): boolean {
    const take = this.queue.splice(0, this.epochMax);
    if (take.length === 0) return true;
    const t0 = performance.now();
    const now = Date.now();
    let outcome: EpochOutcome;
    try {
      outcome = applyEpoch(
        this.store,
        this.index,
        take.map((q) => q.write),
        (o) => {
          this.tables.applied(take.flatMap((q) => (q.seq !== undefined ? [q.seq] : [])));
          const root = o.entry !== undefined ? formatRoot(o.entry.root) : "";
          take.forEach((q, i) => {
            if (q.key !== undefined) this.tables.keep(q.key, q.fp, resultOf(o, i, root), now);
          });
          this.tables.prune(now);
        },
      );
    } catch (e) {
      this.options.onError?.(e);
      // accepted writes are durable: they are tried again; the others get the fault as their answer
      const again = take.filter((q) => q.seq !== undefined);
      this.queue = [...again, ...this.queue];
      const code = e instanceof SsgkrError ? e.code : "INTERNAL";
      const message = e instanceof Error ? e.message : String(e);
      for (const q of take) if (q.seq === undefined) q.resolve({ ok: false, code, message });
      return false;
    }
    const root = outcome.entry !== undefined ? formatRoot(outcome.entry.root) : "";
    take.forEach((q, i) => q.resolve(resultOf(outcome, i, root)));
    const ms = performance.now() - t0;
    if (outcome.entry === undefined) this.empty++;
    else {
      this.committed++;
      const updates = outcome.results.filter((r) => r.ok).length;
      this.last = {
        batch: outcome.entry.batch,
        updates,
        failed: take.length - updates,
        ms: Math.round(ms * 10) / 10,
        committedAt: outcome.entry.committedAt,
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
      idempotencyKeys: this.tables.keptKeys,
    };
  }

  /** Stops the clock after applying every queued write (a server's graceful stop). */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.soon !== undefined) clearImmediate(this.soon);
    this.flushAccepted();
    while (this.queue.length > 0) if (!this.runEpoch()) break;
  }
}

function resultOf(o: EpochOutcome, i: number, root: string): StoredResult {
  const r = o.results[i]!;
  if (!r.ok) return { ok: false, code: r.error.code, message: r.error.message };
  return { ok: true, op: r.op, batch: o.entry!.batch, position: r.position, root };
}
