/**
 * Serving study: `ssgkr serve` (a child process on this machine) under the open-loop
 * `ssgkr load` generator with its verifying frontend (compat-v1 §16.4–16.5), for both return
 * paths of the server.
 *
 *   npm run bench -- serving [--depth 24] [--rates 2,4,8,12,16,24,32] [--max-rate 256] [--screen-s 20] [--confirm-s 60]
 *     [--overload-s 30] [--return-paths overlapped,serial] [--workers N] [--verify-workers K]
 *     [--within-ms 500] [--warmup-s 5] [--min-jobs 12] [--mixture membership:1,nonmembership:1,update:1]
 *     [--transport tcp|nats] [--profile compat-v1|v2] [--v2-batch-max 64] [--v2-max-wait-us 50000]
 *
 * `--profile v2` runs the study twice over TCP in one run, first with compat-v1 (one proof per
 * job, the reference) and then with `ssgkr serve --profile v2` / `ssgkr load --profile v2` (one
 * aggregate per batch, verified once per batch by the frontend; the server waits up to
 * --v2-max-wait-us for a batch of up to --v2-batch-max jobs), at the same rates and mixture, and
 * compares them rate by rate: server CPU per accepted request, p50/p99, best rate.
 *
 * `--transport nats` runs the whole study twice in one run, first over TCP (`ssgkr serve
 * --listen`, the reference) and then over NATS JetStream (a `nats-server -js` child on
 * 127.0.0.1 with a temporary store, `ssgkr serve --nats` as the one worker, `ssgkr load --nats`),
 * at the same rates and mixture, and compares them rate by rate: server CPU per accepted
 * request, p50/p99, best rate, and the broker's own CPU per accepted request.
 *
 * Per return path: the server is started once (prepare + startup controls), then
 *   1. screening: one short run per rate, ascending, continued in ×1.5 steps past the list
 *      while every rate passes (duration max(screen-s, min-jobs / rate),
 *      warmup max(2, ⌈rate × warmup-s⌉) offers); screening stops at the first failing rate once
 *      a rate passed, or after two failures in a row;
 *   2. confirmation: the best screened rate for confirm-s (if it fails, the next lower passing
 *      rate, at most twice);
 *   3. overload: twice the confirmed best rate (without one: twice the accepted throughput the
 *      confirmation runs sustained) for overload-s, with a drain of 4 × overload-s (at twice
 *      the capacity the backlog takes about overload-s to clear; the rest is margin for a
 *      machine shared with others).
 * A rate passes when the run ends LOAD_OBSERVATIONS_COMPLETE and every timed offer is accepted
 * within `within-ms` of its scheduled time (deadline-ms = within-ms, so late = failed); the
 * "best rate" is the highest passing one. The mixture is balanced (equal weights by default).
 *
 * Server CPU: utime + stime of the server process (all its threads) from /proc/<pid>/stat
 * before and after each run, in seconds per accepted request (warmup included, since the server
 * proved those too). The load generator (with its verification workers) runs on the same
 * machine and competes for the same cores.
 *
 * Overload checks: every offer in exactly one outcome, no duplicate or unresolved job after the
 * drain, and the trend of the pending count while offering (least-squares slope, jobs/s).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import type { LoadSummary } from "../src/serve/load/summary.js";
import { conditions, conditionsLine, progress, writeResults, printHeadline, fmt } from "./lib/index.js";
import { choice, choices, int, num, text, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    depth: int(1, 64),
    rates: text(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, "comma-separated non-negative numbers"),
    "screen-s": num(0.1, 3600),
    "confirm-s": num(0.1, 3600),
    "overload-s": num(0, 3600),
    "return-paths": choices(["overlapped", "serial"]),
    workers: int(1, 64),
    "verify-workers": int(1, 64),
    "within-ms": num(1, 60_000),
    "warmup-s": num(0, 3600),
    "min-jobs": int(1, 1_000_000),
    mixture: text(/^[a-z]+:\d+(,[a-z]+:\d+)*$/, "kind:weight,… (e.g. membership:1,update:2)"),
    "max-rate": num(0.1, 100_000),
    transport: choice(["tcp", "nats"]),
    profile: choice(["compat-v1", "v2"]),
    "v2-batch-max": int(1, 4096),
    "v2-max-wait-us": int(0, 10_000_000),
  },
  {
    smoke: {
      depth: "8",
      rates: "2",
      "max-rate": "2",
      "screen-s": "1",
      "confirm-s": "1",
      "overload-s": "0",
      "return-paths": "overlapped",
      workers: "1",
      "verify-workers": "1",
      "warmup-s": "0",
      "min-jobs": "2",
    },
  },
);
const depth = Number(args.get("depth") ?? 24);
const rates = (args.get("rates") ?? "2,4,8,12,16,24,32")
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const screenS = Number(args.get("screen-s") ?? 20);
const confirmS = Number(args.get("confirm-s") ?? 60);
const overloadS = Number(args.get("overload-s") ?? 30);
const returnPaths = (args.get("return-paths") ?? "overlapped,serial").split(",");
const workers = Number(args.get("workers") ?? availableParallelism());
const verifyWorkers = Number(args.get("verify-workers") ?? availableParallelism());
const withinMs = Number(args.get("within-ms") ?? 500);
const warmupS = Number(args.get("warmup-s") ?? 5);
const minJobs = Number(args.get("min-jobs") ?? 12);
const mixture = args.get("mixture") ?? "membership:1,nonmembership:1,update:1";
const maxRate = Number(args.get("max-rate") ?? 256);
const transportArg = args.get("transport") ?? "tcp";
if (transportArg !== "tcp" && transportArg !== "nats")
  throw new Error(`--transport must be tcp or nats, got ${JSON.stringify(transportArg)}`);
/** TCP always; NATS beside it with --transport nats. */
const transports: ("tcp" | "nats")[] = transportArg === "nats" ? ["tcp", "nats"] : ["tcp"];
/** compat-v1 always; v2 beside it with --profile v2 (TCP only). */
const profiles: ("compat-v1" | "v2")[] = args.get("profile") === "v2" ? ["compat-v1", "v2"] : ["compat-v1"];
if (profiles.includes("v2") && transports.includes("nats"))
  throw new Error("--profile v2 runs over TCP only (give one of --profile v2 and --transport nats)");
