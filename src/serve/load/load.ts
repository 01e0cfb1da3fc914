/**
 * `runLoad`: one open-loop load run with a verifying frontend (compat-v1 §16.5), end to end:
 * output directory, prepared circuits, verification pool, fixtures, controls, connections,
 * the run, then records.ndjson, summary.json and report.html.
 */
import { availableParallelism } from "node:os";
import { prepare, type PreparedSync } from "../../sync/prepared.js";
import { prepareAll } from "../../sync/prepare-all.js";
import type { OpKindName } from "../../sync/types.js";
import { nowUnixNs } from "../protocol/clock.js";
import { TargetConnection, formatTarget } from "./connection.js";
import { runControls } from "./controls.js";
import { LoadError } from "./errors.js";
import { FixtureStore } from "./fixtures.js";
import type { RequestRecord } from "./ledger.js";
import type { LoadOptions } from "./options.js";
import { createOutDir, NdjsonWriter, RECORDS_FILE, REPORT_FILE, SUMMARY_FILE, writeNewFile } from "./output.js";
import { renderReport } from "./report.js";
import { OpenLoopRun } from "./run.js";
import { VerifyPool } from "./verify-pool.js";
import { buildSummary, newTally, WITHIN_MS, type LoadSummary } from "./summary.js";

export interface LoadHooks {
  /** Progress lines (e.g. to stderr). */
  readonly log?: (line: string) => void;
  /** Called once every connection is open, just before the first offer. */
  readonly onStart?: () => void;
  /** Prepared circuits to reuse (depth must match `options.depth`); missing kinds are prepared. */
  readonly prepared?: ReadonlyMap<OpKindName, PreparedSync>;
}

/** Paths of the outputs and the summary. */
export interface LoadResult {
  readonly summary: LoadSummary;
  readonly records: string;
  readonly summaryPath: string;
  readonly reportPath: string;
}

function prepareKinds(kinds: readonly OpKindName[], depth: number, given?: ReadonlyMap<OpKindName, PreparedSync>): Map<OpKindName, PreparedSync> {
  const out = new Map<OpKindName, PreparedSync>();
  for (const k of kinds) {
    const p = given?.get(k);
    if (p !== undefined && p.config.depth === depth) out.set(k, p);
  }
  kinds = kinds.filter((k) => !out.has(k));
  if (kinds.length === 3) {
    const all = prepareAll({ depth });
    out.set("membership", all.membership).set("nonmembership", all.nonmembership).set("update", all.update);
  } else {
    for (const k of kinds) out.set(k, prepare(k, { depth }));
  }
  return out;
}

/**
 * Runs one load run and writes its outputs into the new directory `options.out`.
 * @throws LoadError `OUT_EXISTS`, `OUT_WRITE`, `CONNECT` (a target refused or timed out before
 *   the first offer), `CONTROLS` (a control failed; summary.json is still written).
 */
export async function runLoad(options: LoadOptions, hooks: LoadHooks = {}): Promise<LoadResult> {
  const log = hooks.log ?? (() => undefined);
  createOutDir(options.out);
  const timings: Record<string, number> = {};
  const kinds = [...new Set(options.kinds)];
  let t = performance.now();
  const prepared = prepareKinds(kinds, options.depth, hooks.prepared);
  timings["prepare"] = Math.round(performance.now() - t);
  log(`prepared ${kinds.join(", ")} at depth ${options.depth} in ${timings["prepare"]} ms`);
  const pool = new VerifyPool(options.verifyWorkers);
  const connections: TargetConnection[] = [];
  try {
    const fixtures = new FixtureStore(options.depth);
    t = performance.now();
    const total = options.warmupJobs + options.jobs;
    const perKind = Math.min(options.corpus, Math.ceil(total / options.kinds.length));
    for (const k of kinds) for (let i = 0; i < perKind; i++) fixtures.get(k, i);
    timings["fixtures"] = Math.round(performance.now() - t);
    log(`built ${fixtures.size} corpus fixtures in ${timings["fixtures"]} ms`);

    t = performance.now();
    await pool.attach(kinds.map((k) => prepared.get(k)!));
    timings["attach_verifiers"] = Math.round(performance.now() - t);
    const controls = await runControls(pool, (k) => prepared.get(k)!, (k, i) => fixtures.get(k, i).request, kinds, options.controlSamples);
    timings["controls"] = Math.round(controls.ms);
    log(`controls ${controls.status} (${controls.checks.length} checks, ${timings["controls"]} ms, ${options.verifyWorkers} verify workers of ${availableParallelism()} cores)`);
    if (controls.status !== "CONTROLS_PASS") {
      writeNewFile(options.out, "controls.json", JSON.stringify({ status: controls.status, checks: controls.checks }, null, 2) + "\n");
      throw new LoadError("CONTROLS", `controls failed: ${controls.checks.filter((c) => !c.pass).map((c) => `${c.kind}/${c.fixtureId} ${c.check} (${c.code ?? "accepted"})`).join(", ")}`);
    }

    const records = new NdjsonWriter(options.out, RECORDS_FILE);
    const tally = newTally();
    const onRecord = (r: RequestRecord): void => {
      records.write(r);
      if (!r.warmup && (r.outcome === "accepted" || r.outcome === "accepted_late")) {
        WITHIN_MS.forEach((th, i) => {
          if (r.latency_ns! <= th * 1e6) tally.within[i]!++;
        });
      }
      if (r.server && r.server.batch_id > 0) {
        tally.batches.set(`${r.server.host_id}/${r.server.process_id}/${r.server.batch_id}`, r.server.batch_size);
        tally.hosts.add(r.server.host_id);
      }
    };
    const run = new OpenLoopRun({ options, pool, prepared, fixtures, controls: controls.references, onRecord, log });

    t = performance.now();
    try {
      for (const [i, target] of options.targets.entries()) {
        connections.push(await TargetConnection.open(target, options.senderQueue, options.connectTimeoutMs, run.events(i)));
      }
    } catch (err) {
      await records.close();
      const e = err as NodeJS.ErrnoException;
      const target = options.targets[connections.length]!;
      throw new LoadError("CONNECT", `cannot connect to ${formatTarget(target)}: ${e.code ?? "ERROR"}: ${e.message}`, { target: formatTarget(target) });
    }
    timings["connect"] = Math.round(performance.now() - t);
    log(`connected to ${connections.map((c) => c.name).join(", ")}; offering ${options.warmupJobs} warmup + ${options.jobs} timed at ${options.rate}/s`);
    hooks.onStart?.();
    const obs = await run.execute(connections, nowUnixNs);
    for (const c of connections) c.close("run finished");
    await records.close();
    const summary = buildSummary(obs, options, controls, tally, timings);
    const summaryPath = writeNewFile(options.out, SUMMARY_FILE, JSON.stringify(summary, null, 2) + "\n");
    const reportPath = writeNewFile(options.out, REPORT_FILE, renderReport(summary, obs.ledger.latency.sortedMs()));
    return { summary, records: records.path, summaryPath, reportPath };
  } finally {
    for (const c of connections) c.close("run finished");
    await pool.close();
  }
}
