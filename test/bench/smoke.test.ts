/**
 * Every benchmark runs in smoke mode (`--smoke`: tiny sizes, one repetition, a few seconds) as a
 * child process: it exits 0, its last stdout line is a JSON object with the benchmark's headline
 * keys, and its results file lands in the smoke folder, never in bench/results.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM } from "../web/support.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const runner = join(root, "bench", "run.mjs");
/** Wall-clock bound of one smoke run (the slowest take about 20 s on a shared 2-core machine). */
const TIMEOUT_MS = 90_000;
/** Benchmarks whose smoke run starts many servers (each prepares its proving workers): a longer bound. */
const TIMEOUT_OVERRIDE_MS: Readonly<Record<string, number>> = { "registry-load": 240_000, mirror: 240_000 };
const timeoutOf = (name: string) => TIMEOUT_OVERRIDE_MS[name] ?? TIMEOUT_MS;

/** Headline keys each benchmark's smoke run must print (a subset where the keys depend on the sizes). */
const HEADLINE: Readonly<Record<string, readonly string[]>> = {
  "cli-verify": [
    "depth",
    "cold_wall_ms",
    "warm_wall_ms",
    "off_wall_ms",
    "node_start_ms",
    "inproc_verify_ms",
    "inproc_first_verify_ms",
    "warm_over_inproc",
    "warm_over_inproc_first",
    "off_over_warm",
  ],
  batch: [
    "depth",
    "jobs_per_kind",
    "batch_serial_proofs_per_s",
    "batch_proofs_per_s_1w",
    "batch_cpu_ms_per_proof_1w",
    "bytes_identical",
  ],
  "epoch-apply": ["records", "depth", "epoch_writes", "epoch_apply_cpu_us", "epoch_apply_first_cpu_us"],
  history: ["records", "commits", "growth_bytes_per_commit", "state_ratio", "prove_ratio"],
  http: [
    "mapping",
    "depth",
    "raw_proofs_per_s",
    "cached_reads_per_s",
    "uncached_reads_per_s",
    "writes_per_s",
    "uncached_over_raw",
  ],
  mirror: [
    "depth",
    "records",
    "server_blocks_updates_per_s",
    "mirror_catchup_updates_per_s",
    "mirror_catchup_cpu_updates_per_s",
    "mirror_lag_p99_s",
    "nats_reads_1w_per_s",
    "nats_reads_2w_per_s",
    "nats_reads_scaling_2w",
    "workers_cores_2w",
  ],
  memory: ["sparse_max_width_under_3gib", "dense_max_width", "proofs_compared", "proofs_identical", "all_verified"],
  pcs: [
    "pcs_selfcheck_ok",
    "pcs22_cb90_commit_open_ms",
    "pcs22_cb90_verify_ms",
    "pcs22_cb90_bytes",
    "pcs22_ud100_commit_open_ms",
    "pcs22_ud100_verify_ms",
    "pcs22_ud100_bytes",
    "pcs22_default_bits",
    "pcs20_verify_browser_ms",
    "pcs22_cb90_commit_open_wall_ms",
    "pcs22_cb90_commit_open_pool_ms",
    "pcs_pool_threads",
    "pcs22_scaling_2t",
    "pcs22_cb_r4_commit_open_ms",
    "pcs22_cb_r4_verify_ms",
    "pcs22_cb_r4_bytes",
    "pcs22_ud_r4_commit_open_ms",
    "pcs22_ud_r4_verify_ms",
    "pcs22_ud_r4_bytes",
    "v3_block1024_prove_over_old_set",
  ],
  prepare: [
    "prepare_ms",
    "compile_ms",
    "commitment_ms",
    "wiring_ms",
    "transcript_ms",
    "transcript_ts_ms",
    "permutation_us",
  ],
  primitives: ["size", "poseidon2_wasm_Mperm_s", "poseidon2_ts_Mperm_s", "base_mul_wasm_M_s", "fold_ext_wasm_M_s"],
  prove: ["prove_prepared_ms", "prove_fresh_ms", "prove_prepared_cpu_ms", "fresh_over_prepared", "split_rounds_ms"],
  "pcs-leaf": ["variables", "cb100-r4-s3-l24_over_cb100-r4-s3"],
  "registry-load": [
    "cached_reads_per_s",
    "zk_reads_scaling_2w",
    "cores_used",
    "blocks_updates_per_s",
    "blocks_updates_per_s_server",
    "event_loop_p99_ms",
    "write_offered_per_s",
    "writes_acked_per_s",
    "write_ack_p99_ms",
    "writes_capacity_per_s",
    "write_serving_cpu_us",
    "write_writer_cpu_us",
    "write_loadgen_cpu_us",
    "write_ack_p99_ms_epoch200",
    "proving_lag_p99_s",
    "proving_lag_growing",
    "block4_prove_ms",
    "block8_prove_ms",
    "block8_rss_mb",
    "block8_over_4",
  ],
  registry: ["slot_records", "slot_wall_s", "name_records", "name_wall_s", "wall_ratio", "disk_ratio"],
  serving: ["depth", "best_rate_overlapped", "p99_ms_at_best_overlapped", "server_cpu_s_per_accepted_overlapped"],
  size: ["formula_matches"],
  v3: ["load1", "block_depth", "agg_depth"],
  zk: [
    "load1",
    "zk_member_prove_ms",
    "zk_member_verify_ms",
    "zk_member_bytes",
    "zk_member_bytes_ud100",
    "zk_absence_bytes",
    "zk_block4_prove_over_v3",
  ],
  v2: [
    "reference",
    "v2_over_compat_prove",
    "v2_prove_ms",
    "compat_prove_ms",
    "v2_verify_ms",
    "v2_bytes",
    "compat_bytes",
  ],
  verify: ["point", "verify_derived_ms", "verify_table_ms", "ratio", "transcript_ms", "sumcheck_ms"],
  web: [
    "depth",
    "backend",
    "membership_node_ms",
    "membership_browser_ms",
    "zk_membership_node_ms",
    "zk_membership_browser_ms",
    "zk_nonmembership_browser_ms",
    "zk_member_verify_browser_ms",
    "pcs11_verify_node_ms",
    "pcs11_verify_browser_ms",
    "worst_ratio",
    "v3_block_depth",
    "v3_block4_verify_node_ms",
    "v3_block4_verify_browser_ms",
    "load1",
  ],
};