const v2BatchMax = Number(args.get("v2-batch-max") ?? 64);
const v2MaxWaitUs = Number(args.get("v2-max-wait-us") ?? 50_000);

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const work = mkdtempSync(join(tmpdir(), "ssgkr-serving-"));
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

interface Server {
  readonly child: ChildProcess;
  /** host:port of the TCP server, or the broker URL for a NATS worker. */
  readonly address: string;
  readonly transport: "tcp" | "nats";
  readonly profile: "compat-v1" | "v2";
  readonly ready: Record<string, unknown>;
  stopped: Promise<Record<string, unknown> | null>;
  /** The nats-server process (NATS only). */
  broker?: ChildProcess;
}

/** A nats-server with JetStream on a free 127.0.0.1 port and a temporary store; the streams set up. */
async function startBroker(): Promise<{ child: ChildProcess; url: string }> {
  const port = await new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const store = mkdtempSync(join(work, "nats-store-"));
  const child = spawn("nats-server", ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", store], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const on = (d: Buffer) => {
      log += d.toString();
      if (log.includes("Server is ready")) resolve();
    };
    child.stdout!.on("data", on);
    child.stderr!.on("data", on);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`nats-server exited (${code}): ${log.slice(-500)}`)));
  });
  const url = `nats://127.0.0.1:${port}`;
  execFileSync(process.execPath, [bin, "nats", "setup", "--nats", url, "--ack-wait-ms", "60000"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return { child, url };
}

function startServer(
  returnPath: string,
  transport: "tcp" | "nats",
  brokerUrl?: string,
  profile: "compat-v1" | "v2" = "compat-v1",
): Promise<Server> {
  const where = transport === "nats" ? ["--nats", brokerUrl!] : ["--listen", "127.0.0.1:0"];
  if (profile === "v2")
    where.push("--profile", "v2", "--batch-max", String(v2BatchMax), "--max-wait-us", String(v2MaxWaitUs));
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      ...where,
      "--depth",
      String(depth),
      "--workers",
      String(workers),
      "--return-path",
      returnPath,
      "--control-samples",
      "1",
      "--run-ms",
      String(6 * 3600 * 1000),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  let resolveStopped: (v: Record<string, unknown> | null) => void = () => undefined;
  const stopped = new Promise<Record<string, unknown> | null>((r) => (resolveStopped = r));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const ready = out.split("\n").find((l) => l.includes('"SERVER_READY"'));
      if (ready) {
        const info = JSON.parse(ready) as Record<string, unknown>;
        resolve({
          child,
          address: transport === "nats" ? brokerUrl! : String(info["listen"]),
          transport,
          profile,
          ready: info,
          stopped,
        });
      }
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.includes('"SERVER_STOPPED"'));
      resolveStopped(line ? (JSON.parse(line) as Record<string, unknown>) : null);
      reject(new Error(`ssgkr serve exited (${code}) before SERVER_READY: ${err.trim()}`));
    });
  });
}

