/**
 * Registry mirrors and the registry's proof jobs (docs/scale-out.md "Registry mirrors", "Registry
 * proof jobs"), on 127.0.0.1: a primary `ssgkr registry http` of `records` npm records at `depth`
 * (default 100,000 at depth 48) with `epochs` epochs of `epoch-writes` writes after the import.
 *
 *   npm run bench -- mirror [--records 100000] [--depth 48] [--epochs 20] [--epoch-writes 512]
 *     [--duration 60] [--reads-duration 30]
 *
 * Phases, in order:
 * - the import's blocks proved offline (`registry prove-blocks --workers 2`), the primary started
 *   (2 proving threads, signing checkpoints), the epochs written (each PUT answered once its
 *   epoch committed), and their blocks proved by the primary → `server_blocks_updates_per_s` (the
 *   epochs' updates over the time from the first write until every block is kept);
 * - catch-up: a new mirror in this process (`Mirror.open`, `sync` until the primary's head): every
 *   checkpoint and block proof verified, every update applied → `mirror_catchup_updates_per_s`
 *   (wall) and `mirror_catchup_cpu_updates_per_s` (this process's CPU: one core);
 * - lag: the caught-up copy served by `ssgkr registry mirror --listen --interval 1` while writes go
 *   to the primary at 80 % of `server_blocks_updates_per_s` for `duration` s; the mirror's
 *   `GET /v1/status` `mirror.lag_s` sampled every second → `mirror_lag_p99_s`;
 * - reads on the broker (skipped, headline null, without nats-server): a nats-server started on a
 *   free port, the primary restarted with `--nats` (block prover off), one `registry worker`
 *   (its copy a copy of the mirror's) then two, uncached v3 reads of distinct names from 4
 *   connections for `reads-duration` s each → `nats_reads_1w_per_s`, `nats_reads_2w_per_s`,
 *   `nats_reads_scaling_2w`, and the workers' process CPU in the 2-worker phase
 *   (`workers_cores_2w`, from /proc), so the ratio can be read for machines with more cores.
 * Last line: the headline JSON.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import autocannon from "autocannon";
import { installKernelBackend } from "../src/kernels/backend.js";
import { npmReposSubsetPath } from "../src/registry/import/dataset.js";
import { Mirror } from "../src/mirror/mirror.js";
import { freshDir, removeDir, ROOT, spawnServer, TOKEN } from "../test/web/support.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { writeLoad } from "./lib/load.js";
import { int as intRule, parseOptions } from "./lib/options.js";

installKernelBackend();

const args = parseOptions(
  {
    depth: intRule(1, 48),
    records: intRule(10, 100_000),
    epochs: intRule(1, 1000),
    "epoch-writes": intRule(1, 4096),
    duration: intRule(1, 600),
    "reads-duration": intRule(1, 600),
  },
  { smoke: { depth: "16", records: "200", epochs: "2", "epoch-writes": "4", duration: "3", "reads-duration": "3" } },
);
const depth = Number(args.get("depth") ?? 48);
const records = Number(args.get("records") ?? 100_000);
const epochs = Number(args.get("epochs") ?? 20);
const epochWrites = Number(args.get("epoch-writes") ?? 512);
const duration = Number(args.get("duration") ?? 60);
const readsDuration = Number(args.get("reads-duration") ?? 30);

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `mirror: primary of ${records} npm records at depth ${depth} and ${epochs} epochs of ${epochWrites} writes; lag ${duration} s; reads ${readsDuration} s per phase`,
);

const BIN = join(ROOT, "bin", "ssgkr.js");
const dir = freshDir("ssgkr-bench-mirror-");
const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n").filter(Boolean);
const names = lines.slice(0, records).map((l) => (JSON.parse(l) as { name: string }).name);
writeFileSync(join(dir, "token.txt"), TOKEN + "\n");
writeFileSync(join(dir, "records.ndjson"), lines.slice(0, records).join("\n") + "\n");
const children: ChildProcess[] = [];

const ssgkr = (...a: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...a], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ssgkr ${a.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r;
};

/** A child `ssgkr` process that prints `ready` on stdout when ready; resolves with it and its output. */
async function startChild(a: string[], ready: RegExp, what: string, timeoutMs = 600_000) {
  const proc = spawn(process.execPath, [BIN, ...a], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(proc);
  let out = "";
  let err = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const m = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: not ready within ${timeoutMs} ms: ${err.slice(-500)}`)),
      timeoutMs,
    );
    const poll = setInterval(() => {
      const r = ready.exec(out);
      if (r) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(r);
      }
    }, 50);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`${what} exited ${code}: ${err.slice(-500)}`));
    });
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
  };
  return { proc, match: m, stop, stderr: () => err };
}

/** The ticks of a process's CPU (user + system) from /proc, or undefined off Linux. */
function cpuTicks(pid: number): number | undefined {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const status = async (base: string) => (await (await fetch(`${base}/v1/status`)).json()) as Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let written = 0;
const put = async (base: string) => {
  const i = written++;
  const r = await fetch(`${base}/v1/records/bench-${i}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ value: `https://example.com/bench/${i}` }),
  });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`PUT answered ${r.status}`);
};