/** Why a benchmark cannot run here (a program it needs is missing), or undefined. */
function missing(name: string): string | undefined {
  if (name === "web" && !existsSync(CHROMIUM)) return `needs ${CHROMIUM} (headless Chromium), which is absent`;
  return undefined;
}

const names = spawnSync(process.execPath, [runner, "list"], { cwd: root, encoding: "utf8", timeout: 30_000 })
  .stdout.trim()
  .split("\n")
  .filter((n) => n !== "");

test("every benchmark has a smoke check with its headline keys", () => {
  assert.ok(names.length >= 12, `benchmarks listed: ${names.join(", ")}`);
  assert.deepEqual(
    names.filter((n) => !(n in HEADLINE)),
    [],
    "benchmarks without an entry in HEADLINE",
  );
});

/** Runs `node bench/run.mjs <name> --smoke` with a deadline; resolves with its exit and output. */
function runSmoke(
  name: string,
  dir: string,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [runner, name, "--smoke"], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE_DIR: dir },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // The whole process group: the benchmark and whatever it started (servers, workers, Chromium).
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, timeoutOf(name));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

for (const name of names) {
  const why = missing(name);
  test(`bench ${name} --smoke exits 0 and ends with its headline JSON${why ? ` (skipped: ${why})` : ""}`, {
    skip: why ?? false,
    timeout: timeoutOf(name) + 10_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), `ssgkr-smoke-${name}-`));
    const real = join(root, "bench", "results", `${name}.json`);
    const before = existsSync(real) ? statSync(real).mtimeMs : undefined;
    try {
      const r = await runSmoke(name, dir);
      assert.equal(
        r.signal,
        null,
        `${name} was killed (${r.signal}) after ${timeoutOf(name)} ms: ${r.stderr.slice(-2000)}`,
      );
      assert.equal(r.code, 0, `${name} exited ${r.code}: ${r.stderr.slice(-2000)}`);
      const lines = r.stdout.trimEnd().split("\n");
      assert.match(lines[0]!, /^# .* cores, node /, "the conditions line comes first");
      const headline: unknown = JSON.parse(lines[lines.length - 1]!);
      assert.ok(
        headline !== null && typeof headline === "object" && !Array.isArray(headline),
        "the last line is a JSON object",
      );
      const h = headline as Record<string, unknown>;
      for (const key of HEADLINE[name] ?? [])
        assert.ok(key in h, `${name}: headline key ${key} missing in ${JSON.stringify(h)}`);
      assert.ok(
        Object.values(h).some((v) => typeof v === "number" && Number.isFinite(v)),
        `${name}: no numeric headline value`,
      );
      const written = join(dir, `${name}.json`);
      assert.ok(existsSync(written), `${name}: results file in the smoke folder`);
      assert.equal(typeof JSON.parse(readFileSync(written, "utf8")), "object");
      assert.equal(
        existsSync(real) ? statSync(real).mtimeMs : undefined,
        before,
        `${name}: bench/results/${name}.json untouched`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
