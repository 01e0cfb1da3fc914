/**
 * The registry server under load (docs/http.md "How it runs"): open-loop readers on 127.0.0.1
 * against the real `ssgkr registry http` of a name-keyed registry of `records` npm records at
 * `depth` (default: 100,000 at depth 48, the defaults), each phase on a fresh copy of that
 * registry, and `registry prove-block` of blocks of 1,024, 2,048 and 4,096 updates.
 *
 *   npm run bench -- registry-load [--records 100000] [--depth 48] [--duration 60]
 *     [--blocks 1024,2048,4096] [--connections 16] [--writers 2048] [--pipelining 4] [--write-rate 5000] [--epoch-max N]
 *     [--phases import-blocks,cached,zk,server-blocks,writes,lag,prove-block]
 *
 * `--phases` runs only the phases named (default all); without `import-blocks` the copies keep
 * the import's block unproved, a backlog for the phases whose server proves blocks.
 *
 * Phases, in order (server started with `--rate-limit 0`, proving workers as named):
 * - cached reads: GET /v1/records/{name}/proof of one warmed name (compat-v1), `connections`
 *   connections for `duration` s (autocannon) → `cached_reads_per_s`;
 * - uncached v3-zk reads (`?zk=1`, distinct names, 4 connections) for `duration` s with 1 worker,
 *   then with 2 → `zk_reads_scaling_2w`, and the server's process CPU in the 2-worker phase
 *   (`cores_used`, from /proc);
 * - block proving: first `registry prove-blocks --workers 2` of the base registry's import (both
 *   workers on blocks; every later copy starts without a backlog) → `blocks_updates_per_s`; then a
 *   CLI import of 2,048 new records into the served registry (2 workers, one kept for reads),
 *   timed until its block is kept (`GET /v1/status`) → `blocks_updates_per_s_server`;
 * - the event-loop delay p99 of the serving thread while uncached v3-zk reads and that block's
 *   proving saturate the pool together, as `GET /v1/status` reports it (`event_loop_p99_ms`);
 * - writes: PUTs of new names, each answered after its epoch committed (not 202), on fresh copies
 *   with the block prover off, the server signing checkpoints (every answer carries its epoch's
 *   signed checkpoint): offered in an open loop at `--write-rate` per second (default 5,000;
 *   autocannon's overall rate over `writers` connections × `pipelining` slots, latencies corrected
 *   for coordinated omission) for `duration` s at `--epoch-ms 1000` → `writes_acked_per_s` (the
 *   answers over the time they span plus one epoch), `write_ack_p99_ms`, and again at 200 →
 *   `write_ack_p99_ms_epoch200`; then in a closed loop (every slot refilled once answered) at
 *   1000 → `writes_capacity_per_s`, with the CPU per acknowledged write of the serving thread, of
 *   the epoch writer (the server's busiest other thread) and of this process (the load
 *   generator), from /proc → `write_serving_cpu_us`, `write_writer_cpu_us`, `write_loadgen_cpu_us`;
 * - proving lag: writes at 80 % of the measured block proving rate (`--overall-rate`) for
 *   `duration` s with the block prover on, the lag (`GET /v1/status`, `lag_s`) sampled every
 *   second → `proving_lag_p99_s` and whether it grows (`proving_lag_growing`: the last third's
 *   mean above twice the first third's);
 * - `registry prove-block --profile v3` of the first 1,024 / 2,048 / 4,096 of the next npm records
 *   on fresh copies, default workers: wall time and peak RSS (`block1024_prove_ms`, …,
 *   `block4096_rss_mb`, `block4096_over_1024`).
 * Last line: the headline JSON.
 */
import { spawn } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import autocannon from "autocannon";
import { npmReposSubsetPath } from "../src/registry/import/dataset.js";
import { signingKeyText } from "../src/registry/checkpoint/signing-key.js";
import { freshDir, removeDir, spawnServer, TOKEN } from "../test/web/support.js";
import { ssgkrIn, SSGKR_BIN } from "./lib/cli.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { errorKindsText, statusesText, writeLoad } from "./lib/load.js";
import { choices, int as intRule, ints, parseOptions } from "./lib/options.js";

/** The bench's phases, in the order they run (`--phases` picks some; default all). */
const PHASES = ["import-blocks", "cached", "zk", "server-blocks", "writes", "lag", "prove-block"] as const;

