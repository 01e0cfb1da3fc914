/**
 * What a sync pool worker does (`serveSyncJobs`): attaches shared prepared circuits (no
 * compilation, no commitment) and runs one job per message: witness → prove → encode, or strict
 * encoded verification; with an extension (a worker entry of a pool built on the sync pool, e.g.
 * profile v2's aggregate pool) it also attaches the extension's circuits and runs its jobs. A
 * failing job is answered with its error; the worker keeps serving.
 */
import { parentPort } from "node:worker_threads";
import { SsgkrError } from "../../errors.js";
import type { OpRequest } from "../../smt/operation.js";
import { encodeSyncResult, verifyEncoded } from "../encoded.js";
import type { PreparedSync } from "../prepared.js";
import { buildWitness, proveWitness } from "../prove.js";
import { ParallelError } from "./errors.js";
import { decodeJob } from "./job-codec.js";
import type { FromWorker, JobTimings, ToWorker, WireError, WireJob } from "./protocol.js";
import { attachPrepared } from "./shared-prepared.js";
import { installKernelBackend } from "../../kernels/backend.js";

/**
 * The jobs a worker entry adds to the sync pool's (run with `SyncPool.runExtension`): its own
 * circuits, attached once per worker, and one job per message. Thrown errors are answered as the
 * job's error (an `SsgkrError` keeps its code and details).
 */
export interface WorkerExtension {
  /** Attaches circuit `id` from the owner's description (a throw makes every job of it fail so). */
  attach(id: number, body: unknown): void;
  detach(id: number): void;
  /** Runs one job: a structured-clonable result and, optionally, bytes transferred back. */
  run(
    id: number,
    body: unknown,
    buffer: Uint32Array | undefined,
  ): { readonly result: unknown; readonly bytes?: Uint8Array };
}

function plain(details: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (details === null || typeof details !== "object") return out;
  for (const [k, v] of Object.entries(details)) {
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (typeof v === "bigint") out[k] = v.toString();
    else out[k] = String(v);
  }
  return out;
}

/** An error as it crosses the thread boundary: class name, code, message and plain details. */
function wireError(err: unknown): WireError {
  if (err instanceof SsgkrError)
    return { name: err.name, code: err.code, message: err.message, details: plain(err.details) };
  if (err instanceof Error) return { name: err.name, code: "UNEXPECTED", message: err.message, details: {} };
  return { name: "Error", code: "UNEXPECTED", message: String(err), details: {} };
}

function requestOf(job: WireJob): OpRequest {
  return "binary" in job ? decodeJob(job.binary) : job.clone;
}

/**
 * Serves the sync pool's messages on this worker's parent port, plus `extension`'s jobs.
 * @throws ParallelError `NOT_IN_WORKER` outside a worker thread.
 */
export function serveSyncJobs(extension?: WorkerExtension): void {
  // The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
  installKernelBackend();

  const port = parentPort;
  if (!port) throw new ParallelError("NOT_IN_WORKER", "the sync pool worker must run in a worker thread");

  const prepared = new Map<number, PreparedSync>();
  /** Circuits whose descriptor could not be attached: their jobs fail with this error. */
  const unattachable = new Map<number, unknown>();
  /** The extension's attached circuits. */
  const extCircuits = new Set<number>();

  const preparedOf = (id: number): PreparedSync => {
    const p = prepared.get(id);
    if (p) return p;
    if (unattachable.has(id)) throw unattachable.get(id);
    throw new ParallelError("NOT_ATTACHED", `prepared circuit ${id} is not attached to this worker`);
  };

  port.on("message", (msg: ToWorker) => {
    switch (msg.type) {
      case "attach":
        if (prepared.has(msg.id)) return;
        try {
          prepared.set(msg.id, attachPrepared(msg.shared));
        } catch (err) {
          unattachable.set(msg.id, err);
        }
        return;
      case "attach-ext":
        if (extCircuits.has(msg.id) || unattachable.has(msg.id)) return;
        try {
          if (!extension)
            throw new ParallelError(
              "NOT_ATTACHED",
              "this pool's workers have no extension (start the pool with the extension's worker entry)",
            );
          extension.attach(msg.id, msg.body);
          extCircuits.add(msg.id);
        } catch (err) {
          unattachable.set(msg.id, err);
        }
        return;
      case "ext": {
        const t = { decodeMs: 0, witnessMs: 0, proveMs: 0, encodeMs: 0, verifyMs: 0 };
        let reply: FromWorker;
        const transfer: ArrayBuffer[] = [];
        try {
          if (!extCircuits.has(msg.id)) {
            if (unattachable.has(msg.id)) throw unattachable.get(msg.id);
            throw new ParallelError("NOT_ATTACHED", `circuit ${msg.id} is not attached to this worker`);
          }
          const { result, bytes } = extension!.run(msg.id, msg.body, msg.buffer);
          if (
            bytes &&
            bytes.byteOffset === 0 &&
            bytes.byteLength === bytes.buffer.byteLength &&
            bytes.buffer instanceof ArrayBuffer
          )
            transfer.push(bytes.buffer);
          reply = {
            type: "done",
            seq: msg.seq,
            ok: true,
            ...(bytes ? { bytes } : {}),
            result,
            timings: t as JobTimings,
          };
        } catch (err) {
          reply = { type: "done", seq: msg.seq, ok: false, error: wireError(err), timings: t as JobTimings };
        }
        port.postMessage(reply, transfer);
        return;
      }
      case "detach":
        prepared.delete(msg.id);
        unattachable.delete(msg.id);
        if (extCircuits.delete(msg.id)) extension!.detach(msg.id);
        return;
      case "prove":
      case "verify": {
        const t = { decodeMs: 0, witnessMs: 0, proveMs: 0, encodeMs: 0, verifyMs: 0 };
        let reply: FromWorker;
        const transfer: ArrayBuffer[] = [];
        try {
          let t0 = performance.now();
          const p = preparedOf(msg.id);
          const request = requestOf(msg.job);
          let t1 = performance.now();
          t.decodeMs = t1 - t0;
          if (msg.type === "prove") {
            const witness = buildWitness(p, request);
            t0 = performance.now();
            t.witnessMs = t0 - t1;
            const result = proveWitness(p, request, witness);
            t1 = performance.now();
            t.proveMs = t1 - t0;
            const bytes = encodeSyncResult(p, result);
            t.encodeMs = performance.now() - t1;
            if (
              bytes.byteOffset === 0 &&
              bytes.byteLength === bytes.buffer.byteLength &&
              bytes.buffer instanceof ArrayBuffer
            )
              transfer.push(bytes.buffer);
            reply = { type: "done", seq: msg.seq, ok: true, bytes, timings: t as JobTimings };
          } else {
            const verdict = verifyEncoded(p, request, msg.bytes);
            t.verifyMs = performance.now() - t1;
            reply = { type: "done", seq: msg.seq, ok: true, verdict, timings: t as JobTimings };
          }
        } catch (err) {
          reply = { type: "done", seq: msg.seq, ok: false, error: wireError(err), timings: t as JobTimings };
        }
        port.postMessage(reply, transfer);
        return;
      }
      default:
        return;
    }
  });
}