interface RunResult {
  readonly label: string;
  readonly rate: number;
  readonly durationS: number;
  readonly exitCode: number | null;
  readonly summary: LoadSummary;
  readonly serverCpuS: number;
  /** CPU of the nats-server process over the run, s (NATS only). */
  readonly brokerCpuS: number | null;
  readonly pass: boolean;
  readonly wallS: number;
}

async function loadRun(
  server: Server,
  label: string,
  rate: number,
  durationS: number,
  extra: string[] = [],
): Promise<RunResult> {
  const out = join(work, `${label}-${rate}-${Date.now()}`);
  const warmup = Math.max(2, Math.ceil(rate * warmupS));
  const jobs = Math.max(minJobs, Math.round(rate * durationS));
  const where = server.transport === "nats" ? ["--nats", server.address] : ["--targets", server.address];
  // on a broker every run needs its own run id (results of a run id outlive the run)
  const runId = server.transport === "nats" ? `${label}-${String(rate).replace(".", "_")}-${Date.now()}` : label;
  const argv = [
    bin,
    "load",
    ...where,
    "--rate",
    String(rate),
    "--jobs",
    String(jobs),
    "--warmup",
    String(warmup),
    "--depth",
    String(depth),
    "--mixture",
    mixture,
    "--corpus",
    String(Math.min(768, 2 ** Math.min(depth, 24) - 1)),
    "--deadline-ms",
    String(withinMs),
    "--verify-workers",
    String(verifyWorkers),
    "--control-samples",
    "1",
    "--run-id",
    runId,
    "--out",
    out,
    ...(server.profile === "v2" ? ["--profile", "v2"] : []),
    ...extra,
  ];
  const cpu0 = cpuSeconds(server.child.pid!);
  const broker0 = server.broker ? cpuSeconds(server.broker.pid!) : 0;
  const t0 = performance.now();
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
  const stopLoad = () => child.kill("SIGKILL");
  process.on("exit", stopLoad);
  child.on("exit", () => process.off("exit", stopLoad));
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on("data", () => undefined);
  const exitCode = await new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const wallS = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(server.child.pid!);
  const brokerCpuS = server.broker ? cpuSeconds(server.broker.pid!) - broker0 : null;
  let summary: LoadSummary;
  try {
    summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  } catch {
    throw new Error(
      `ssgkr load (${label}, rate ${rate}) wrote no summary (exit ${exitCode}): ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
    );
  }
  const pass =
    summary.status === "LOAD_OBSERVATIONS_COMPLETE" &&
    summary.timed_counts.offered > 0 &&
    summary.within_ms[String(withinMs)] === 1;
  const r: RunResult = {
    label,
    rate,
    durationS: jobs / rate,
    exitCode,
    summary,
    serverCpuS: cpu1 - cpu0,
    brokerCpuS,
    pass,
    wallS,
  };
  const c = summary.counts;
  const l = summary.latency_ms;
  console.log(
    `${label.padEnd(22)} rate ${String(rate).padStart(5)}/s  ${String(summary.timed_counts.offered).padStart(4)} timed  acc ${c.accepted}+${c.accepted_late} late  rej ${c.rejected}  tx ${c.transport_errors}  gen ${c.generator_failures}  unres ${c.unresolved_at_drain}  ` +
      `p50 ${fmt(l.p50_ms ?? NaN)} p95 ${fmt(l.p95_ms ?? NaN)} p99 ${fmt(l.p99_ms ?? NaN)} max ${fmt(l.max_ms ?? NaN)} ms  ≤${withinMs}ms ${((summary.within_ms[String(withinMs)] ?? 0) * 100).toFixed(1)}%  ` +
      `thr ${fmt(summary.throughput.accepted_per_s ?? NaN, 2)}/s  cpu ${fmt(perAccepted(r) ?? NaN, 3)} s/acc${brokerCpuS !== null ? `  broker ${fmt(perAccepted(r, brokerCpuS) ?? NaN, 4)} s/acc` : ""}  ${pass ? "PASS" : "fail"}`,
  );
  return r;
}

function perAccepted(r: RunResult, cpuS: number = r.serverCpuS): number | null {
  const acc = r.summary.counts.accepted + r.summary.counts.accepted_late;
  return acc > 0 ? cpuS / acc : null;
}

/** Least-squares slope of pending over time (jobs/s) while offering. */
function pendingSlope(s: LoadSummary): number | null {
  const pts = s.pending_per_second.filter((p) => p.t_s * 1000 <= s.throughput.offering_end_ms);
  if (pts.length < 3) return null;
  const n = pts.length;
  const mx = pts.reduce((a, p) => a + p.t_s, 0) / n;
  const my = pts.reduce((a, p) => a + p.pending, 0) / n;
  let num = 0,
    den = 0;
  for (const p of pts) {
    num += (p.t_s - mx) * (p.pending - my);
    den += (p.t_s - mx) ** 2;
  }
  return den > 0 ? num / den : null;
}

function brief(r: RunResult): Record<string, unknown> {
  const s = r.summary;
  return {
    label: r.label,
    rate: r.rate,
    duration_s: r.durationS,
    wall_s: Math.round(r.wallS * 10) / 10,
    pass: r.pass,
    exit_code: r.exitCode,
    status: s.status,
    counts: s.counts,
    timed_counts: s.timed_counts,
    latency_ms: s.latency_ms,
    within_ms: s.within_ms,
    throughput: s.throughput,
    server_batches: s.server,
    server_cpu_s: Math.round(r.serverCpuS * 1000) / 1000,
    server_cpu_s_per_accepted: perAccepted(r),
    ...(r.brokerCpuS !== null
      ? {
          broker_cpu_s: Math.round(r.brokerCpuS * 1000) / 1000,
          broker_cpu_s_per_accepted: perAccepted(r, r.brokerCpuS),
          transport: s.transport,
        }
      : {}),
    generator: s.generator,
    timings_ms: s.timings_ms,
  };
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# transports ${transports.join(" then ")}; depth ${depth}, server workers ${workers}, verify workers ${verifyWorkers} (co-located), mixture ${mixture}, pass = every timed offer accepted within ${withinMs} ms; screening ${screenS} s at ${rates.join(", ")}/s, confirm ${confirmS} s, overload 2× for ${overloadS} s; CPU in server seconds per accepted request`,
);

const paths: Record<string, unknown>[] = [];
const headline: Record<string, number | string> = { depth };
/** Screening and confirmation runs by transport and return path, for the comparison. */
const runsBy = new Map<string, RunResult[]>();
const bestBy = new Map<string, RunResult | null>();
for (const transport of transports)
  for (const profile of profiles)
    for (const returnPath of returnPaths) {
      const broker = transport === "nats" ? await startBroker() : null;
      if (broker) progress(`nats-server ready at ${broker.url}`);
      progress(
        `starting ssgkr serve ${transport === "nats" ? "--nats" : "--listen"} --profile ${profile} --return-path ${returnPath} (depth ${depth}, ${workers} workers)`,
      );
      const server = await startServer(returnPath, transport, broker?.url, profile);
      const tag = profile === "v2" ? `${transport}-v2` : transport;
      if (broker) server.broker = broker.child;
      const stopChild = () => server.child.kill("SIGKILL");
      process.on("exit", stopChild);
      for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => process.exit(130));
      progress(`server ready at ${server.address} (prepare ${String(server.ready["prepare_ms"])} ms)`);
      const screening: RunResult[] = [];
      let failsInARow = 0;
      // the listed rates, then ×1.5 steps while every rate passes (up to --max-rate)
      const schedule = [...rates];
      for (let k = 0; k < schedule.length; k++) {
        const rate = schedule[k]!;
        progress(`${tag} ${returnPath}: screening ${rate}/s`);
        const r = await loadRun(server, `${tag}-${returnPath}-screen`, rate, screenS);
        screening.push(r);
        if (r.pass) failsInARow = 0;
        else failsInARow++;
        if ((!r.pass && screening.some((x) => x.pass)) || failsInARow >= 2) break;
        if (k === schedule.length - 1 && r.pass && rate * 1.5 <= maxRate)
          schedule.push(Math.round(rate * 1.5 * 100) / 100);
      }
      const passing = screening
        .filter((r) => r.pass)
        .map((r) => r.rate)
        .sort((a, b) => b - a);
      const confirms: RunResult[] = [];
      let best: RunResult | null = null;
      for (const rate of passing.slice(0, 2)) {
        progress(`${tag} ${returnPath}: confirming ${rate}/s for ${confirmS} s`);
        const r = await loadRun(server, `${tag}-${returnPath}-confirm`, rate, confirmS);
        confirms.push(r);
        if (r.pass) {
          best = r;
          break;
        }
      }
      const capacity = Math.max(...[...screening, ...confirms].map((r) => r.summary.throughput.accepted_per_s ?? 0));
      // twice the confirmed best rate; without one, twice the throughput a confirmation sustained
      const sustained = Math.max(0, ...confirms.map((r) => r.summary.throughput.accepted_per_s ?? 0));
      const overloadBase = best ? best.rate : sustained > 0 ? sustained : capacity;
      const overloadRate = Math.round(2 * overloadBase * 1000) / 1000;
      let overload: RunResult | null = null;
      if (overloadRate > 0 && overloadS > 0) {
        progress(`${tag} ${returnPath}: overload ${overloadRate}/s for ${overloadS} s`);
        overload = await loadRun(server, `${tag}-${returnPath}-overload`, overloadRate, overloadS, [
          "--drain-ms",
          String(Math.round(4 * overloadS * 1000)),
        ]);
      }
      server.child.kill("SIGTERM");
      const stopped = await server.stopped;
      broker?.child.kill("SIGTERM");
      runsBy.set(`${tag}/${returnPath}`, [...screening, ...confirms]);
      bestBy.set(`${tag}/${returnPath}`, best);
      const key = (transport === "tcp" ? "" : "nats_") + (profile === "v2" ? "v2_" : "") + returnPath;
      const ov = overload?.summary;
      const overloadChecks = ov
        ? {
            every_offer_one_outcome: ov.accounting_balanced,
            duplicates: ov.counts.duplicate_responses,
            unknown: ov.counts.unknown_responses,
            unresolved_after_drain: ov.counts.unresolved_at_drain,
            pending_slope_jobs_per_s: pendingSlope(ov),
            max_pending: Math.max(...ov.pending_per_second.map((p) => p.pending)),
          }
        : null;
      if (overloadChecks)
        console.log(
          `${tag} ${returnPath} overload: one outcome each ${overloadChecks.every_offer_one_outcome}, duplicates ${overloadChecks.duplicates}, unresolved ${overloadChecks.unresolved_after_drain}, pending slope ${fmt(overloadChecks.pending_slope_jobs_per_s ?? NaN, 2)} jobs/s, max pending ${overloadChecks.max_pending}`,
        );
      console.log(
        `${tag} ${returnPath}: best rate ${best ? `${best.rate}/s (p99 ${fmt(best.summary.latency_ms.p99_ms ?? NaN)} ms, ${fmt(perAccepted(best) ?? NaN, 2)} server CPU s per accepted request)` : `none met ≤ ${withinMs} ms (highest accepted throughput ${fmt(capacity, 2)}/s)`}`,
      );
      paths.push({
        transport,
        profile,
        return_path: returnPath,
        server_ready: server.ready,
        server_stopped: stopped,
        screening: screening.map(brief),
        confirmations: confirms.map(brief),
        best_rate: best?.rate ?? null,
        best: best ? brief(best) : null,
        capacity_accepted_per_s: capacity,
        overload: overload
          ? { ...brief(overload), pending_per_second: overload.summary.pending_per_second, checks: overloadChecks }
          : null,
      });
      headline[`best_rate_${key}`] = best?.rate ?? "none";
      headline[`p99_ms_at_best_${key}`] = best?.summary.latency_ms.p99_ms ?? "none";
      headline[`server_cpu_s_per_accepted_${key}`] =
        Math.round((perAccepted(best ?? screening[0]!) ?? NaN) * 1000) / 1000;
      headline[`capacity_accepted_per_s_${key}`] = Math.round(capacity * 1000) / 1000;
      headline[`overload_balanced_${key}`] = overloadChecks
        ? String(
            overloadChecks.every_offer_one_outcome &&
              overloadChecks.duplicates === 0 &&
              overloadChecks.unresolved_after_drain === 0,
          )
        : "skipped";
    }

/** NATS beside TCP at each rate both ran (screening and confirmation, the longer run per rate). */
const comparison: Record<string, unknown>[] = [];
if (transports.includes("nats")) {
  for (const returnPath of returnPaths) {
    const longest = (runs: RunResult[]) => {
      const m = new Map<number, RunResult>();
      for (const r of runs) if (!m.has(r.rate) || m.get(r.rate)!.durationS < r.durationS) m.set(r.rate, r);
      return m;
    };
    const tcp = longest(runsBy.get(`tcp/${returnPath}`) ?? []);
    const nats = longest(runsBy.get(`nats/${returnPath}`) ?? []);
    const rows = [...tcp.keys()]
      .filter((rate) => nats.has(rate))
      .sort((a, b) => a - b)
      .map((rate) => {
        const t = tcp.get(rate)!;
        const n = nats.get(rate)!;
        const ct = perAccepted(t);
        const cn = perAccepted(n);
        const row = {
          rate,
          tcp_pass: t.pass,
          nats_pass: n.pass,
          tcp_server_cpu_s_per_accepted: ct,
          nats_server_cpu_s_per_accepted: cn,
          cpu_ratio_nats_over_tcp: ct && cn ? cn / ct : null,
          broker_cpu_s_per_accepted: perAccepted(n, n.brokerCpuS ?? NaN),
          tcp_p50_ms: t.summary.latency_ms.p50_ms,
          nats_p50_ms: n.summary.latency_ms.p50_ms,
          tcp_p99_ms: t.summary.latency_ms.p99_ms,
          nats_p99_ms: n.summary.latency_ms.p99_ms,
          p99_diff_ms:
            t.summary.latency_ms.p99_ms !== null && n.summary.latency_ms.p99_ms !== null
              ? n.summary.latency_ms.p99_ms - t.summary.latency_ms.p99_ms
              : null,
        };
        console.log(
          `compare ${returnPath} rate ${String(rate).padStart(5)}/s  cpu/acc tcp ${fmt(ct ?? NaN, 3)} nats ${fmt(cn ?? NaN, 3)} (×${fmt(row.cpu_ratio_nats_over_tcp ?? NaN, 3)})  broker ${fmt(row.broker_cpu_s_per_accepted ?? NaN, 4)} s/acc  ` +
            `p50 ${fmt(row.tcp_p50_ms ?? NaN)} / ${fmt(row.nats_p50_ms ?? NaN)}  p99 ${fmt(row.tcp_p99_ms ?? NaN)} / ${fmt(row.nats_p99_ms ?? NaN)} ms (${row.p99_diff_ms !== null && row.p99_diff_ms >= 0 ? "+" : ""}${fmt(row.p99_diff_ms ?? NaN)})  pass ${t.pass ? "y" : "n"}/${n.pass ? "y" : "n"}`,
        );
        return row;
      });
    comparison.push({ return_path: returnPath, rows });
    // headline at the highest rate both passed (else the highest both ran)
    const both = rows.filter((r) => r.tcp_pass && r.nats_pass);
    const at = both.length > 0 ? both[both.length - 1]! : rows[rows.length - 1];
    if (at) {
      headline[`compare_rate_${returnPath}`] = at.rate;
      headline[`cpu_ratio_nats_over_tcp_${returnPath}`] = Math.round((at.cpu_ratio_nats_over_tcp ?? NaN) * 1000) / 1000;
      headline[`p99_diff_ms_nats_minus_tcp_${returnPath}`] = Math.round((at.p99_diff_ms ?? NaN) * 10) / 10;
      headline[`broker_cpu_s_per_accepted_${returnPath}`] =
        Math.round((at.broker_cpu_s_per_accepted ?? NaN) * 100000) / 100000;
    }
  }
}

/** v2 beside compat-v1 over TCP at each rate both ran (the longer run per rate). */
if (profiles.includes("v2")) {
  for (const returnPath of returnPaths) {
    const longest = (runs: RunResult[]) => {
      const m = new Map<number, RunResult>();
      for (const r of runs) if (!m.has(r.rate) || m.get(r.rate)!.durationS < r.durationS) m.set(r.rate, r);
      return m;
    };
    const v1 = longest(runsBy.get(`tcp/${returnPath}`) ?? []);
    const v2 = longest(runsBy.get(`tcp-v2/${returnPath}`) ?? []);
    const rows = [...v1.keys()]
      .filter((rate) => v2.has(rate))
      .sort((a, b) => a - b)
      .map((rate) => {
        const a = v1.get(rate)!;
        const b = v2.get(rate)!;
        const ca = perAccepted(a);
        const cb = perAccepted(b);
        const row = {
          rate,
          v1_pass: a.pass,
          v2_pass: b.pass,
          v1_server_cpu_s_per_accepted: ca,
          v2_server_cpu_s_per_accepted: cb,
          cpu_ratio_v2_over_v1: ca && cb ? cb / ca : null,
          v1_p50_ms: a.summary.latency_ms.p50_ms,
          v2_p50_ms: b.summary.latency_ms.p50_ms,
          v1_p99_ms: a.summary.latency_ms.p99_ms,
          v2_p99_ms: b.summary.latency_ms.p99_ms,
          v2_mean_batch: b.summary.server?.mean_batch_size ?? null,
        };
        console.log(
          `compare-v2 ${returnPath} rate ${String(rate).padStart(5)}/s  cpu/acc v1 ${fmt(ca ?? NaN, 4)} v2 ${fmt(cb ?? NaN, 4)} (×${fmt(row.cpu_ratio_v2_over_v1 ?? NaN, 3)})  ` +
            `p50 ${fmt(row.v1_p50_ms ?? NaN)} / ${fmt(row.v2_p50_ms ?? NaN)}  p99 ${fmt(row.v1_p99_ms ?? NaN)} / ${fmt(row.v2_p99_ms ?? NaN)} ms  pass ${a.pass ? "y" : "n"}/${b.pass ? "y" : "n"}`,
        );
        return row;
      });
    comparison.push({ profiles: ["compat-v1", "v2"], return_path: returnPath, rows });
    const both = rows.filter((r) => r.v1_pass && r.v2_pass);
    const at = both.length > 0 ? both[both.length - 1]! : rows[rows.length - 1];
    if (at) {
      headline[`v2_compare_rate_${returnPath}`] = at.rate;
      headline[`cpu_ratio_v2_over_v1_${returnPath}`] = Math.round((at.cpu_ratio_v2_over_v1 ?? NaN) * 1000) / 1000;
      headline[`v1_p50_ms_${returnPath}`] = at.v1_p50_ms ?? "none";
      headline[`v2_p50_ms_${returnPath}`] = at.v2_p50_ms ?? "none";
      headline[`v1_p99_ms_${returnPath}`] = at.v1_p99_ms ?? "none";
      headline[`v2_p99_ms_${returnPath}`] = at.v2_p99_ms ?? "none";
    }
  }
}

const path = writeResults(
  transports.includes("nats") ? "serving-nats" : profiles.includes("v2") ? "serving-v2" : "serving",
  {
    benchmark: "serving",
    conditions: cond,
    settings: {
      transports,
      profiles,
      v2BatchMax,
      v2MaxWaitUs,
      depth,
      rates,
      screenS,
      confirmS,
      overloadS,
      returnPaths,
      workers,
      verifyWorkers,
      withinMs,
      warmupS,
      minJobs,
      mixture,
      colocated: true,
      clockTicks,
    },
    units:
      "latency ms from the scheduled time; rates offers or accepted requests per second; server CPU seconds (utime + stime, all threads) per accepted request",
    paths,
    ...(comparison.length > 0 ? { comparison } : {}),
  },
);
progress(`wrote ${path} (load outputs in ${work})`);
printHeadline(headline);
