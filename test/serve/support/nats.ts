/**
 * Test brokers and processes for the NATS transport, all on 127.0.0.1: `nats-server -js` on
 * free ports with temporary store directories (single node or a three-node cluster), `ssgkr serve
 * --nats` workers and `ssgkr load --nats` frontends as child processes. Everything started is
 * stopped and every directory removed by `cleanup()` (call it from `after`).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "nats";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const bin = join(root, "bin", "ssgkr.js");
export const faultWorker = join(dirname(fileURLToPath(import.meta.url)), "nats-fault-worker.js");

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Whether nats-server is installed (the tests need it; `.ci/run` installs it). */
export function haveNatsServer(): boolean {
  return spawnSync("nats-server", ["--version"], { stdio: "ignore" }).status === 0;
}

export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Broker {
  readonly url: string;
  readonly child: ChildProcess;
  log(): string;
}

function waitFor(
  child: ChildProcess,
  text: () => string,
  re: RegExp,
  what: string,
  ms: number,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${what}: no ${re} within ${ms} ms: ${text().slice(-2000)}`)), ms);
    const poll = setInterval(() => {
      const m = re.exec(text());
      if (m) done(null, m);
    }, 20);
    const onExit = (code: number | null) => done(new Error(`${what} exited with ${code}: ${text().slice(-2000)}`));
    child.once("exit", onExit);
    function done(err: Error | null, m?: RegExpExecArray) {
      clearTimeout(timer);
      clearInterval(poll);
      child.off("exit", onExit);
      if (err) reject(err);
      else resolve(m!);
    }
  });
}

/** Starts one nats-server with JetStream on a free port (optionally a cluster member). */
export async function startBroker(
  opts: { port?: number; cluster?: { name: string; port: number; routes: number[] }; serverName?: string } = {},
): Promise<Broker> {
  const port = opts.port ?? (await freePort());
  const store = tempDir("ssgkr-nats-store-");
  const args = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", store];
  if (opts.serverName) args.push("--name", opts.serverName);
  if (opts.cluster) {
    args.push(
      "--cluster_name",
      opts.cluster.name,
      "--cluster",
      `nats://127.0.0.1:${opts.cluster.port}`,
      "--routes",
      opts.cluster.routes.map((p) => `nats://127.0.0.1:${p}`).join(","),
    );
  }
  const child = spawn("nats-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let log = "";
  child.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  await waitFor(child, () => log, /Server is ready/, "nats-server", 15_000);
  return { url: `nats://127.0.0.1:${port}`, child, log: () => log };
}

/** Three clustered nats-servers (JetStream); resolves once a JetStream meta leader is elected. */
export async function startCluster(): Promise<Broker[]> {
  const ports = [await freePort(), await freePort(), await freePort()];
  const cports = [await freePort(), await freePort(), await freePort()];
  const brokers = await Promise.all(
    [0, 1, 2].map((i) =>
      startBroker({
        port: ports[i]!,
        serverName: `n${i}`,
        cluster: { name: "ssgkr-test", port: cports[i]!, routes: cports.filter((_, j) => j !== i) },
      }),
    ),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await runCli([
      "nats",
      "setup",
      "--nats",
      brokers.map((b) => b.url).join(","),
      "--replicas",
      "3",
      "--ack-wait-ms",
      "2000",
    ]);
    if (r.code === 0) break;
    if (Date.now() > deadline) throw new Error(`cluster never accepted the R3 set-up: ${r.stderr}`);
    await new Promise((res) => setTimeout(res, 500));
  }
  return brokers;
}

/** Runs an ssgkr command to completion. */
export function runCli(
  args: readonly string[],
  onStderr?: (all: string, child: ChildProcess) => void,
): Promise<{ code: number | null; stdout: string; stderr: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
    onStderr?.(stderr, child);
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr, child })));
}

