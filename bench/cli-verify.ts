/**
 * A fresh `ssgkr registry verify` process against the same check in process: what a counterparty
 * pays per CLI call, and how much of it the on-disk prepared-circuit cache (src/cli/prepared-disk.ts)
 * and the lazily loaded commands save.
 *
 *   npm run bench -- cli-verify [--depth 48] [--repeats 5]
 *
 * Set-up: a name-keyed registry of three records at `--depth`, a compat-v1 membership proof of one
 * of them (`ssgkr registry prove membership`). Then, `--repeats` times, interleaved, the wall time
 * (spawn to exit, ms) of:
 *   cold       `ssgkr registry verify` with an empty cache folder (prepares and writes the file)
 *   warm       the same with the folder the cold run filled (reads the file)
 *   off        the same with SSGKR_CACHE=off (prepares, writes nothing)
 *   node       `node -e 0`: Node's own start-up
 * and in this process, `verifyRecordProof` on the same files:
 *   inproc_first    with a fresh in-memory cache (the circuit is prepared in the call)
 *   inproc          with the circuit already prepared (the verification itself)
 *   load_hit        `loadOrPrepare` reading the warm cache file
 *
 * Medians over the repeats. Ratios: `warm_over_inproc` = (warm − node) / inproc, the CLI's cost
 * over the verification once Node runs; `warm_over_inproc_first` = (warm − node) / inproc_first,
 * a fresh process against a first call in process; `off_over_warm` = off / warm.
 *
 * Writes bench/results/cli-verify.json; the last stdout line holds the headline medians.
 * `--smoke`: depth 8, one repetition.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadOrPrepare } from "../src/cli/prepared-disk.js";
import { installKernelBackend } from "../src/kernels/backend.js";
import { verifyRecordProof } from "../src/registry/verify-record.js";
import { parseRoot } from "../src/registry/root.js";
import { syncConfig } from "../src/smt/config.js";
import { PreparedCache } from "../src/sync/prepared-cache.js";
import { OpKind } from "../src/statement/types.js";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { int, parseOptions } from "./lib/options.js";

const args = parseOptions({ depth: int(8, 48), repeats: int(1, 100) }, { smoke: { depth: "8", repeats: "1" } });
const depth = Number(args.get("depth") ?? "48");
const repeats = Number(args.get("repeats") ?? "5");

installKernelBackend();
const cond = conditions();
console.log(conditionsLine(cond));

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const work = mkdtempSync(join(tmpdir(), "ssgkr-cli-verify-"));
const NAME = "alpha";
const VALUE = "https://a.example";

/** Runs the CLI (set-up steps); exits the benchmark on failure. */
function ssgkr(argv: readonly string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [bin, ...argv], { encoding: "utf8", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    process.stderr.write(`bench cli-verify: ssgkr ${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}

/** Wall time of one process, ms; its stdout must start with `expect`. */
function wall(argv: readonly string[], env: Record<string, string>, expect: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { encoding: "utf8", env: { ...process.env, ...env } });
  const ms = performance.now() - t0;
  if (r.status !== 0 || !r.stdout.startsWith(expect)) {
    process.stderr.write(`bench cli-verify: ${argv.join(" ")} exited ${r.status}: ${r.stdout}${r.stderr}`);
    process.exit(1);
  }
  return ms;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

progress(`registry of 3 records at depth ${depth}, membership proof of ${JSON.stringify(NAME)}`);
const db = join(work, "db");
const records = join(work, "records.ndjson");
writeFileSync(
  records,
  [
    `{"name":"${NAME}","value":"${VALUE}"}`,
    `{"name":"beta","value":"https://b.example"}`,
    `{"name":"gamma","value":null}`,
  ].join("\n") + "\n",
);
ssgkr(["registry", "import", "--db", db, "--file", records, "--depth", String(depth), "--no-progress"]);
const rootHex = (JSON.parse(ssgkr(["registry", "root", "--db", db, "--json"])) as { root: string }).root;
const out = join(work, "proof");
ssgkr(["registry", "prove", "membership", "--db", db, "--name", NAME, "--out", out], { SSGKR_CACHE: "off" });
const requestFile = join(out, "request.json");
const proofFile = join(out, "proof.bin");
const verifyArgv = [
  bin,
  "registry",
  "verify",
  "--name",
  NAME,
  "--value",
  VALUE,
  "--root",
  rootHex,
  "--request",
  requestFile,
  "--proof",
  proofFile,
  "--depth",
  String(depth),
];

const samples = {
  cold: [] as number[],
  warm: [] as number[],
  off: [] as number[],
  node: [] as number[],
  inprocFirst: [] as number[],
  inproc: [] as number[],
  loadHit: [] as number[],
};
const requestText = readFileSync(requestFile, "utf8");
const proof = new Uint8Array(readFileSync(proofFile));
const claim = { trustedRoot: parseRoot(rootHex, "root"), name: NAME, value: VALUE, depth };
const config = syncConfig({ depth });

for (let r = 0; r < repeats; r++) {
  progress(`repeat ${r + 1}/${repeats}: cold, warm, off, node, in process`);
  const dir = join(work, `cache-${r}`);
  samples.cold.push(wall(verifyArgv, { SSGKR_CACHE_DIR: dir }, "ACCEPT"));
  samples.warm.push(wall(verifyArgv, { SSGKR_CACHE_DIR: dir }, "ACCEPT"));
  samples.off.push(wall(verifyArgv, { SSGKR_CACHE: "off" }, "ACCEPT"));
  samples.node.push(wall(["-e", "process.stdout.write('ok')"], {}, "ok"));
  const cache = new PreparedCache();
  let t0 = performance.now();
  const first = verifyRecordProof(claim, requestText, proof, { cache });
  samples.inprocFirst.push(performance.now() - t0);
  t0 = performance.now();
  const again = verifyRecordProof(claim, requestText, proof, { cache });
  samples.inproc.push(performance.now() - t0);
  if (!first.ok || !again.ok) {
    process.stderr.write(`bench cli-verify: in-process verdict ${JSON.stringify(first)} ${JSON.stringify(again)}\n`);
    process.exit(1);
  }
  t0 = performance.now();
  const hit = loadOrPrepare(OpKind.Membership, config, { env: { SSGKR_CACHE_DIR: dir } });
  samples.loadHit.push(performance.now() - t0);
  if (hit.source !== "hit") {
    process.stderr.write(`bench cli-verify: the warm cache was not read (${hit.problem ?? hit.source})\n`);
    process.exit(1);
  }
}
rmSync(work, { recursive: true, force: true });

const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<
  keyof typeof samples,
  number
>;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const round = (x: number) => Math.round(x * 10) / 10;
console.log(`depth ${depth}, ${repeats} repeat${repeats === 1 ? "" : "s"}, medians in ms`);
console.log(`  process wall  cold ${fmt(m.cold)}  warm ${fmt(m.warm)}  off ${fmt(m.off)}  node -e ${fmt(m.node)}`);
console.log(
  `  in process    verifyRecordProof ${fmt(m.inproc)} (first call, preparing: ${fmt(m.inprocFirst)})  cache file read ${fmt(m.loadHit)}`,
);
console.log(
  `  (warm − node) / in process ${fmt((m.warm - m.node) / m.inproc, 2)}; / first call ${fmt((m.warm - m.node) / m.inprocFirst, 2)}; off / warm ${fmt(m.off / m.warm, 2)}`,
);
const headline = {
  depth,
  repeats,
  load1: cond.load1,
  cold_wall_ms: round(m.cold),
  warm_wall_ms: round(m.warm),
  off_wall_ms: round(m.off),
  node_start_ms: round(m.node),
  inproc_verify_ms: round(m.inproc),
  inproc_first_verify_ms: round(m.inprocFirst),
  cache_read_ms: round(m.loadHit),
  warm_over_inproc: ratio(m.warm - m.node, m.inproc),
  warm_over_inproc_first: ratio(m.warm - m.node, m.inprocFirst),
  off_over_warm: ratio(m.off, m.warm),
};
writeResults("cli-verify", { conditions: cond, depth, repeats, samples_ms: samples, medians_ms: m, headline });
printHeadline(headline);
