/**
 * `runLoad`: one open-loop load run with a verifying frontend (compat-v1 §16.5), end to end:
 * output directory, prepared circuits, verification pool, fixtures, controls, connections,
 * the run, then records.ndjson, summary.json and report.html.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { prepare, type PreparedSync } from "../../sync/prepared.js";
import { prepareAll } from "../../sync/prepare-all.js";
import type { OpKindName } from "../../statement/types.js";
import { nowUnixNs } from "../protocol/clock.js";
import { TargetConnection, formatTarget } from "./connection.js";
import { runAggregateControls } from "./aggregate-controls.js";
import { runControls } from "./controls.js";
import { LoadError } from "./errors.js";
import { FixtureStore } from "./fixtures.js";
import type { RequestRecord } from "./ledger.js";
import type { LoadOptions } from "./options.js";
import { createOutDir, NdjsonWriter, RECORDS_FILE, REPORT_FILE, SUMMARY_FILE, writeNewFile } from "./output.js";
import { renderReport } from "./report.js";
import { OpenLoopRun, type ResumeState, type RunConnection } from "./run.js";
import { VerifyPool } from "./verify-pool.js";
import { buildSummary, newTally, WITHIN_MS, type LoadSummary } from "./summary.js";

/** Optional hooks of `runLoad`: progress lines, a start callback, prepared circuits to reuse, and another transport (e.g. NATS). */
export interface LoadHooks {
  /** Progress lines (e.g. to stderr). */
  readonly log?: (line: string) => void;
  /** Called once every connection is open, just before the first offer. */
  readonly onStart?: () => void;
  /** Prepared circuits to reuse (depth must match `options.depth`); missing kinds are prepared. */
  readonly prepared?: ReadonlyMap<OpKindName, PreparedSync>;
  /** How jobs reach the provers (default: TCP connections to `options.targets`). */
  readonly transport?: LoadTransport;
}

/** A way to reach the provers: opens the run's connections (one per target index). */
export interface LoadTransport {
  /** Number of targets jobs are spread over (round-robin). */
  readonly targets: number;
  /**
   * Opens the connections with `run.events(i)` as their callbacks.
   * @throws LoadError `CONNECT` (or the transport's own errors) before anything is sent.
   */
  open(run: OpenLoopRun, options: LoadOptions): Promise<RunConnection[]>;
  /** Transport facts for the summary (`summary.transport`). */
  facts?(): Record<string, unknown>;
  /** Releases the transport after the run (idempotent). */
  close?(): Promise<void>;
}

/** The run's settings and start, written before the first offer; `--resume` reads them back. */
export const RUN_FILE = "run.json";

/**
 * The TCP transport: one connection per target of `options.targets`. `open` receives the run's
 * effective options (those recorded in `--out` when resuming).
 */
export function tcpTransport(options: LoadOptions): LoadTransport {
  const connections: TargetConnection[] = [];
  return {
    targets: options.targets.length,
    async open(run) {
      try {
        for (const [i, target] of options.targets.entries()) {
          connections.push(
            await TargetConnection.open(target, options.senderQueue, options.connectTimeoutMs, run.events(i)),
          );
        }
      } catch (err) {
        for (const c of connections) c.close("run finished");
        const e = err as NodeJS.ErrnoException;
        const target = options.targets[connections.length]!;
        throw new LoadError(
          "CONNECT",
          `cannot connect to ${formatTarget(target)}: ${e.code ?? "ERROR"}: ${e.message}`,
          { target: formatTarget(target) },
        );
      }
      return connections;
    },
    async close() {
      for (const c of connections) c.close("run finished");
    },
  };
}

function stringifyRun(options: LoadOptions, startUnixNs: bigint): string {
  const { broker: _b, resume: _r, out: _o, ...settings } = options;
  return (
    JSON.stringify({ run_id: options.runId, start_unix_ns: startUnixNs.toString(), options: settings }, null, 2) + "\n"
  );
}

