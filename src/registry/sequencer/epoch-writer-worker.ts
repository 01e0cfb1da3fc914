/**
 * The writer thread of a server's sequencer (epoch-writer.ts, `ThreadEpochWriter`): opens the
 * registry read-write, says it is ready, then runs the jobs it is sent one at a time, each in its
 * own write transaction — an epoch (`runEpochJob`: planned against the head as the transaction sees
 * it, the accepted rows it settles and the idempotency keys it keeps committed with it), accepted
 * writes' rows, a block proof to store — and answers each with its value or the store's fault.
 */
import { parentPort, workerData } from "node:worker_threads";
import { installKernelBackend } from "../../kernels/backend.js";
import { NameStore } from "../store/name-store.js";
import type { KeyIndex } from "./epoch.js";
import {
  runEpochJob,
  writerFault,
  type WriterMessage,
  type WriterReply,
  type WriterThreadData,
} from "./epoch-writer.js";
import { WriteTables } from "./write-tables.js";

installKernelBackend();

const { dir, retention } = workerData as WriterThreadData;

function start(): void {
  let store: NameStore;
  let tables: WriteTables;
  try {
    store = NameStore.open(dir);
    tables = new WriteTables(store, retention);
  } catch (e) {
    parentPort!.postMessage({ ready: false, ...writerFault(e) });
    return;
  }
  const index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  parentPort!.postMessage({ ready: true });
  parentPort!.on("message", (m: WriterMessage) => {
    let reply: WriterReply;
    try {
      store.renewReadSnapshot();
      const value =
        m.kind === "epoch"
          ? runEpochJob(store, tables, index, m.job)
          : m.kind === "accept"
            ? tables.accept(m.rows)
            : store.keepBlockProof(m.summary, m.blockJson, m.proof);
      reply = { id: m.id, ok: true, value };
    } catch (e) {
      reply = { id: m.id, ok: false, fault: writerFault(e) };
    }
    parentPort!.postMessage(reply);
  });
}

start();
