/**
 * The implementation of `ssgkr serve`: the definitions (options, help) are in serve.ts, which
 * imports this file only when the command runs.
 */
import { type Command } from "commander";
import { SsgkrError } from "../../errors.js";
import { stringifyJson } from "../../serve/protocol/json.js";
import { ProofServer } from "../../serve/server/server.js";
import type { ControlsReport } from "../../serve/server/controls.js";
import { parseListen, type ReturnPath, type ServingProfile } from "../../serve/server/options.js";
import { brokerEndpoint } from "../../serve/nats/connect.js";
import { NatsWorker } from "../../serve/nats/worker.js";
import { EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { CliError } from "../errors.js";
import { parseIntOption } from "../io.js";

interface ServeOpts {
  listen: string;
  workers?: string;
  batchMax: string;
  maxWaitUs: string;
  maxQueue: string;
  depth: string;
  returnPath: ReturnPath;
  hostId?: string;
  ioTimeoutMs: string;
  runMs: string;
  controlSamples: string;
  profile: ServingProfile;
  nats?: string;
  natsCreds?: string;
  natsTlsCa?: string;
  natsTlsCert?: string;
  natsTlsKey?: string;
  maxDeliveries: string;
  pullExpiresMs: string;
}

/** One status line on stdout. */
function line(o: Record<string, unknown>): void {
  process.stdout.write(stringifyJson(o) + "\n");
}

/**
 * Starts a server or a worker: prints CONTROLS_PASS once the startup controls pass, or
 * CONTROLS_FAIL and exits 1 (`CONTROLS_FAILED`) when they fail.
 */
async function startWithControls<R>(start: (onControls: (c: ControlsReport) => void) => Promise<R>): Promise<R> {
  try {
    return await start((c) =>
      line({ status: "CONTROLS_PASS", checks: c.checks, control_ms: Math.round(c.ms), references: c.references }),
    );
  } catch (err) {
    if (err instanceof SsgkrError && err.code === "CONTROLS_FAILED") {
      line({ status: "CONTROLS_FAIL", error: err.message });
      throw new CliError(err.code, err.message, EXIT_VERDICT);
    }
    throw err;
  }
}

/** The options the proof server and the NATS worker share, parsed from the command line (each named in its error). */
function engineOptions(opts: ServeOpts) {
  const depth = parseIntOption(opts.depth, "--depth", 1, 32);
  return {
    ...(opts.workers !== undefined ? { workers: parseIntOption(opts.workers, "--workers", 1, 1024) } : {}),
    batchMax: parseIntOption(opts.batchMax, "--batch-max", 1, 1 << 20),
    maxWaitUs: parseIntOption(opts.maxWaitUs, "--max-wait-us", 0, 3_600_000_000),
    maxQueue: parseIntOption(opts.maxQueue, "--max-queue", 1, 1 << 24),
    depth,
    returnPath: opts.returnPath,
    ...(opts.hostId !== undefined ? { hostId: opts.hostId } : {}),
    ioTimeoutMs: parseIntOption(opts.ioTimeoutMs, "--io-timeout-ms", 1, 3_600_000),
    runMs: parseIntOption(opts.runMs, "--run-ms", 1, Number.MAX_SAFE_INTEGER),
    controlSamples: parseIntOption(opts.controlSamples, "--control-samples", 1, 2 ** Math.min(depth, 24) - 1),
  };
}

/** `ssgkr serve --nats …`: the same controls and status lines, jobs pulled from the broker. */
async function serveNats(opts: ServeOpts, setExit: (code: number) => void): Promise<void> {
  const engine = engineOptions(opts);
  const worker = new NatsWorker(
    {
      endpoint: brokerEndpoint({
        nats: opts.nats,
        "nats-creds": opts.natsCreds,
        "nats-tls-ca": opts.natsTlsCa,
        "nats-tls-cert": opts.natsTlsCert,
        "nats-tls-key": opts.natsTlsKey,
      }),
      ...engine,
      maxDeliveries: parseIntOption(opts.maxDeliveries, "--max-deliveries", 1, 1000),
      pullExpiresMs: parseIntOption(opts.pullExpiresMs, "--pull-expires-ms", 5, 60_000),
      profile: opts.profile,
    },
    {
      log: (l) =>
        process.stderr.write(`serve: ${l}
`),
    },
  );
  const ready = await startWithControls((onControls) => worker.start(onControls));
  const o = worker.options;
  line({
    status: "SERVER_READY",
    ready_unix_ns: ready.readyUnixNs,
    transport: "nats",
    listen: null,
    nats: ready.servers,
    connected_to: ready.connectedTo,
    process_id: ready.processId,
    host_id: o.hostId,
    profile: o.profile,
    depth: o.depth,
    workers: o.workers,
    batch_max: o.batchMax,
    max_wait_us: o.maxWaitUs,
    max_queue: o.maxQueue,
    return_path: o.returnPath,
    io_timeout_ms: o.ioTimeoutMs,
    run_ms: o.runMs,
    prepare_ms: Math.round(ready.prepareMs),
    ack_wait_ms: ready.ackWaitMs,
    max_deliveries: o.maxDeliveries,
    pull_expires_ms: o.pullExpiresMs,
    setup: ready.setup,
  });
  const s = await doneOnSignals(worker);
  const st = s.stats;
  line({
    status: "SERVER_STOPPED",
    transport: "nats",
    reason: s.reason,
    processed_jobs: s.processedJobs,
    unprocessed_jobs: s.unprocessedJobs,
    batches: s.batches,
    pulled_jobs: st.pulled,
    redelivered_jobs: st.redelivered,
    admitted_jobs: st.admitted,
    proof_replies: st.proofReplies,
    batch_errors: st.batchErrors,
    input_errors: st.inputErrors,
    bad_jobs: st.badJobs,
    delivery_limit_replies: st.deliveryLimit,
    over_bound_jobs: st.overBound,
    published_results: st.published,
    duplicate_results_dropped: st.duplicatesDropped,
    publish_retries: st.publishRetries,
    publish_failures: st.publishFailures,
    returned_at_stop: st.nakedAtStop,
    ready_unix_ns: s.readyUnixNs,
    finish_unix_ns: s.finishUnixNs,
    wall_s: round3(s.wallSeconds),
    cpu_s: round3(s.cpuSeconds),
    proofs_per_s: round3(s.wallSeconds > 0 ? st.proofReplies / s.wallSeconds : 0),
    cpu_s_per_proof: st.proofReplies > 0 ? round3(s.cpuSeconds / st.proofReplies) : null,
    batch_compute_s: round3(st.computeMs / 1000),
    delivery_s: round3(st.deliveryMs / 1000),
  });
  setExit(EXIT_OK);
}

/** Each option at most once (commander would silently keep the last). */
function rejectDuplicates(argv: readonly string[]): void {
  const seen = new Set<string>();
  for (const a of argv) {
    if (!a.startsWith("--")) continue;
    const name = a.split("=")[0]!;
    if (seen.has(name))
      throw new CliError("DUPLICATE_OPTION", `option ${name} given more than once`, undefined, { option: name });
    seen.add(name);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function parseListenOrExit(value: string): { host: string; port: number } {
  return parseListen(value);
}

/** The action of `ssgkr serve`, with what commander parsed (the command's definition is in serve.ts). */
export async function runServeCommand(setExit: (code: number) => void, opts: ServeOpts, cmd: Command): Promise<void> {
  rejectDuplicates((cmd.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? []);
  if (opts.nats !== undefined) {
    const src = cmd.getOptionValueSource("listen");
    if (src === "cli" || src === "env")
      throw new CliError("BAD_OPTION", "--listen and --nats exclude each other (a worker has no listener)");
    await serveNats(opts, setExit);
    return;
  }
  const { host, port } = parseListenOrExit(opts.listen);
  const server = new ProofServer({
    host,
    port,
    ...engineOptions(opts),
    profile: opts.profile,
  });
  const ready = await startWithControls((onControls) => server.start(onControls));
  const o = server.options;
  line({
    status: "SERVER_READY",
    ready_unix_ns: ready.readyUnixNs,
    listen: ready.listen,
    process_id: ready.processId,
    host_id: o.hostId,
    profile: o.profile,
    depth: o.depth,
    workers: o.workers,
    batch_max: o.batchMax,
    max_wait_us: o.maxWaitUs,
    max_queue: o.maxQueue,
    return_path: o.returnPath,
    io_timeout_ms: o.ioTimeoutMs,
    run_ms: o.runMs,
    prepare_ms: Math.round(ready.prepareMs),
  });
  const s = await doneOnSignals(server);
  const st = s.stats;
  const replied = st.proofReplies;
  line({
    status: "SERVER_STOPPED",
    reason: s.reason,
    processed_jobs: s.processedJobs,
    unprocessed_jobs: s.unprocessedJobs,
    batches: s.batches,
    admitted_jobs: st.admitted,
    proof_replies: replied,
    batch_errors: st.batchErrors,
    input_errors: st.inputErrors,
    refusals: st.refusals,
    connections: st.connections,
    connection_closes: st.closes,
    undelivered_replies: st.undelivered,
    ready_unix_ns: s.readyUnixNs,
    finish_unix_ns: s.finishUnixNs,
    wall_s: round3(s.wallSeconds),
    cpu_s: round3(s.cpuSeconds),
    proofs_per_s: round3(s.wallSeconds > 0 ? replied / s.wallSeconds : 0),
    cpu_s_per_proof: replied > 0 ? round3(s.cpuSeconds / replied) : null,
    batch_compute_s: round3(st.computeMs / 1000),
    delivery_s: round3(st.deliveryMs / 1000),
  });
  setExit(EXIT_OK);
}

/**
 * Waits for a server or worker to finish; the first SIGINT or SIGTERM stops it gracefully (its
 * summary still comes), a second one exits at once (status 130).
 */
async function doneOnSignals<S>(x: { stop(): Promise<unknown>; readonly done: Promise<S> }): Promise<S> {
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(130);
    void x.stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await x.done;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
