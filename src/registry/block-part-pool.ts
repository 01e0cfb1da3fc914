/**
 * Proving the parts of one block at once on worker threads (`proveBlockToDirInParallel` of
 * block-dir.ts, `ssgkr registry prove-block`): each worker (consistency/prove-worker.ts) prepares
 * the v3 update circuit of the registry's configuration once, proves the parts it is handed and
 * checks each proof as the auditor will; the parts are handed out in order, the next to the first
 * worker free. A worker that fails or exits fails the whole run (nothing is committed by the
 * caller); the workers are ended when the run settles either way.
 */
import { Worker } from "node:worker_threads";
import { RegistryError } from "./errors.js";
import type { ProvableBlock } from "./provable-block.js";
import type { ProveJob, ProveReply } from "./consistency/prove-job.js";

/** A proved part: its proof bytes and proving time on its worker (ms). */
export interface ProvedPart {
  readonly proof: Uint8Array;
  readonly proveMs: number;
}

/**
 * Proves `parts` (profile v3 blocks of one configuration) on at most `workers` worker threads.
 * @param options `onPart(part, parts, ms)` after each proved part, in the order they finish.
 * @returns the proofs in the order of `parts`.
 * @throws RegistryError `PROOF_FAILED` (a part's proof does not verify, or a worker failed), or
 *   the code a worker reported.
 */
export async function provePartsOnWorkers(
  parts: readonly ProvableBlock[],
  options: {
    readonly depth: number;
    readonly leafMaxFields: number;
    readonly zk?: boolean;
    readonly workers: number;
    readonly onPart?: ((part: number, parts: number, proveMs: number) => void) | undefined;
  },
): Promise<ProvedPart[]> {
  const out: ProvedPart[] = new Array(parts.length);
  const threads: Worker[] = [];
  let next = 0;
  const run = (w: Worker): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const hand = () => {
        if (next >= parts.length) return resolve();
        const id = next++;
        const t0 = performance.now();
        const onMessage = (m: ProveReply) => {
          if (m.id !== id) return;
          off();
          if (!m.ok)
            return reject(
              new RegistryError("PROOF_FAILED", `part ${id} of ${parts.length}: ${m.message}`, { part: id }),
            );
          const proveMs = performance.now() - t0;
          out[id] = { proof: m.proof, proveMs };
          options.onPart?.(id, parts.length, proveMs);
          hand();
        };
        const onError = (e: Error) => {
          off();
          reject(new RegistryError("PROOF_FAILED", `the worker proving part ${id} failed: ${e.message}`, { part: id }));
        };
        const onExit = (code: number) => {
          off();
          reject(new RegistryError("PROOF_FAILED", `the worker proving part ${id} exited (${code})`, { part: id }));
        };
        const off = () => {
          w.off("message", onMessage);
          w.off("error", onError);
          w.off("exit", onExit);
        };
        w.on("message", onMessage);
        w.on("error", onError);
        w.on("exit", onExit);
        w.postMessage({
          id,
          depth: options.depth,
          leafMaxFields: options.leafMaxFields,
          block: parts[id]!,
          ...(options.zk === true ? { zk: true } : {}),
        } satisfies ProveJob);
      };
      hand();
    });
  try {
    const n = Math.max(1, Math.min(options.workers, parts.length));
    for (let i = 0; i < n; i++) threads.push(new Worker(new URL("./consistency/prove-worker.js", import.meta.url)));
    await Promise.all(threads.map(run));
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  return out;
}
