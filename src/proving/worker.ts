/**
 * A worker thread of the proving pool (pool.ts): opens the registry read-only, prepares the
 * circuits it proves reads with (one proof of each mode at the head, thrown away; not in a pool
 * that proves only blocks), says it is ready,
 * then makes the proofs it is handed, one at a time:
 * - a name's proof at a given root (`proveNameRead` of counterparty/prove.ts), in compat-v1,
 *   profile v3 or v3-zk;
 * - a part of a committed batch's profile v3 block: the batch's change log replayed against the
 *   tree of the batch before (registry/consistency/replay.ts; the last batch's replay is kept for
 *   its later parts), proved and checked as the auditor will (`blockProverV3`), with its
 *   block.json — the main thread only stores it.
 * Each job starts on a fresh read snapshot, so it sees every batch committed before it was sent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { SsgkrError } from "../errors.js";
import { installKernelBackend } from "../kernels/backend.js";
import { proveNameRead } from "../counterparty/prove.js";
import { NameStore } from "../registry/store/name-store.js";
import { blockProverV3 } from "../registry/block-dir.js";
import { provedPart } from "../registry/consistency/block-prover.js";
import { BatchReplay } from "../registry/consistency/replay.js";
import type { BlockJob, PoolJob, PoolReply, PoolWorkerData, ProvedBlockPart, ReadJob, ReadProfile } from "./jobs.js";

installKernelBackend();

const { dir, prepareReads } = workerData as PoolWorkerData;

/** The prove options of a mode. */
const modeOptions = (profile: ReadProfile) =>
  profile === "v3-zk" ? ({ profile: "v3", zk: true } as const) : ({ profile } as const);

function readProof(store: NameStore, job: ReadJob) {
  return proveNameRead(store, job.name, Uint32Array.from(job.root), modeOptions(job.profile));
}

/** The replay of the last batch asked for, kept for its later parts (a replay moves forward). */
let replay: BatchReplay | undefined;

function blockPart(store: NameStore, job: BlockJob): ProvedBlockPart {
  const t0 = performance.now();
  if (replay?.batch !== job.batch) {
    replay = undefined;
    replay = new BatchReplay(store, job.batch);
  }
  const part = replay.part(job.part);
  const { depth, leafMaxFields } = store.config;
  const proof = blockProverV3(depth, leafMaxFields)(part);
  if (job.part === part.parts - 1) replay = undefined;
  return provedPart(store.config, job.batch, part, proof, performance.now() - t0);
}

function start(): void {
  let store: NameStore;
  const t0 = performance.now();
  try {
    store = NameStore.open(dir, { readOnly: true });
    const head = store.head();
    // prepares every circuit a read proof needs (the first proof of a mode prepares its circuits)
    if (prepareReads)
      for (const profile of ["v1", "v3", "v3-zk"] as const)
        readProof(store, { id: 0, kind: "read", name: "\u0000warm-up", root: [...head.root], profile });
  } catch (e) {
    parentPort!.postMessage({
      ready: false,
      code: e instanceof SsgkrError ? e.code : "INTERNAL",
      message: (e as Error).message,
    });
    return;
  }
  parentPort!.postMessage({ ready: true, prepareMs: performance.now() - t0 });
  parentPort!.on("message", (job: PoolJob) => {
    let reply: PoolReply;
    try {
      store.renewReadSnapshot();
      reply =
        job.kind === "read"
          ? { id: job.id, ok: true, read: readProof(store, job) }
          : { id: job.id, ok: true, block: blockPart(store, job) };
    } catch (e) {
      reply = {
        id: job.id,
        ok: false,
        code: e instanceof SsgkrError ? e.code : "INTERNAL",
        message: (e as Error).message,
        details: e instanceof SsgkrError ? { ...e.details } : {},
      };
    }
    // copied, not transferred: a proof may be a view of a buffer the thread recycles
    parentPort!.postMessage(reply);
  });
}

start();