/** Waits until the primary keeps the block of every batch up to its head. */
async function blocksDone(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = (await status(base)).blocks;
    if (b.pending_batches === 0 && b.proving_parts === 0) return;
    if (Date.now() > deadline) throw new Error(`blocks not proved within ${timeoutMs} ms: ${JSON.stringify(b)}`);
    await sleep(200);
  }
}

const results: Record<string, unknown> = {
  conditions: cond,
  depth,
  records,
  epochs,
  epochWrites,
  duration,
  readsDuration,
};
const headline: Record<string, number | string | null> = { depth, records, epochs, epoch_writes: epochWrites };
try {
  progress(`importing ${records} records at depth ${depth}, proving their blocks on 2 workers`);
  ssgkr(
    "registry",
    "import",
    "--db",
    "primary",
    "--file",
    "records.ndjson",
    "--depth",
    String(depth),
    "--on-error",
    "skip",
    "--no-progress",
  );
  ssgkr("registry", "prove-blocks", "--db", "primary", "--workers", "2");
  const key = ssgkr("registry", "keygen", "--out", "registry.key", "--origin", "example.com/bench").stdout.trim();
  const serveArgs = [
    "--db",
    "primary",
    "--listen",
    "127.0.0.1:0",
    "--rate-limit",
    "0",
    "--token-file",
    "token.txt",
    "--signing-key",
    "registry.key",
  ];
  let primary = await spawnServer(
    [...serveArgs, "--workers", "2", "--epoch-ms", "1000", "--epoch-max", String(epochWrites)],
    dir,
    600_000,
  );
  // the epochs, then their blocks
  progress(`${epochs} epochs of ${epochWrites} writes`);
  const t0 = performance.now();
  for (let e = 0; e < epochs; e++) await Promise.all(Array.from({ length: epochWrites }, () => put(primary.base)));
  await blocksDone(primary.base, 1_800_000);
  const serverRate = (epochs * epochWrites) / ((performance.now() - t0) / 1000);
  console.log(
    `server blocks   ${fmt(serverRate, 0).padStart(8)} updates/s (the epochs written and proved, 2 threads, one kept for reads)`,
  );
  headline["server_blocks_updates_per_s"] = Math.round(serverRate);

  // catch-up of a new mirror, in this process
  progress("catch-up of a new mirror");
  {
    const cpu0 = process.cpuUsage();
    const c0 = performance.now();
    const m = await Mirror.open({ from: primary.base, key, db: join(dir, "mirror"), timeoutMs: 120_000 });
    let updates = 0;
    try {
      for (;;) {
        const r = await m.sync();
        updates += r.updates;
        if (r.size >= r.target) break;
      }
    } finally {
      m.close();
    }
    const wall = (performance.now() - c0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    console.log(
      `mirror catch-up ${fmt(updates / wall, 0).padStart(8)} updates/s wall, ${fmt(updates / cpuS, 0)} per CPU second (${updates} updates in ${fmt(wall, 1)} s, ${fmt(cpuS, 1)} CPU s)`,
    );
    results["catchup"] = { updates, wall, cpuS };
    headline["mirror_catchup_updates_per_s"] = Math.round(updates / wall);
    headline["mirror_catchup_cpu_updates_per_s"] = Math.round(updates / cpuS);
  }

  // lag of a following mirror under writes at 80 % of the server's block proving rate
  {
    const target = Math.max(1, Math.round(0.8 * serverRate));
    progress(`mirror lag: writes at ${target}/s for ${duration} s`);
    const mirror = await startChild(
      [
        "registry",
        "mirror",
        "--from",
        primary.base,
        "--key",
        key,
        "--db",
        "mirror",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "1",
      ],
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
      "mirror",
    );
    const mbase = mirror.match[1]!;
    try {
      const lags: number[] = [];
      const sampler = setInterval(() => {
        void status(mbase).then(
          (s) => lags.push(Number(s.mirror?.lag_s ?? 0)),
          () => undefined,
        );
      }, 1000);
      const { result: r } = await writeLoad({
        base: primary.base,
        token: TOKEN,
        connections: Math.max(8, Math.min(2048, target * 2)),
        duration,
        overallRate: target,
        prefix: "load",
      });
      clearInterval(sampler);
      const sorted = [...lags].sort((a, b) => a - b);
      const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
      console.log(
        `mirror lag      ${fmt(p99, 1).padStart(8)} s p99 at ${fmt(r["2xx"] / r.duration, 0)} writes/s (samples ${lags.map((x) => x.toFixed(0)).join(" ")})`,
      );
      results["lag"] = { target, writesPerS: r["2xx"] / r.duration, lags, p99 };
      headline["mirror_lag_p99_s"] = p99;
    } finally {
      await mirror.stop();
    }
  }
  await primary.stop();

  // reads proved by registry workers on the broker: one worker, then two
  const haveNats = spawnSync("nats-server", ["--version"], { stdio: "ignore" }).status === 0;
  if (!haveNats) {
    progress("nats-server is not installed: the reads on the broker are skipped");
    headline["nats_reads_1w_per_s"] = null;
    headline["nats_reads_2w_per_s"] = null;
    headline["nats_reads_scaling_2w"] = null;
    headline["workers_cores_2w"] = null;
  } else {
    const port = await freePort();
    const broker = spawn("nats-server", ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", join(dir, "nats")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(broker);
    let blog = "";
    broker.stderr!.on("data", (d: Buffer) => (blog += d.toString()));
    for (let i = 0; !/Server is ready/.test(blog); i++) {
      if (i > 300) throw new Error(`nats-server not ready: ${blog.slice(-500)}`);
      await sleep(50);
    }
    const url = `nats://127.0.0.1:${port}`;
    ssgkr("nats", "setup", "--nats", url);
    primary = await spawnServer([...serveArgs, "--no-prove-blocks", "--nats", url], dir, 600_000);
    let next = 0;
    const reads = async () => {
      const r = await autocannon({
        url: primary.base,
        connections: 4,
        duration: readsDuration,
        timeout: 120,
        requests: [
          {
            method: "GET",
            setupRequest: (req) => ({
              ...req,
              path: `/v1/records/${encodeURIComponent(names[next++ % names.length]!)}/proof?profile=v3`,
            }),
          },
        ],
      });
      if (r.errors > 0 || r.non2xx > 0) progress(`reads: ${r.errors} errors, ${r.non2xx} non-2xx`);
      return r["2xx"] / r.duration;
    };
    const workers: Awaited<ReturnType<typeof startChild>>[] = [];
    const startWorker = async (id: string) => {
      cpSync(join(dir, "mirror"), join(dir, `copy-${id}`), { recursive: true });
      workers.push(
        await startChild(
          [
            "registry",
            "worker",
            "--nats",
            url,
            "--from",
            primary.base,
            "--key",
            key,
            "--db",
            `copy-${id}`,
            "--host-id",
            id,
          ],
          /REGISTRY_WORKER_READY/,
          `worker ${id}`,
        ),
      );
    };
    try {
      await startWorker("w1");
      progress(`uncached v3 reads for ${readsDuration} s, 1 worker`);
      const one = await reads();
      await startWorker("w2");
      progress(`uncached v3 reads for ${readsDuration} s, 2 workers`);
      const ticks0 = workers.map((w) => cpuTicks(w.proc.pid!) ?? 0);
      const w0 = performance.now();
      const two = await reads();
      const cores =
        workers.reduce((a, w, i) => a + ((cpuTicks(w.proc.pid!) ?? 0) - ticks0[i]!), 0) /
        100 /
        ((performance.now() - w0) / 1000);
      console.log(
        `reads on the broker ${fmt(one, 1)} /s with 1 worker, ${fmt(two, 1)} /s with 2 (${fmt(two / one, 2)}×; the workers used ${fmt(cores, 2)} cores)`,
      );
      results["reads"] = { one, two, cores };
      headline["nats_reads_1w_per_s"] = Number(one.toFixed(2));
      headline["nats_reads_2w_per_s"] = Number(two.toFixed(2));
      headline["nats_reads_scaling_2w"] = Number((two / one).toFixed(2));
      headline["workers_cores_2w"] = Number(cores.toFixed(2));
    } finally {
      for (const w of workers) await w.stop();
      await primary.stop();
    }
  }
  const path = writeResults("mirror", results);
  progress(`results in ${path}`);
  printHeadline(headline);
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  removeDir(dir);
}
