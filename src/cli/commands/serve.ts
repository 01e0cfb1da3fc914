import { Option, type Command } from "commander";
import { availableParallelism } from "node:os";
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

/** An option that may also come from the environment as SSGR_<NAME> (the command line wins). */
function envOption(flags: string, description: string, name: string, fallback?: string): Option {
  const o = new Option(flags, description).env(`SSGR_${name.toUpperCase().replace(/-/g, "_")}`);
  return fallback === undefined ? o : o.default(fallback);
}

/**
 * `ssgkr serve`: the proof server of serving protocol 1 (compat-v1 §16.4; docs/serving.md).
 *
 * Prepares the three kinds at --depth, runs the startup controls, prints `CONTROLS_PASS` and
 * `SERVER_READY` (one JSON line each on stdout, the latter with the bound `listen` address),
 * serves until the run limit or SIGINT/SIGTERM, then prints `SERVER_STOPPED` with counts.
 * Every option may also be given as SSGR_<NAME> in the environment.
 *
 * Exit codes: 0 stopped normally; 1 a control failed (`CONTROLS_FAIL` line); 2 bad option or
 * the address cannot be bound.
 */
export function registerServe(program: Command, setExit: (code: number) => void): void {
  program
    .command("serve")
    .description("serve proofs over TCP (serving protocol 1, compat-v1 §16; docs/serving.md)")
    .addOption(envOption("--listen <host:port>", "listen address; port 0 picks a free port", "listen", "127.0.0.1:9400"))
    .addOption(envOption("--workers <n>", `proving worker threads (default: available cores, here ${availableParallelism()})`, "workers"))
    .addOption(envOption("--batch-max <n>", "largest batch, jobs", "batch-max", "96"))
    .addOption(envOption("--max-wait-us <us>", "a kind is flushed once its oldest job waited this long, µs (timer resolution 1 ms)", "max-wait-us", "1000"))
    .addOption(envOption("--max-queue <n>", "queued jobs over all kinds before refusing (server_total_queue_full)", "max-queue", "8192"))
    .addOption(envOption("--depth <d>", "tree depth, 1..32", "depth", "24"))
    .addOption(envOption("--return-path <mode>", "overlapped: deliver replies while the next batch computes; serial: deliver each reply before the next batch", "return-path", "overlapped").choices(["overlapped", "serial"]))
    .addOption(envOption("--host-id <id>", "host_id of replies (default $HOSTNAME, else unspecified-host)", "host-id"))
    .addOption(envOption("--io-timeout-ms <ms>", "drop a peer stalled inside a frame or not reading its replies after this long", "io-timeout-ms", "5000"))
    .addOption(envOption("--run-ms <ms>", "run limit: stop after this long", "run-ms", "600000"))
    .addOption(envOption("--control-samples <n>", "corpus fixtures per kind checked at startup", "control-samples", "2"))
    .addOption(envOption("--profile <profile>", "compat-v1: one inner-proof-v1 per job (protocol 1); v2: one aggregate per batch (protocol 2, docs/serving.md)", "profile", "compat-v1").choices(["compat-v1", "v2"]))
    .addOption(envOption("--nats <urls>", "run as a worker of a NATS JetStream broker nats://HOST:PORT[,…] instead of listening (docs/scale-out.md)", "nats"))
    .addOption(envOption("--nats-creds <file>", "NATS credentials file (user JWT + nkey seed)", "nats-creds"))
    .addOption(envOption("--nats-tls-ca <file>", "CA certificate (PEM) of the brokers' TLS certificates", "nats-tls-ca"))
    .addOption(envOption("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS (with --nats-tls-key)", "nats-tls-cert"))
    .addOption(envOption("--nats-tls-key <file>", "client key (PEM) for mutual TLS", "nats-tls-key"))
    .addOption(envOption("--max-deliveries <n>", "with --nats: a job delivered more often is answered with an error reply", "max-deliveries", "5"))
    .addOption(envOption("--pull-expires-ms <ms>", "with --nats: expiry of each pull request (a pull returns as soon as jobs arrive)", "pull-expires-ms", "2000"))
    .action(async (opts: ServeOpts, cmd: Command) => {
      rejectDuplicates((cmd.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? []);
      if (opts.nats !== undefined) {
        const src = cmd.getOptionValueSource("listen");
        if (src === "cli" || src === "env") throw new CliError("BAD_OPTION", "--listen and --nats exclude each other (a worker has no listener)");
        await serveNats(opts, setExit);
        return;
      }
      const { host, port } = parseListenOrExit(opts.listen);
      const depth = parseIntOption(opts.depth, "--depth", 1, 32);
      const server = new ProofServer({
        host,
        port,
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
        profile: opts.profile,
      });
      const ready = await startWithControls((onControls) => server.start(onControls));
      const o = server.options;
      line({
        status: "SERVER_READY", ready_unix_ns: ready.readyUnixNs, listen: ready.listen, process_id: ready.processId, host_id: o.hostId,
        profile: o.profile, depth: o.depth, workers: o.workers, batch_max: o.batchMax, max_wait_us: o.maxWaitUs, max_queue: o.maxQueue,
        return_path: o.returnPath, io_timeout_ms: o.ioTimeoutMs, run_ms: o.runMs, prepare_ms: Math.round(ready.prepareMs),
      });
      const s = await doneOnSignals(server);
      const st = s.stats;
      const replied = st.proofReplies;
      line({
        status: "SERVER_STOPPED", reason: s.reason, processed_jobs: s.processedJobs, unprocessed_jobs: s.unprocessedJobs, batches: s.batches,
        admitted_jobs: st.admitted, proof_replies: replied, batch_errors: st.batchErrors, input_errors: st.inputErrors,
        refusals: st.refusals, connections: st.connections, connection_closes: st.closes, undelivered_replies: st.undelivered,
        ready_unix_ns: s.readyUnixNs, finish_unix_ns: s.finishUnixNs, wall_s: round3(s.wallSeconds), cpu_s: round3(s.cpuSeconds),
        proofs_per_s: round3(s.wallSeconds > 0 ? replied / s.wallSeconds : 0),
        cpu_s_per_proof: replied > 0 ? round3(s.cpuSeconds / replied) : null,
        batch_compute_s: round3(st.computeMs / 1000), delivery_s: round3(st.deliveryMs / 1000),
      });
      setExit(EXIT_OK);
    });
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
    return await start((c) => line({ status: "CONTROLS_PASS", checks: c.checks, control_ms: Math.round(c.ms), references: c.references }));
  } catch (err) {
    if (err instanceof SsgkrError && err.code === "CONTROLS_FAILED") {
      line({ status: "CONTROLS_FAIL", error: err.message });
      throw new CliError(err.code, err.message, EXIT_VERDICT);
    }
    throw err;
  }
}

