/**
 * A worker thread of the commitment's pool (pool.ts): installs this thread's kernels, then
 * answers the pool's messages (protocol.ts): an attach message instantiates the kernels over the
 * calling thread's shared memory; for a batch of kernel calls it takes calls from the batch's
 * control block and runs them on that memory; for a grinding search it takes ranges of candidates
 * (grind.ts); for a tree job it takes chunks, hashes each and writes its subtree into the shared
 * levels buffer (chunks.ts) unless the calling thread took the chunk meanwhile. A failure is
 * written into the control block, so the calling thread, which waits synchronously, learns of it
 * at once; a thread that ends while it holds a chunk or a call writes it from its `exit` handler.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { installKernelBackend } from "../kernels/backend.js";
import { attachKernels, type SharedKernels } from "../kernels/instance.js";
import { currentHashBackend } from "../hash/backend.js";
import { grindRanges } from "./grind.js";
import { PcsError } from "../pcs/index.js";
import { chunkTree, writeChunk } from "./chunks.js";
import {
  BY_WORKERS,
  CHUNK_DONE,
  CHUNK_OPEN,
  CHUNK_WRITING,
  DONE,
  FAILED_EXITED,
  FAILED_KIND,
  FAILED_SLOT,
  FAILED_THREW,
  LINGER_MS,
  NEXT,
  type CallsMessage,
  type JobMessage,
  type PoolMessage,
} from "./protocol.js";

installKernelBackend();

const slot = (workerData as { slot: number }).slot;
let active: Int32Array | null = null;

function fail(control: Int32Array, kind: number): void {
  if (Atomics.compareExchange(control, FAILED_SLOT, 0, slot + 1) === 0) Atomics.store(control, FAILED_KIND, kind);
  Atomics.notify(control, DONE);
}

process.on("exit", () => {
  if (active !== null) fail(active, FAILED_EXITED);
});

function run(message: JobMessage): void {
  const { job, control, states, chunks } = message;
  let chunk = message.reserved ?? Atomics.add(control, NEXT, 1);
  while (chunk < chunks && Atomics.load(control, FAILED_SLOT) === 0) {
    if (message.fault === "exit") process.exit(70);
    if (message.fault === "throw") throw new PcsError("PCS_WORKER_CRASHED", "injected worker fault");
    const tree = chunkTree(job, chunk);
    // Written only if the calling thread has not taken the chunk meanwhile.
    if (Atomics.compareExchange(states, chunk, CHUNK_OPEN, CHUNK_WRITING) === CHUNK_OPEN) {
      writeChunk(job, chunk, tree);
      Atomics.store(states, chunk, CHUNK_DONE);
      Atomics.add(control, BY_WORKERS, 1);
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
    }
    chunk = Atomics.add(control, NEXT, 1);
  }
}

/** The calling thread's kernel exports, once attached (`AttachMessage`). */
let attached: Record<string, (...args: number[]) => unknown> | null = null;

function runCalls(message: CallsMessage): void {
  const { calls, control } = message;
  for (
    let i = message.reserved ?? Atomics.add(control, NEXT, 1);
    i < calls.length && Atomics.load(control, FAILED_SLOT) === 0;
    i = Atomics.add(control, NEXT, 1)
  ) {
    if (message.fault === "exit") process.exit(70);
    if (message.fault === "throw") throw new PcsError("PCS_WORKER_CRASHED", "injected worker fault");
    const call = calls[i]!;
    if (attached === null) throw new PcsError("PCS_WORKER_CRASHED", "kernel calls before the kernels were attached");
    attached[call.fn]!(...call.args);
    Atomics.add(control, BY_WORKERS, 1);
    Atomics.add(control, DONE, 1);
    Atomics.notify(control, DONE);
  }
}

/** Handles one message of the pool (protocol.ts). */
function handle(message: PoolMessage): void {
  if (message.kind === "attach") {
    attached = attachKernels(message.shared as SharedKernels).raw as unknown as Record<
      string,
      (...args: number[]) => unknown
    >;
    return;
  }
  active = message.control;
  try {
    if (message.kind === "calls") runCalls(message);
    else if (message.kind === "grind") {
      const backend = currentHashBackend();
      const search = backend.grindSearch;
      if (search === undefined)
        throw new PcsError("PCS_WORKER_CRASHED", "no grindSearch in this worker's hashing backend");
      const { control, template, lane, mask, chunk } = message;
      grindRanges(control, template, lane, mask, chunk, (t, l, m, a, n) => search.call(backend, t, l, m, a, n), true);
    } else run(message);
  } catch {
    fail(message.control, FAILED_THREW);
  } finally {
    active = null;
  }
}

/**
 * The doorbell (`workerData.door`): the pool adds 1 to its word after each message it posts. After
 * a message, the worker lingers up to `LINGER_MS` for the next one, asleep on that word
 * (`Atomics.wait`) and taking messages off its port itself (`receiveMessageOnPort`), so that the
 * prover's next batch, usually a few milliseconds later, starts without a turn of the event loop.
 * A message that arrives after the worker went back to its event loop is delivered by it.
 */
const door = (workerData as { door?: Int32Array }).door ?? null;

function linger(): void {
  if (door === null) return;
  let until = performance.now() + LINGER_MS;
  for (;;) {
    // The word is read before the port: a message posted after this read rings after it too.
    const seen = Atomics.load(door, 0);
    const next = receiveMessageOnPort(parentPort as unknown as MessagePort);
    if (next !== undefined) {
      handle(next.message as PoolMessage);
      until = performance.now() + LINGER_MS;
      continue;
    }
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(door, 0, seen, left);
  }
}

parentPort!.on("message", (message: PoolMessage) => {
  handle(message);
  linger();
});

parentPort!.postMessage({ kind: "ready" });
