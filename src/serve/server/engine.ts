/**
 * What every proof worker starts with, whatever its transport: the three kinds prepared at the
 * configured depth, the proving pool, and the startup controls (compat-v1 §16.6).
 */
import { prepareAll } from "../../sync/prepare-all.js";
import type { PreparedSync } from "../../sync/prepared.js";
import { createSyncPool, type SyncPool } from "../../sync/parallel/pool.js";
import { runControls, type ControlsReport } from "./controls.js";

export interface ProofEngine {
  /** Indexed by kind tag (membership, nonmembership, update). */
  readonly prepared: readonly PreparedSync[];
  readonly pool: SyncPool;
  readonly controls: ControlsReport;
  readonly prepareMs: number;
}

/**
 * Prepares the kinds, starts `workers` pool threads and runs the controls on `controlSamples`
 * fixtures per kind (0 skips them).
 * @throws ServerError `CONTROLS_FAILED` (the pool is closed first); CompileError for an unusable depth.
 */
export async function startEngine(o: {
  readonly depth: number;
  readonly workers: number;
  readonly controlSamples: number;
}): Promise<ProofEngine> {
  const t0 = performance.now();
  const all = prepareAll({ depth: o.depth });
  const prepared = [all.membership, all.nonmembership, all.update];
  const prepareMs = performance.now() - t0;
  const pool = createSyncPool({ workers: o.workers });
  try {
    const controls =
      o.controlSamples > 0
        ? await runControls(prepared, pool, o.controlSamples)
        : { references: { membership: [], nonmembership: [], update: [] }, checks: 0, ms: 0 };
    return { prepared, pool, controls, prepareMs };
  } catch (err) {
    await pool.close();
    throw err;
  }
}
