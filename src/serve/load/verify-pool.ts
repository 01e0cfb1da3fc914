/**
 * The frontend's verification pool: worker threads that run strict encoded verification
 * (`verify_encoded_sync_op`, compat-v1 §13.3) of served proofs against the original requests.
 *
 * Prepared circuits are shared once (`sharePrepared`: one SharedArrayBuffer per circuit) and
 * attached by every worker with the derived wiring oracle, which verifies several times faster
 * than the explicit table the proving pool attaches; the attach (building the derived wiring)
 * happens before the run (`attach`), not on the first reply. One verification per message, to
 * whichever worker is free, FIFO. A worker that dies fails the verification it was running
 * (`VERIFIER_CRASHED`) and is replaced, without limit (the crash / respawn / close lifecycle is
 * the shared pool core's, workers/pool-core.ts); the replacement attaches the same circuits.
 */
import { Worker } from "node:worker_threads";
import { PoolCore, type PoolSlot } from "../../workers/pool-core.js";
import type { OpRequest } from "../../smt/operation.js";
import { sharePrepared } from "../../sync/parallel/shared-prepared.js";
import type { PreparedSync } from "../../sync/prepared.js";
import type { SyncRejectCode } from "../../sync/verify.js";
import type { V2RejectCode } from "../../sync/v2/verify.js";
import { LoadError, type VerifyPoolCode } from "./errors.js";
import type { OpKindName } from "../../statement/types.js";
import type { FromVerifier, ToVerifier } from "./verify-worker.js";

/** A verification's result: the verdict, or why there is none (`VERIFIER_CRASHED`, `POOL_CLOSED`, …). */
export type PoolVerdict =
  | {
      readonly ok: true;
      readonly accepted: boolean;
      readonly code: SyncRejectCode | V2RejectCode | null;
      readonly reason: string | null;
      readonly ms: number;
    }
  | { readonly ok: false; readonly code: VerifyPoolCode; readonly message: string };

interface Task {
  readonly id: number;
  readonly request: OpRequest;
  /** Set for an aggregate verification (then `request` is its first request). */
  readonly requests?: readonly OpRequest[];
  readonly bytes: Uint8Array;
  readonly resolve: (v: PoolVerdict) => void;
  seq: number;
}

type Attached = FromVerifier & { type: "attached" };

interface SlotState {
  task: Task | null;
  attached: Set<number>;
  /** Attach acknowledgements awaited; each returns true when the message was its own. */
  waiters: ((msg: Attached) => boolean)[];
}

type Slot = PoolSlot<SlotState>;

const workerUrl = new URL("./verify-worker.js", import.meta.url);

/**
 * Worker threads verifying served proofs (see the module comment).
 * @example
 *   const pool = new VerifyPool(2);
 *   await pool.attach([prepared]);
 *   const v = await pool.verify(prepared, request, proofBytes); // { ok: true, accepted: true, … }
 *   await pool.close();
 */
export class VerifyPool {
  /** Number of worker threads. */
  readonly size: number;
  private readonly core: PoolCore<SlotState>;
  private queue: Task[] = [];
  private head = 0;
  private readonly ids = new Map<PreparedSync, number>();
  private readonly shared = new Map<
    number,
    ReturnType<typeof sharePrepared> | { readonly v2: OpKindName; readonly depth: number }
  >();
  private readonly idsV2 = new Map<string, number>();
  private nextSeq = 1;
  private closed = false;

  /** Starts `workers` worker threads (1..1024). */
  constructor(workers: number) {
    this.size = workers;
    this.core = new PoolCore<SlotState>({
      size: workers,
      unrefIdle: true,
      spawn: () => new Worker(workerUrl),
      initialState: () => ({ task: null, attached: new Set(), waiters: [] }),
      onMessage: (slot, msg) => this.onMessage(slot, msg as FromVerifier),
      onCrash: (slot, { exitCode }) => {
        const task = slot.state.task;
        slot.state.task = null;
        task?.resolve({
          ok: false,
          code: "VERIFIER_CRASHED",
          message: `the verification worker exited with code ${exitCode}`,
        });
      },
      onRespawn: (previous, fresh) => {
        for (const id of previous.state.attached) void this.attachTo(fresh, id).catch(() => undefined);
        this.pump();
      },
    });
  }

  private get slots(): readonly Slot[] {
    return this.core.slots;
  }

  /**
   * Shares each circuit and has every worker attach it (derived wiring built there); resolves
   * when all have. Milliseconds of the slowest attach per circuit are returned.
   * @throws LoadError `NOT_ATTACHED` if a worker cannot attach a circuit.
   */
  async attach(circuits: readonly PreparedSync[]): Promise<number[]> {
    const out: number[] = [];
    for (const p of circuits) {
      const id = this.idOf(p);
      const pending = this.slots.filter((s) => !s.state.attached.has(id)).map((s) => this.attachTo(s, id));
      const results = await Promise.all(pending);
      out.push(Math.max(0, ...results));
    }
    return out;
  }