/**
 * Reads a run to resume from `out`: its options (the schedule's, whatever is given now) and the
 * records already final. A torn last line of records.ndjson (the process died writing it) is cut.
 * @throws LoadError `RESUME`.
 */
export function readResumeState(options: LoadOptions): { options: LoadOptions; state: ResumeState } {
  const dir = options.out;
  const fail = (why: string): never => {
    throw new LoadError("RESUME", `cannot resume --out ${dir}: ${why}`, { path: dir });
  };
  if (!existsSync(join(dir, RUN_FILE))) fail(`no ${RUN_FILE} (the run never started offering)`);
  if (existsSync(join(dir, SUMMARY_FILE))) fail(`${SUMMARY_FILE} exists (the run is complete)`);
  let run: { run_id: string; start_unix_ns: string; options: Omit<LoadOptions, "broker" | "resume" | "out"> };
  try {
    run = JSON.parse(readFileSync(join(dir, RUN_FILE), "utf8")) as typeof run;
  } catch (err) {
    return fail(`${RUN_FILE} is unreadable: ${(err as Error).message}`);
  }
  const path = join(dir, RECORDS_FILE);
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lines = text.split("\n");
  const complete = text.endsWith("\n") || text === "" ? lines.slice(0, -1) : lines.slice(0, -1);
  if (!(text.endsWith("\n") || text === "")) writeFileSync(path, complete.map((l) => l + "\n").join(""));
  const records = complete.map((l) => JSON.parse(l) as RequestRecord);
  return {
    options: { ...run.options, broker: options.broker, resume: true, out: dir, verifyWorkers: options.verifyWorkers },
    state: { startUnixNs: BigInt(run.start_unix_ns), records },
  };
}

/** Paths of the outputs and the summary. */
export interface LoadResult {
  readonly summary: LoadSummary;
  readonly records: string;
  readonly summaryPath: string;
  readonly reportPath: string;
}