const args = parseOptions(
  {
    depth: intRule(1, 48),
    records: intRule(10, 100_000),
    duration: intRule(1, 600),
    connections: intRule(1, 1000),
    writers: intRule(1, 20_000),
    pipelining: intRule(1, 1024),
    "write-rate": intRule(1, 100_000),
    "epoch-max": intRule(1, 65_536),
    blocks: ints(1, 4096),
    phases: choices(PHASES),
  },
  {
    smoke: {
      depth: "16",
      records: "200",
      duration: "2",
      connections: "2",
      writers: "8",
      "write-rate": "40",
      blocks: "4,8",
    },
  },
);
const depth = Number(args.get("depth") ?? 48);
const records = Number(args.get("records") ?? 100_000);
const duration = Number(args.get("duration") ?? 60);
const connections = Number(args.get("connections") ?? 16);
const writers = Number(args.get("writers") ?? 2048);
const pipelining = Number(args.get("pipelining") ?? 4);
const writeRate = Number(args.get("write-rate") ?? 5000);
/** The writes phase's `--epoch-max` (default: the server's own). */
const epochMax = args.get("epoch-max");
const blockSizes = (args.get("blocks") ?? "1024,2048,4096").split(",").map(Number);
const smoke = args.get("smoke") === "true";
const phases = new Set((args.get("phases") ?? PHASES.join(",")).split(","));
const importSize = smoke ? 40 : 2048;

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `registry under load: name-keyed registry of ${records} npm records at depth ${depth}; reads ${duration} s per phase; blocks ${blockSizes.join(", ")}`,
);

const BIN = SSGKR_BIN;
const dir = freshDir("ssgkr-bench-registry-load-");
const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n").filter(Boolean);
const names = lines.slice(0, records).map((l) => (JSON.parse(l) as { name: string }).name);
/**
 * Records beyond the registry's for the import and blocks phases: the dataset's next lines, then
 * (the dataset holds 100,000 names) new names of the same shape.
 */
const spareNeeded = Math.max(importSize, ...blockSizes);
const spare = lines.slice(records, records + spareNeeded);
for (let i = spare.length; i < spareNeeded; i++)
  spare.push(JSON.stringify({ name: `bench-spare-${i}`, value: `https://example.com/spare/${i}` }));
writeFileSync(join(dir, "token.txt"), TOKEN + "\n");
// a signing key, as a registry that publishes checkpoints runs: every write's answer carries its epoch's checkpoint
writeFileSync(join(dir, "signing.key"), signingKeyText("bench.example/registry", new Uint8Array(32).fill(7)), {
  mode: 0o600,
});
writeFileSync(join(dir, "records.ndjson"), lines.slice(0, records).join("\n") + "\n");

const ssgkr = ssgkrIn(dir);

progress(`importing ${records} records at depth ${depth}`);
ssgkr(
  "registry",
  "import",
  "--db",
  "base",
  "--file",
  "records.ndjson",
  "--depth",
  String(depth),
  "--on-error",
  "skip",
  "--no-progress",
);
// the import's block, proved once (every phase's copy starts with no backlog): the block proving rate with every worker on blocks
let drainRate = Number.NaN;
let drain = "";
if (phases.has("import-blocks")) {
  progress(`registry prove-blocks of the import (${records} updates) on 2 workers`);
  const drained = ssgkr("registry", "prove-blocks", "--db", "base", "--workers", "2");
  drain = drained.stdout.trim();
  const drainLine = /proved (\d+) blocks? \((\d+) updates\) on 2 workers in ([\d.]+) s/.exec(drained.stdout);
  drainRate = drainLine ? Number(drainLine[2]) / Number(drainLine[3]) : Number.NaN;
  console.log(
    `prove-blocks (import) ${fmt(drainRate, 0).padStart(8)} updates/s (${drainLine?.[1]} blocks, ${drainLine?.[2]} updates in ${drainLine?.[3]} s, 2 workers proving blocks)`,
  );
}
let copies = 0;
/** A fresh copy of the base registry (LMDB files copied while nothing has them open). */
const freshCopy = () => {
  const to = join(dir, `copy-${copies++}`);
  cpSync(join(dir, "base"), to, { recursive: true });
  return to;
};