export interface Worker {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The SERVER_STOPPED line, once the worker stopped (null if it died without one). */
  readonly stopped: Promise<Record<string, unknown> | null>;
}

/** Worker options of the tests: depth 4, one pool thread, one control sample. */
export const WORKER_ARGS = [
  "--depth",
  "4",
  "--workers",
  "1",
  "--control-samples",
  "1",
  "--batch-max",
  "8",
  "--run-ms",
  "120000",
  "--pull-expires-ms",
  "500",
];

/**
 * Starts a worker and resolves once it prints SERVER_READY: `ssgkr serve --nats` or, with
 * `fault`, the fault-injecting worker script.
 */
export async function startWorker(
  servers: string,
  fault?: string,
  hostId = "w",
  extra: readonly string[] = [],
): Promise<Worker> {
  const env = { ...process.env, ...(fault ? { SSGKR_TEST_FAULT: fault } : {}) };
  const args = fault
    ? [faultWorker, servers, hostId]
    : [bin, "serve", "--nats", servers, "--host-id", hostId, ...WORKER_ARGS, ...extra];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const stopped = new Promise<Record<string, unknown> | null>((resolve) =>
    child.on("exit", () => {
      const line = out.split("\n").find((l) => l.includes('"SERVER_STOPPED"'));
      resolve(line ? (JSON.parse(line) as Record<string, unknown>) : null);
    }),
  );
  await waitFor(child, () => out, /"status":"SERVER_READY"/, `worker ${hostId}`, 60_000);
  return { child, stdout: () => out, stderr: () => err, stopped };
}

/** Frontend options of the tests. */
export function loadArgs(servers: string, out: string, extra: readonly string[]): string[] {
  return [
    "load",
    "--nats",
    servers,
    "--depth",
    "4",
    "--corpus",
    "3",
    "--control-samples",
    "1",
    "--verify-workers",
    "1",
    "--out",
    out,
    ...extra,
  ];
}

export interface RecordLine {
  readonly job_id: number;
  readonly outcome: string;
  readonly server: { readonly host_id: string } | null;
}

export function readRecords(out: string): RecordLine[] {
  return readFileSync(join(out, "records.ndjson"), "utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as RecordLine);
}

/** Messages stored on a results subject. */
export async function resultCount(servers: string, subject: string): Promise<number> {
  const nc = await connect({ servers: servers.split(",") });
  try {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info("SSGKR_RESULTS", { subjects_filter: subject });
    return (info.state.subjects as Record<string, number> | undefined)?.[subject] ?? 0;
  } finally {
    await nc.close();
  }
}

/** Kills every child still running and removes the temporary directories. */
export function cleanup(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** Stream and consumer state, for failure messages. */
export async function brokerReport(servers: string): Promise<string> {
  const nc = await connect({ servers: servers.split(","), timeout: 5000 });
  try {
    const jsm = await nc.jetstreamManager();
    const parts: string[] = [];
    for (const s of ["SSGKR_JOBS", "SSGKR_RESULTS"]) {
      const i = await jsm.streams.info(s);
      parts.push(`${s}: ${i.state.messages} messages, leader ${i.cluster?.leader ?? "-"}`);
    }
    for await (const c of jsm.consumers.list("SSGKR_JOBS"))
      parts.push(
        `${c.name}: pending ${c.num_pending}, ack pending ${c.num_ack_pending}, waiting ${c.num_waiting}, redelivered ${c.num_redelivered}, leader ${c.cluster?.leader ?? "-"}`,
      );
    for await (const c of jsm.consumers.list("SSGKR_RESULTS"))
      parts.push(
        `results consumer ${c.name}: pending ${c.num_pending}, delivered ${c.delivered.stream_seq}, leader ${c.cluster?.leader ?? "-"}`,
      );
    return parts.join("\n");
  } catch (err) {
    return `broker report failed: ${(err as Error).message}`;
  } finally {
    await nc.close();
  }
}