function prepareKinds(
  kinds: readonly OpKindName[],
  depth: number,
  given?: ReadonlyMap<OpKindName, PreparedSync>,
): Map<OpKindName, PreparedSync> {
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
 * With `options.resume` it continues the run recorded in `options.out` (run.json, records.ndjson):
 * same run id and schedule, the final records counted as they were, every other offer made
 * (again) and its result read back from the transport.
 *
 * A run that fails before its first offer removes the `--out` directory it created, so the same
 * command can be retried.
 * @throws LoadError `OUT_EXISTS`, `OUT_WRITE`, `CONNECT` (a target refused or timed out before
 *   the first offer), `CONTROLS` (a control failed), `RESUME`; the transport's errors.
 */
export async function runLoad(options: LoadOptions, hooks: LoadHooks = {}): Promise<LoadResult> {
  let resume: ResumeState | undefined;
  if (options.resume) {
    const r = readResumeState(options);
    options = r.options;
    resume = r.state;
  } else {
    createOutDir(options.out);
  }
  let sent = false;
  try {
    return await runIn(options, hooks, resume, () => {
      sent = true;
    });
  } catch (err) {
    // Nothing was offered: leave no directory behind, so that the same command can be retried.
    if (!sent && !options.resume) rmSync(options.out, { recursive: true, force: true });
    throw err;
  }
}

async function runIn(
  options: LoadOptions,
  hooks: LoadHooks,
  resume: ResumeState | undefined,
  onSent: () => void,
): Promise<LoadResult> {
  const log = hooks.log ?? (() => undefined);
  const timings: Record<string, number> = {};
  const kinds = [...new Set(options.kinds)];
  let t = performance.now();
  // profile v2: the verification workers prepare the v2 circuits themselves; no v1 circuit is needed
  const v2 = options.profile === "v2";
  const prepared = v2 ? new Map<OpKindName, PreparedSync>() : prepareKinds(kinds, options.depth, hooks.prepared);
  timings["prepare"] = Math.round(performance.now() - t);
  log(`prepared ${kinds.join(", ")} at depth ${options.depth} in ${timings["prepare"]} ms`);
  const pool = new VerifyPool(options.verifyWorkers);
  const transport = hooks.transport ?? tcpTransport(options);
  try {
    const fixtures = new FixtureStore(options.depth);
    t = performance.now();
    const total = options.warmupJobs + options.jobs;
    const perKind = Math.min(options.corpus, Math.ceil(total / options.kinds.length));
    for (const k of kinds) for (let i = 0; i < perKind; i++) fixtures.get(k, i);
    timings["fixtures"] = Math.round(performance.now() - t);
    log(`built ${fixtures.size} corpus fixtures in ${timings["fixtures"]} ms`);

    t = performance.now();
    if (v2) await pool.attachV2(kinds, options.depth);
    else await pool.attach(kinds.map((k) => prepared.get(k)!));
    timings["attach_verifiers"] = Math.round(performance.now() - t);
    const controls = v2
      ? await runAggregateControls(
          pool,
          (k, i) => fixtures.get(k, i).request,
          kinds,
          options.controlSamples,
          options.depth,
        )
      : await runControls(
          pool,
          (k) => prepared.get(k)!,
          (k, i) => fixtures.get(k, i).request,
          kinds,
          options.controlSamples,
        );
    timings["controls"] = Math.round(controls.ms);
    log(
      `controls ${controls.status} (${controls.checks.length} checks, ${timings["controls"]} ms, ${options.verifyWorkers} verify workers of ${availableParallelism()} cores)`,
    );
    if (controls.status !== "CONTROLS_PASS") {
      throw new LoadError(
        "CONTROLS",
        `controls failed: ${controls.checks
          .filter((c) => !c.pass)
          .map((c) => `${c.kind}/${c.fixtureId} ${c.check} (${c.code ?? "accepted"})`)
          .join(", ")}`,
      );
    }

    const tally = newTally();
    const count = (r: RequestRecord): void => {
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
    for (const r of resume?.records ?? []) count(r);
    let records: NdjsonWriter | null = null;
    const onRecord = (r: RequestRecord): void => {
      records!.write(r);
      count(r);
    };
    const run = new OpenLoopRun({
      options,
      pool,
      prepared,
      fixtures,
      controls: controls.references,
      onRecord,
      log,
      targetCount: transport.targets,
      ...(resume ? { resume } : {}),
    });

    t = performance.now();
    const connections = await transport.open(run, options);
    timings["connect"] = Math.round(performance.now() - t);
    records = new NdjsonWriter(options.out, RECORDS_FILE, resume !== undefined);
    const start = nowUnixNs();
    // only a broker keeps results a resumed run can read back
    if (resume === undefined && options.broker !== null)
      writeNewFile(options.out, RUN_FILE, stringifyRun(options, start));
    log(
      `connected to ${connections.map((c) => c.name).join(", ")}; offering ${options.warmupJobs} warmup + ${options.jobs} timed at ${options.rate}/s${resume ? ` (resumed: ${resume.records.length} final)` : ""}`,
    );
    hooks.onStart?.();
    onSent();
    const obs = await run.execute(connections, () => (resume ? nowUnixNs() : start));
    for (const c of connections) c.close("run finished");
    await transport.close?.();
    await records.close();
    const summary = buildSummary(obs, options, controls, tally, timings, transport.facts?.());
    const summaryPath = writeNewFile(options.out, SUMMARY_FILE, JSON.stringify(summary, null, 2) + "\n");
    const reportPath = writeNewFile(options.out, REPORT_FILE, renderReport(summary, obs.ledger.latency.sortedMs()));
    return { summary, records: records.path, summaryPath, reportPath };
  } finally {
    await transport.close?.();
    await pool.close();
  }
}
