/**
 * Worker thread of the block prover (block-prover.ts): receives a replayed block (its roots and,
 * per update, the listed update and the values its proof needs), proves it as a profile v3 block,
 * checks it as the auditor will (`blockProverV3` of block-dir.ts) and returns the proof bytes, so
 * the server's thread keeps answering requests while a block is proved.
 *
 * Messages: in `{ id, depth, leafMaxFields, block, zk? }`; out `{ id, ok: true, proof }` or `{ id, ok:
 * false, code, message }` (the code of the `SsgkrError` thrown, else `INTERNAL`).
 */
import { parentPort } from "node:worker_threads";
import { SsgkrError } from "../../errors.js";
import { installKernelBackend } from "../../kernels/backend.js";
import { blockProverV3 } from "../block-dir.js";
import type { ProvableBlock } from "../provable-block.js";
import type { ProveJob, ProveReply } from "./prove-job.js";

export type { ProveJob, ProveReply } from "./prove-job.js";

installKernelBackend();

const provers = new Map<string, (a: ProvableBlock) => Uint8Array>();

parentPort?.on("message", (job: ProveJob) => {
  try {
    const zk = job.zk === true;
    const k = `${job.depth}/${job.leafMaxFields}/${zk}`;
    let prove = provers.get(k);
    if (prove === undefined) provers.set(k, (prove = blockProverV3(job.depth, job.leafMaxFields, { zk })));
    const proof = prove(job.block);
    parentPort!.postMessage({ id: job.id, ok: true, proof } satisfies ProveReply, [proof.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({
      id: job.id,
      ok: false,
      code: e instanceof SsgkrError ? e.code : "INTERNAL",
      message: (e as Error).message,
    } satisfies ProveReply);
  }
});
