/**
 * The registry HTTP API under load (autocannon on 127.0.0.1) next to the raw prove rate.
 *
 *   npm run bench -- http [--mapping name|slot] [--depth 48 (slot: 24)] [--records 400]
 *     [--duration 10] [--connections 8] [--uncached 40] [--writes 20]
 *
 * A registry of `records` names at `depth` (name-keyed record-leaf-v2 by default, or a slot
 * registry with `--mapping slot`) is served by the real `ssgkr registry http` process
 * (no rate limit); autocannon runs in this process. Measured, in order:
 * - raw prove rate: `proveNameRead` (membership, prove + self-check, as the server does) in this
 *   process on the same database, sequentially over `uncached` names, while the server is idle;
 * - cached proof reads: GET /v1/records/{name}/proof of one warmed name for `duration` s with
 *   `connections` connections;
 * - uncached proof reads: `uncached` GETs of distinct never-read names (2 connections);
 * - writes: `writes` PUTs of new names (2 connections), each answered once its epoch (the
 *   server's default `--epoch-ms 1000`) committed: with 2 connections, about 2 writes per epoch.
 * Latencies p50/p99 in ms, rates in requests/s; the HTTP overhead shows as uncached reads/s ÷ raw
 * proofs/s (1.0 = none).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { openRegistry } from "../src/registry/store/open-any.js";
import { proveNameRead } from "../src/counterparty/prove.js";
import { buildPage, freshDir, removeDir, ROOT, TOKEN } from "../test/web/support.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { choice, int as intRule, parseOptions } from "./lib/options.js";

const args = parseOptions(
  {
    depth: intRule(1, 48),
    records: intRule(1, 1_000_000),
    duration: intRule(1, 600),
    connections: intRule(1, 1000),
    uncached: intRule(1, 100_000),
    writes: intRule(1, 100_000),
    mapping: choice(["name", "slot"]),
  },
  {
    smoke: { depth: "16", records: "20", duration: "1", connections: "2", uncached: "3", writes: "2" },
  },
);
const int = (k: string, d: number, max: number) => {
  const v = Number(args.get(k) ?? d);
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new Error(`--${k} must be an integer in [1, ${max}], got ${args.get(k)}`);
  return v;
};
const mapping = args.get("mapping") ?? "name";
if (mapping !== "name" && mapping !== "slot") throw new Error(`--mapping must be name or slot, got ${mapping}`);
const depth = int("depth", mapping === "name" ? 48 : 24, 48);
const records = int("records", 400, 1_000_000);
const duration = int("duration", 10, 600);
const connections = int("connections", 8, 1000);
const uncached = int("uncached", 40, 100_000);
const writes = int("writes", 20, 100_000);
if (uncached * 2 > records) throw new Error(`--records must be at least 2 × --uncached (${2 * uncached})`);

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `registry HTTP API: ${mapping === "name" ? "name-keyed (record-leaf-v2)" : "slot (record-leaf-v1)"} registry, depth ${depth}, ${records} records; cached reads ${duration} s × ${connections} connections; ${uncached} uncached reads and ${writes} writes on 2 connections`,
);

const dir = freshDir("ssgkr-bench-http-");
const BIN = join(ROOT, "bin", "ssgkr.js");
const names = Array.from({ length: records }, (_, i) => `bench-pkg-${i}`);
writeFileSync(
  join(dir, "records.ndjson"),
  names.map((n, i) => JSON.stringify({ name: n, value: `https://github.com/bench/pkg-${i}` })).join("\n") + "\n",
);
writeFileSync(join(dir, "token.txt"), TOKEN + "\n");

const run = (a: string[]) =>
  new Promise<void>((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...a], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    p.on("exit", (c) => (c === 0 ? resolve() : reject(new Error(`ssgkr ${a.join(" ")} exited ${c}`))));
  });
progress("importing the registry");
await run([
  "registry",
  "import",
  "--db",
  "reg",
  "--file",
  "records.ndjson",
  "--depth",
  String(depth),
  ...(mapping === "slot" ? ["--mapping", "slot-v1"] : []),
  "--no-progress",
]);
const web = await buildPage(dir);

// Raw prove rate, in this process, before the server starts (the machine is otherwise as idle as it gets).
progress(`raw prove rate over ${uncached} names`);
const { store } = openRegistry(join(dir, "reg"), { readOnly: true });
proveNameRead(store, names[names.length - 1]!); // prepares the circuit
const rawMs: number[] = [];
for (let i = 0; i < uncached; i++) {
  const t0 = performance.now();
  proveNameRead(store, names[records - 1 - i]!);
  rawMs.push(performance.now() - t0);
}
await store.close();
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const rawTotalS = rawMs.reduce((a, b) => a + b, 0) / 1000;
const rawRate = uncached / rawTotalS;

const server = spawn(
  process.execPath,
  [
    BIN,
    "registry",
    "http",
    "--db",
    "reg",
    "--token-file",
    "token.txt",
    "--listen",
    "127.0.0.1:0",
    "--rate-limit",
    "0",
    "--web",
    web,
  ],
  { cwd: dir, stdio: ["ignore", "pipe", "inherit"] },
);
try {
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on("exit", (c) => reject(new Error(`server exited ${c}`)));
  });
  const warm = names[0]!;
  await (await fetch(`${base}/v1/records/${warm}/proof`)).arrayBuffer();
  await (await fetch(`${base}/v1/records/${names[1]}/proof`)).arrayBuffer(); // server-side circuit prepared

  const summary = (label: string, r: Result) => {
    const ok = r["2xx"];
    const rate = ok / r.duration;
    console.log(
      `${label.padEnd(22)} ${fmt(rate, 1).padStart(7)} req/s   p50 ${fmt(r.latency.p50, 1)} ms   p99 ${fmt(r.latency.p99, 1)} ms   (${ok} ok, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.duration.toFixed(1)} s)`,
    );
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} non-2xx responses and ${r.errors} errors`);
    return { rate, p50: r.latency.p50, p99: r.latency.p99, ok, durationS: r.duration };
  };

  progress(`cached proof reads for ${duration} s`);
  const cached = summary(
    "cached proof reads",
    await autocannon({ url: `${base}/v1/records/${warm}/proof`, connections, duration }),
  );

  progress(`${uncached} uncached proof reads`);
  let next = 2;
  const uncachedR = summary(
    "uncached proof reads",
    await autocannon({
      url: base,
      connections: 2,
      amount: uncached,
      timeout: 120,
      requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: `/v1/records/${names[next++]}/proof` }) }],
    }),
  );

  progress(`${writes} writes`);
  let w = 0;
  const writesR = summary(
    "writes (PUT, insert)",
    await autocannon({
      url: base,
      connections: 2,
      amount: writes,
      timeout: 120,
      requests: [
        {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          setupRequest: (req) => ({
            ...req,
            path: `/v1/records/bench-new-${w++}`,
            body: JSON.stringify({ value: `https://github.com/bench/new-${w}` }),
          }),
        },
      ],
    }),
  );

  console.log(
    `raw prove (in process)  ${fmt(rawRate, 2).padStart(7)} proofs/s  p50 ${fmt(pct(rawMs, 50), 1)} ms   p99 ${fmt(pct(rawMs, 99), 1)} ms   (${uncached} proofs, membership, prove + self-check)`,
  );
  const overhead = uncachedR.rate / rawRate;
  console.log(
    `uncached reads/s ÷ raw proofs/s = ${overhead.toFixed(2)} (1.00 = no HTTP overhead); cached reads/s ÷ raw proofs/s = ${(cached.rate / rawRate).toFixed(0)}`,
  );
  const path = writeResults("http", {
    conditions: cond,
    mapping,
    depth,
    records,
    duration,
    connections,
    raw: { rate: rawRate, p50: pct(rawMs, 50), p99: pct(rawMs, 99), samplesMs: rawMs },
    cached,
    uncached: uncachedR,
    writes: writesR,
  });
  progress(`results in ${path}`);
  printHeadline({
    mapping,
    depth,
    raw_proofs_per_s: Number(rawRate.toFixed(2)),
    cached_reads_per_s: Math.round(cached.rate),
    cached_p50_ms: cached.p50,
    cached_p99_ms: cached.p99,
    uncached_reads_per_s: Number(uncachedR.rate.toFixed(2)),
    uncached_p50_ms: uncachedR.p50,
    uncached_p99_ms: uncachedR.p99,
    writes_per_s: Number(writesR.rate.toFixed(2)),
    writes_p50_ms: writesR.p50,
    writes_p99_ms: writesR.p99,
    uncached_over_raw: Number(overhead.toFixed(2)),
  });
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  removeDir(dir);
}