/** `ssgkr serve --nats …`: the same controls and status lines, jobs pulled from the broker. */
async function serveNats(opts: ServeOpts, setExit: (code: number) => void): Promise<void> {
  const depth = parseIntOption(opts.depth, "--depth", 1, 32);
  const worker = new NatsWorker({
    endpoint: brokerEndpoint({ nats: opts.nats, "nats-creds": opts.natsCreds, "nats-tls-ca": opts.natsTlsCa, "nats-tls-cert": opts.natsTlsCert, "nats-tls-key": opts.natsTlsKey }),
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
    maxDeliveries: parseIntOption(opts.maxDeliveries, "--max-deliveries", 1, 1000),
    pullExpiresMs: parseIntOption(opts.pullExpiresMs, "--pull-expires-ms", 5, 60_000),
    profile: opts.profile,
  }, { log: (l) => process.stderr.write(`serve: ${l}
`) });
  const ready = await startWithControls((onControls) => worker.start(onControls));
  const o = worker.options;
  line({
    status: "SERVER_READY", ready_unix_ns: ready.readyUnixNs, transport: "nats", listen: null, nats: ready.servers, connected_to: ready.connectedTo,
    process_id: ready.processId, host_id: o.hostId, profile: o.profile, depth: o.depth, workers: o.workers, batch_max: o.batchMax, max_wait_us: o.maxWaitUs,
    max_queue: o.maxQueue, return_path: o.returnPath, io_timeout_ms: o.ioTimeoutMs, run_ms: o.runMs, prepare_ms: Math.round(ready.prepareMs),
    ack_wait_ms: ready.ackWaitMs, max_deliveries: o.maxDeliveries, pull_expires_ms: o.pullExpiresMs, setup: ready.setup,
  });
  const s = await doneOnSignals(worker);
  const st = s.stats;
  line({
    status: "SERVER_STOPPED", transport: "nats", reason: s.reason, processed_jobs: s.processedJobs, unprocessed_jobs: s.unprocessedJobs, batches: s.batches,
    pulled_jobs: st.pulled, redelivered_jobs: st.redelivered, admitted_jobs: st.admitted, proof_replies: st.proofReplies, batch_errors: st.batchErrors,
    input_errors: st.inputErrors, bad_jobs: st.badJobs, delivery_limit_replies: st.deliveryLimit, over_bound_jobs: st.overBound, published_results: st.published,
    duplicate_results_dropped: st.duplicatesDropped, publish_retries: st.publishRetries, publish_failures: st.publishFailures, returned_at_stop: st.nakedAtStop,
    ready_unix_ns: s.readyUnixNs, finish_unix_ns: s.finishUnixNs, wall_s: round3(s.wallSeconds), cpu_s: round3(s.cpuSeconds),
    proofs_per_s: round3(s.wallSeconds > 0 ? st.proofReplies / s.wallSeconds : 0),
    cpu_s_per_proof: st.proofReplies > 0 ? round3(s.cpuSeconds / st.proofReplies) : null,
    batch_compute_s: round3(st.computeMs / 1000), delivery_s: round3(st.deliveryMs / 1000),
  });
  setExit(EXIT_OK);
}

/** Each option at most once (commander would silently keep the last). */
function rejectDuplicates(argv: readonly string[]): void {
  const seen = new Set<string>();
  for (const a of argv) {
    if (!a.startsWith("--")) continue;
    const name = a.split("=")[0]!;
    if (seen.has(name)) throw new CliError("DUPLICATE_OPTION", `option ${name} given more than once`, undefined, { option: name });
    seen.add(name);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function parseListenOrExit(value: string): { host: string; port: number } {
  return parseListen(value);
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