  /** Strict encoded verification of `bytes` against `request` on `prepared`'s circuit. */
  verify(prepared: PreparedSync, request: OpRequest, bytes: Uint8Array): Promise<PoolVerdict> {
    if (this.closed)
      return Promise.resolve({ ok: false, code: "POOL_CLOSED", message: "the verification pool is closed" });
    const id = this.idOf(prepared);
    return new Promise((resolve) => {
      this.queue.push({ id, request, bytes, resolve, seq: 0 });
      this.pump();
    });
  }

  /**
   * Has every worker prepare the profile v2 circuits of `kinds` at `depth`; resolves when all have.
   * @throws Error if a worker cannot prepare one.
   */
  async attachV2(kinds: readonly OpKindName[], depth: number): Promise<void> {
    for (const kind of new Set(kinds)) {
      const id = this.idOfV2(kind, depth);
      await Promise.all(this.slots.filter((s) => !s.state.attached.has(id)).map((s) => this.attachTo(s, id)));
    }
  }

  /** Aggregate verification (`verifyAggregate`) of `bytes` against `requests` with the v2 circuit of (kind, depth). */
  verifyAggregate(
    kind: OpKindName,
    depth: number,
    requests: readonly OpRequest[],
    bytes: Uint8Array,
  ): Promise<PoolVerdict> {
    if (this.closed)
      return Promise.resolve({ ok: false, code: "POOL_CLOSED", message: "the verification pool is closed" });
    const id = this.idOfV2(kind, depth);
    return new Promise((resolve) => {
      this.queue.push({ id, request: requests[0]!, requests, bytes, resolve, seq: 0 });
      this.pump();
    });
  }

  /** Verifications waiting for a worker. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  /** Terminates the workers; unanswered verifications get `POOL_CLOSED`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const left = this.queue.slice(this.head);
    for (const s of this.slots) if (s.state.task) left.push(s.state.task);
    this.queue = [];
    this.head = 0;
    for (const t of left) t.resolve({ ok: false, code: "POOL_CLOSED", message: "the verification pool was closed" });
    await this.core.close();
  }

  private idOf(p: PreparedSync): number {
    let id = this.ids.get(p);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(p, id);
      this.shared.set(id, sharePrepared(p));
    }
    return id;
  }

  private idOfV2(kind: OpKindName, depth: number): number {
    const key = `${kind}/${depth}`;
    let id = this.idsV2.get(key);
    if (id === undefined) {
      id = -(this.idsV2.size + 1);
      this.idsV2.set(key, id);
      this.shared.set(id, { v2: kind, depth });
    }
    return id;
  }

  private attachTo(slot: Slot, id: number): Promise<number> {
    slot.state.attached.add(id);
    const what = this.shared.get(id)!;
    slot.worker.postMessage(
      ("v2" in what
        ? { type: "attach-v2", id, kind: what.v2, depth: what.depth }
        : { type: "attach", id, shared: what }) satisfies ToVerifier,
    );
    return new Promise((resolve, reject) => {
      slot.state.waiters.push((msg) => {
        if (msg.id !== id) return false;
        if (msg.error !== null)
          reject(new LoadError("NOT_ATTACHED", `a verification worker could not attach the circuit: ${msg.error}`));
        else resolve(msg.ms);
        return true;
      });
    });
  }

  private onMessage(slot: Slot, msg: FromVerifier): void {
    if (msg.type === "attached") {
      const k = slot.state.waiters.findIndex((w) => w(msg));
      if (k >= 0) slot.state.waiters.splice(k, 1);
      return;
    }
    const task = slot.state.task;
    if (!task || msg.seq !== task.seq) return;
    slot.state.task = null;
    this.core.idle(slot);
    task.resolve(
      msg.ok
        ? { ok: true, accepted: msg.accepted, code: msg.code, reason: msg.reason, ms: msg.ms }
        : { ok: false, code: msg.code, message: msg.message },
    );
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.state.task !== null || this.head >= this.queue.length) continue;
      const task = this.queue[this.head++]!;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      if (!slot.state.attached.has(task.id)) void this.attachTo(slot, task.id).catch(() => undefined);
      task.seq = this.nextSeq++;
      slot.state.task = task;
      this.core.busy(slot);
      try {
        slot.worker.postMessage(
          (task.requests
            ? { type: "verify-aggregate", seq: task.seq, id: task.id, requests: task.requests, bytes: task.bytes }
            : {
                type: "verify",
                seq: task.seq,
                id: task.id,
                request: task.request,
                bytes: task.bytes,
              }) satisfies ToVerifier,
        );
      } catch (err) {
        slot.state.task = null;
        task.resolve({
          ok: false,
          code: "JOB_ENCODING",
          message: `the verification cannot be sent to a worker: ${(err as Error).message}`,
        });
      }
    }
  }
}