/** The ticks of a process's CPU (user + system) from /proc, or undefined off Linux. */
function cpuTicks(pid: number, file = `/proc/${pid}/stat`): number | undefined {
  try {
    const f = readFileSync(file, "utf8").split(") ")[1]!.split(" ");
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** The CPU ticks (user + system) of each thread of a process, by thread id, from /proc (empty off Linux). */
function threadTicks(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const t = cpuTicks(Number(tid), `/proc/${pid}/task/${tid}/stat`);
      if (t !== undefined) out.set(Number(tid), t);
    }
  } catch {
    // not Linux, or the process is gone
  }
  return out;
}

/** The peak resident set of a process so far (MiB), from /proc. */
function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `ssgkr registry http` on a registry with `workers` proving workers; resolves when it listens. */
const serve = (db: string, workers: number, extra: string[] = []) =>
  spawnServer(
    [
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--rate-limit",
      "0",
      "--token-file",
      "token.txt",
      "--workers",
      String(workers),
      ...extra,
    ],
    dir,
  );

/** The server's `GET /v1/status`; an answer other than 200 (a busy server may refuse it) is an error, not a status. */
const status = async (base: string) => {
  const res = await fetch(`${base}/v1/status`);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET /v1/status answered ${res.status}: ${body.slice(0, 200)}`);
  return JSON.parse(body) as {
    blocks: { proved_through: number; head: number; pending_batches: number };
    process: { event_loop_delay_p99_ms: number; event_loop_delay_max_ms: number };
    pool: { done: { read: number; block: number } };
  };
};

let nextName = 0;
/** Uncached v3-zk reads of distinct names for `seconds` s on 4 connections. */
async function zkReads(base: string, seconds: number) {
  const r = await autocannon({
    url: base,
    connections: 4,
    duration: seconds,
    timeout: 60,
    requests: [
      {
        method: "GET",
        setupRequest: (req) => ({
          ...req,
          path: `/v1/records/${encodeURIComponent(names[nextName++ % names.length]!)}/proof?zk=1`,
        }),
      },
    ],
  });
  if (r.errors > 0) throw new Error(`zk reads: ${r.errors} errors`);
  return { rate: r["2xx"] / r.duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

const results: Record<string, unknown> = { conditions: cond, depth, records, duration, phases: [...phases], drain };
const headline: Record<string, number | string | null> = {
  depth,
  records,
  blocks_updates_per_s: Number.isFinite(drainRate) ? Math.round(drainRate) : null,
};
try {
  if (phases.has("cached")) {
    // cached reads
    {
      progress(`cached reads for ${duration} s`);
      const s = await serve(freshCopy(), 1, ["--no-prove-blocks"]);
      try {
        const warm = names[0]!;
        await (await fetch(`${s.base}/v1/records/${encodeURIComponent(warm)}/proof`)).arrayBuffer();
        const r = await autocannon({
          url: `${s.base}/v1/records/${encodeURIComponent(warm)}/proof`,
          connections,
          duration,
        });
        const rate = r["2xx"] / r.duration;
        console.log(
          `cached reads          ${fmt(rate, 0).padStart(8)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms`,
        );
        results["cached"] = { rate, p50: r.latency.p50, p99: r.latency.p99 };
        headline["cached_reads_per_s"] = Math.round(rate);
      } finally {
        await s.stop();
      }
    }
  }
  if (phases.has("zk")) {
    // uncached v3-zk reads, 1 worker then 2
    const zk: Record<number, { rate: number; cores: number | undefined }> = {};
    for (const w of [1, 2]) {
      progress(`uncached v3-zk reads, ${w} worker(s), ${duration} s`);
      const s = await serve(freshCopy(), w, ["--no-prove-blocks"]);
      try {
        const c0 = cpuTicks(s.proc.pid!);
        const t0 = performance.now();
        const r = await zkReads(s.base, duration);
        const c1 = cpuTicks(s.proc.pid!);
        const cores =
          c0 === undefined || c1 === undefined ? undefined : (c1 - c0) / 100 / ((performance.now() - t0) / 1000);
        console.log(
          `zk reads, ${w} worker   ${fmt(r.rate, 1).padStart(8)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  server CPU ${cores === undefined ? "n/a" : fmt(cores, 2)} cores`,
        );
        zk[w] = { rate: r.rate, cores };
        results[`zk_${w}w`] = { ...r, cores };
      } finally {
        await s.stop();
      }
    }
    headline["zk_reads_per_s_1w"] = Number(zk[1]!.rate.toFixed(2));
    headline["zk_reads_per_s_2w"] = Number(zk[2]!.rate.toFixed(2));
    headline["zk_reads_scaling_2w"] = Number((zk[2]!.rate / zk[1]!.rate).toFixed(2));
    headline["cores_used"] = zk[2]!.cores === undefined ? null : Number(zk[2]!.cores.toFixed(2));
  }
  if (phases.has("server-blocks")) {
    // block proving of an import into the served registry, with reads beside it for the event-loop delay
    {
      progress(`block proving: an import of ${importSize} records into the served registry, with uncached v3-zk reads`);
      const db = freshCopy();
      const s = await serve(db, 2);
      try {
        writeFileSync(join(dir, "more.ndjson"), spare.slice(0, importSize).join("\n") + "\n");
        const before = (await status(s.base)).blocks.head;
        ssgkr("registry", "import", "--db", db, "--file", "more.ndjson", "--no-progress");
        const t0 = performance.now();
        const reads = zkReads(s.base, Math.max(1, Math.min(duration, 30)));
        let st = await status(s.base);
        if (st.blocks.head <= before) throw new Error(`the import of ${importSize} records committed no batch`);
        // bounded: a block the server cannot prove within 20 minutes ends the bench
        while (st.blocks.proved_through <= before) {
          if (performance.now() - t0 > 1_200_000)
            throw new Error("the imported batch's block was not proved in 20 min");
          await new Promise((r) => setTimeout(r, 250));
          st = await status(s.base);
        }
        const blockS = (performance.now() - t0) / 1000;
        const r = await reads;
        const loop = (await status(s.base)).process.event_loop_delay_p99_ms;
        const rate = importSize / blockS;
        console.log(
          `block proving         ${fmt(rate, 0).padStart(8)} updates/s (${importSize} updates in ${fmt(blockS, 1)} s, 2 workers, zk reads beside it ${fmt(r.rate, 1)}/s)`,
        );
        console.log(
          `event-loop delay p99  ${fmt(loop, 1).padStart(8)} ms (serving thread, while reads and a block saturate the pool)`,
        );
        results["block_proving"] = { updates: importSize, seconds: blockS, rate, reads: r, eventLoopP99Ms: loop };
        headline["blocks_updates_per_s_server"] = Math.round(rate);
        headline["event_loop_p99_ms"] = loop;
      } finally {
        await s.stop();
      }
    }
  }
  // writes acknowledged after their epoch, at --epoch-ms 1000 and 200
  const putLoad = (
    base: string,
    seconds: number,
    conns: number,
    overallRate?: number,
    inFlight = 1,
    onAck?: () => void,
  ) =>
    writeLoad({
      base,
      token: TOKEN,
      connections: conns,
      duration: seconds,
      pipelining: inFlight,
      prefix: "load",
      ...(overallRate !== undefined ? { overallRate } : {}),
      ...(onAck !== undefined ? { onAck } : {}),
    });
  if (phases.has("writes")) {
    // Open loop at --write-rate (epoch 1000 ms, then 200 ms), then closed loop at epoch 1000 ms:
    // every slot (writers × pipelining) refilled as soon as it is answered, the capacity.
    const runs = [
      { epochMs: 1000, rate: writeRate as number | undefined },
      { epochMs: 200, rate: writeRate as number | undefined },
      { epochMs: 1000, rate: undefined },
    ];
    for (const { epochMs, rate: offered } of runs) {
      const how =
        offered !== undefined
          ? `offered at ${offered}/s (open loop, ${writers} connections × ${pipelining} slots)`
          : `from ${writers} connections × ${pipelining} in flight (closed loop: the capacity)`;
      progress(`writes ${how} for ${duration} s at --epoch-ms ${epochMs}`);
      const s = await serve(freshCopy(), 1, [
        "--signing-key",
        "signing.key",
        "--no-prove-blocks",
        "--epoch-ms",
        String(epochMs),
        ...(epochMax !== undefined ? ["--epoch-max", epochMax] : []),
      ]);
      try {
        // the serving thread's event-loop delay, sampled from its status while the writes run
        const loops: { p99: number; max: number }[] = [];
        const sampler = setInterval(() => {
          void status(s.base).then(
            (st) => loops.push({ p99: st.process.event_loop_delay_p99_ms, max: st.process.event_loop_delay_max_ms }),
            () => undefined,
          );
        }, 2000);
        // when each write was acknowledged: the sustained rate is the answers over the time they
        // span, plus one epoch (the first epoch's answers come one epoch after the load starts)
        let first = 0,
          last = 0,
          answers = 0;
        const onAck = () => {
          const now = performance.now();
          if (answers++ === 0) first = now;
          last = now;
        };
        const t0 = threadTicks(s.proc.pid!);
        const own0 = process.cpuUsage();
        const { result: r, errorKinds } = await putLoad(s.base, duration, writers, offered, pipelining, onAck);
        const own = process.cpuUsage(own0);
        const t1 = threadTicks(s.proc.pid!);
        clearInterval(sampler);
        // CPU µs per acknowledged write: the serving thread (the main thread), the busiest other
        // thread (the epoch writer), and this process (the load generator, autocannon)
        const tick = 1e6 / 100;
        const acked = Math.max(1, r["2xx"]);
        const deltas = [...t1].map(([tid, v]) => ({ tid, us: (v - (t0.get(tid) ?? 0)) * tick }));
        const serving = (deltas.find((d) => d.tid === s.proc.pid)?.us ?? Number.NaN) / acked;
        const writerUs = Math.max(0, ...deltas.filter((d) => d.tid !== s.proc.pid).map((d) => d.us)) / acked;
        const loadgen = (own.user + own.system) / acked;
        if (r.errors > 0 || r.non2xx > 0)
          progress(
            `writes: ${r.errors} errors${errorKinds.length > 0 ? ` (${errorKindsText(errorKinds)})` : ""}, ${r.non2xx} non-2xx${r.non2xx > 0 ? ` (${statusesText(r)})` : ""}`,
          );
        const rate = answers > 1 ? answers / ((last - first) / 1000 + epochMs / 1000) : r["2xx"] / r.duration;
        const loopP99 = Math.max(0, ...loops.map((l) => l.p99));
        const loopMax = Math.max(0, ...loops.map((l) => l.max));
        console.log(
          `writes, epoch ${String(epochMs).padStart(4)} ms ${offered !== undefined ? `offered ${offered}/s` : "closed loop"} ${fmt(rate, 0).padStart(8)} acked/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  (${r.errors} errors, ${r.non2xx} non-2xx); event loop p99 ${fmt(loopP99, 1)} ms, max ${fmt(loopMax, 1)} ms`,
        );
        console.log(
          `  CPU per acked write: serving thread ${fmt(serving, 0)} µs, epoch writer ${fmt(writerUs, 0)} µs, load generator ${fmt(loadgen, 0)} µs; the server alone, a core per thread: ${fmt(1e6 / Math.max(serving, writerUs), 0)} writes/s`,
        );
        const run = {
          offered: offered ?? null,
          rate,
          p50: r.latency.p50,
          p99: r.latency.p99,
          errors: r.errors,
          errorKinds: Object.fromEntries(errorKinds),
          non2xx: r.non2xx,
          eventLoop: loops,
          cpuUsPerWrite: { serving, writer: writerUs, loadGenerator: loadgen },
        };
        if (offered === undefined) {
          results["writes_capacity"] = run;
          headline["writes_capacity_per_s"] = Math.round(rate);
          headline["write_serving_cpu_us"] = Math.round(serving);
          headline["write_writer_cpu_us"] = Math.round(writerUs);
          headline["write_loadgen_cpu_us"] = Math.round(loadgen);
        } else if (epochMs === 1000) {
          results["writes_epoch1000"] = run;
          headline["write_offered_per_s"] = offered;
          headline["writes_acked_per_s"] = Math.round(rate);
          headline["write_ack_p99_ms"] = r.latency.p99;
          headline["write_event_loop_p99_ms"] = loopP99;
        } else {
          results["writes_epoch200"] = run;
          headline["write_ack_p99_ms_epoch200"] = r.latency.p99;
        }
      } finally {
        await s.stop();
      }
    }
  }
  if (phases.has("lag")) {
    // proving lag under writes at 80 % of the block proving rate
    {
      const target = Math.max(
        1,
        Math.round(
          0.8 * Number(headline["blocks_updates_per_s_server"] ?? (Number.isFinite(drainRate) ? drainRate : 1)),
        ),
      );
      progress(`proving lag: writes at ${target}/s (80 % of the block proving rate) for ${duration} s, 2 workers`);
      const s = await serve(freshCopy(), 2);
      try {
        const lags: number[] = [];
        const sampler = setInterval(() => {
          void status(s.base).then(
            (st) => lags.push((st.blocks as unknown as { lag_s: number }).lag_s),
            () => undefined,
          );
        }, 1000);
        const { result: r } = await putLoad(s.base, duration, Math.max(8, Math.min(writers, target * 2)), target);
        clearInterval(sampler);
        const sorted = [...lags].sort((a, b) => a - b);
        const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
        const third = Math.max(1, Math.floor(lags.length / 3));
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
        const growing = mean(lags.slice(-third)) > 2 * Math.max(1, mean(lags.slice(0, third)));
        console.log(
          `proving lag           ${fmt(p99, 1).padStart(8)} s p99 at ${fmt(r["2xx"] / r.duration, 0)} writes/s (${growing ? "growing" : "bounded"}; samples ${lags.map((x) => x.toFixed(0)).join(" ")})`,
        );
        results["proving_lag"] = { target, writesPerS: r["2xx"] / r.duration, lags, p99, growing };
        headline["proving_lag_p99_s"] = p99;
        headline["proving_lag_growing"] = growing ? 1 : 0;
      } finally {
        await s.stop();
      }
    }
  }
  if (phases.has("prove-block")) {
    // prove-block of 1,024 / 2,048 / 4,096 updates, default workers
    const blocks: Record<number, { ms: number; rssMb: number | undefined }> = {};
    for (const k of blockSizes) {
      progress(`registry prove-block --profile v3 of ${k} updates`);
      const db = freshCopy();
      const file = join(dir, `block-${k}.ndjson`);
      writeFileSync(
        file,
        spare
          .slice(0, k)
          .map((l) => {
            const r = JSON.parse(l) as { name: string; value: unknown };
            return JSON.stringify(
              typeof r.value === "string"
                ? { op: "insert", name: r.name, value: r.value }
                : { op: "insert", name: r.name, null: true },
            );
          })
          .join("\n") + "\n",
      );
      const t0 = performance.now();
      const proc = spawn(
        process.execPath,
        [
          BIN,
          "registry",
          "prove-block",
          "--db",
          db,
          "--updates",
          file,
          "--profile",
          "v3",
          "--out",
          join(dir, `out-${k}-${copies}`),
        ],
        { cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
      );
      let peak: number | undefined;
      const poll = setInterval(() => {
        const p = peakRss(proc.pid!);
        if (p !== undefined) peak = Math.max(peak ?? 0, p);
      }, 100);
      let err = "";
      proc.stderr!.on("data", (d) => (err += d));
      const code = await new Promise<number | null>((r) => proc.once("exit", r));
      clearInterval(poll);
      if (code !== 0) throw new Error(`prove-block of ${k} exited ${code}: ${err}`);
      const ms = performance.now() - t0;
      console.log(
        `prove-block ${String(k).padStart(5)}     ${fmt(ms / 1000, 1).padStart(8)} s wall, peak RSS ${peak === undefined ? "n/a" : `${fmt(peak, 0)} MiB`}`,
      );
      blocks[k] = { ms, rssMb: peak };
      headline[`block${k}_prove_ms`] = Math.round(ms);
    }
    results["blocks"] = blocks;
    const [small, large] = [blockSizes[0]!, blockSizes[blockSizes.length - 1]!];
    headline[`block${large}_rss_mb`] = blocks[large]!.rssMb === undefined ? null : Math.round(blocks[large]!.rssMb!);
    headline[`block${large}_over_${small}`] = Number((blocks[large]!.ms / blocks[small]!.ms).toFixed(2));
  }
  const path = writeResults("registry-load", results);
  progress(`results in ${path}`);
  printHeadline(headline);
} finally {
  removeDir(dir);
}
