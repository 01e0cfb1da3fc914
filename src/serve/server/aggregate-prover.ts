/**
 * The profile v2 prover of a server (docs/serving.md "Profile v2"): one worker thread that holds
 * the three prepared v2 circuits and proves one aggregate (docs/profile-v2.md §10) per batch, off
 * the event loop. A worker that dies fails the aggregate it was proving (`AGGREGATE_WORKER_CRASHED`)
 * and is replaced (prepared again, without controls).
 */
import { Worker } from "node:worker_threads";
import type { OpRequest } from "../../smt/operation.js";
import type { AggregateTimings } from "../../sync/v2/aggregate.js";
import type { FromAggregateWorker, ToAggregateWorker } from "./aggregate-worker.js";
import type { ControlsReport } from "./controls.js";
import { SsgkrError } from "../../errors.js";
import { ServerError } from "./errors.js";

/** An aggregate's outcome: its bytes and phase times, or the error (with the failing operation). */
export type AggregateOutcome =
  | { readonly ok: true; readonly bytes: Uint8Array; readonly timings: AggregateTimings }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly operation: number | null };

const workerUrl = new URL("./aggregate-worker.js", import.meta.url);

export class AggregateProver {
  private worker: Worker | null = null;
  private seq = 0;
  private pending: { seq: number; resolve: (o: AggregateOutcome) => void } | null = null;
  private closed = false;

  private constructor(private readonly depth: number) {}

  /**
   * Starts the worker, prepares the kinds at `depth` and runs the controls on `controlSamples`
   * fixtures per kind (0 skips them).
   * @throws ServerError `CONTROLS_FAILED`, or the worker's error code.
   */
  static async start(
    depth: number,
    controlSamples: number,
  ): Promise<{ prover: AggregateProver; controls: ControlsReport; prepareMs: number }> {
    const prover = new AggregateProver(depth);
    const ready = await prover.spawn(controlSamples);
    return { prover, ...ready };
  }

  /** Proves `requests` (one kind, 1..4096) as one aggregate; never rejects. */
  prove(kind: number, requests: readonly OpRequest[]): Promise<AggregateOutcome> {
    if (this.closed || !this.worker)
      return Promise.resolve({
        ok: false,
        code: "POOL_CLOSED",
        message: "the aggregate prover is closed",
        operation: null,
      });
    if (this.pending)
      return Promise.resolve({
        ok: false,
        code: "BUSY",
        message: "an aggregate is already being proved",
        operation: null,
      });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending = { seq, resolve };
      try {
        this.worker!.postMessage({ type: "prove", seq, kind, requests } satisfies ToAggregateWorker);
      } catch (err) {
        this.pending = null;
        resolve({
          ok: false,
          code: "JOB_ENCODING",
          message: `the batch cannot be sent to the worker: ${(err as Error).message}`,
          operation: null,
        });
      }
    });
  }

  /** Terminates the worker; an unanswered aggregate gets `POOL_CLOSED`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const p = this.pending;
    this.pending = null;
    p?.resolve({ ok: false, code: "POOL_CLOSED", message: "the aggregate prover was closed", operation: null });
    await this.worker?.terminate();
  }

  private spawn(controlSamples: number): Promise<{ controls: ControlsReport; prepareMs: number }> {
    const worker = new Worker(workerUrl);
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on("message", (msg: FromAggregateWorker) => {
        if (msg.type === "ready") {
          started = true;
          resolve({ controls: msg.controls, prepareMs: msg.prepareMs });
        } else if (msg.type === "failed") {
          void worker.terminate();
          reject(new SsgkrError(msg.code, msg.message)); // the worker's own typed error, passed on with its code
        } else {
          const p = this.pending;
          if (!p || p.seq !== msg.seq) return;
          this.pending = null;
          p.resolve(
            msg.ok
              ? { ok: true, bytes: msg.bytes, timings: msg.timings }
              : { ok: false, code: msg.code, message: msg.message, operation: msg.operation },
          );
        }
      });
      worker.on("error", () => undefined);
      worker.on("exit", (code) => {
        if (!started) {
          reject(
            new ServerError(
              "AGGREGATE_WORKER_CRASHED",
              `the aggregate worker exited with code ${code} before it was ready`,
            ),
          );
          return;
        }
        if (this.closed || this.worker !== worker) return;
        const p = this.pending;
        this.pending = null;
        p?.resolve({
          ok: false,
          code: "AGGREGATE_WORKER_CRASHED",
          message: `the aggregate worker exited with code ${code}`,
          operation: null,
        });
        void this.spawn(0).catch(() => {
          this.worker = null;
        });
      });
      worker.postMessage({ type: "start", depth: this.depth, controlSamples } satisfies ToAggregateWorker);
    });
  }
}
