/**
 * The implementation of `ssgkr registry prove-blocks` (the definition is in registry-block.ts):
 * the block prover of the server (docs/registry.md "Consistency between checkpoints") run to
 * completion on a proving pool whose workers all prove blocks, one line on stderr per stored part,
 * then a summary line on stdout. Exit 0 when every batch is settled, 2 when a batch could not be
 * proved (its error line names it).
 */
import { availableParallelism } from "node:os";
import { BlockProver, blockProvedText } from "../../registry/consistency/block-prover.js";
import { openForBlocks } from "./registry-block-run.js";
import { RegistryError } from "../../registry/errors.js";
import { ProvingPool } from "../../proving/pool.js";
import { EXIT_OK } from "../exit.js";
import { parseIntOption } from "../io.js";

/** The action of `ssgkr registry prove-blocks`, with what commander parsed. */
export async function runProveBlocksCommand(
  setExit: (code: number) => void,
  opts: { db: string; workers?: string },
): Promise<void> {
  const workers =
    opts.workers === undefined ? availableParallelism() : parseIntOption(opts.workers, "--workers", 1, 64);
  const store = openForBlocks(opts.db);
  const t0 = performance.now();
  let parts = 0,
    updates = 0;
  let failure: { batch: number; error: unknown } | undefined;
  let pool: ProvingPool | undefined;
  try {
    pool = await ProvingPool.start({ dir: store.dir, workers, reserveReadWorker: false, prepareReads: false });
    const prover = new BlockProver(store, {
      pool,
      idleMs: 50,
      onProved: (s, ms) => {
        parts++;
        updates += s.operations;
        process.stderr.write(`block: ${blockProvedText(s, ms)}\n`);
      },
      onError: (batch, error) => (failure ??= { batch, error }),
    });
    prover.start();
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      const s = prover.status();
      if (failure !== undefined || (s.pendingBatches === 0 && s.provingParts === 0)) break;
    }
    await prover.stop();
  } finally {
    await pool?.close();
    await store.close();
  }
  if (failure !== undefined) {
    const e = failure.error;
    throw e instanceof RegistryError
      ? new RegistryError(e.code, `batch ${failure.batch}: ${e.message}`, e.details as Record<string, unknown>)
      : e;
  }
  const s = (performance.now() - t0) / 1000;
  process.stdout.write(
    `proved ${parts} block${parts === 1 ? "" : "s"} (${updates} updates) on ${workers} worker${workers === 1 ? "" : "s"} in ${s.toFixed(1)} s${updates > 0 ? ` (${Math.round(updates / s)} updates/s)` : ""}; every batch is settled\n`,
  );
  setExit(EXIT_OK);
}
