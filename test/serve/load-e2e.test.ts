/**
 * End to end on loopback: the real `ssgkr serve` (depth 4) and `ssgkr load` as child processes.
 * A few dozen requests of the three kinds are all accepted after strict verification; then a
 * server killed mid-run leaves a load run that records the failure and still finishes.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadSummary } from "../../src/serve/load/summary.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = join(root, "bin", "ssgkr.js");
const children: ChildProcess[] = [];

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** Starts `ssgkr serve` on an ephemeral port and resolves with its address once SERVER_READY is printed. */
function startServer(): Promise<{ child: ChildProcess; address: string; stdout: () => string }> {
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--depth",
      "4",
      "--workers",
      "1",
      "--control-samples",
      "1",
      "--batch-max",
      "8",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"status":"SERVER_READY".*?"listen":"([^"]+)"/.exec(out);
      if (m) resolve({ child, address: m[1]!, stdout: () => out });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`ssgkr serve exited with ${code} before SERVER_READY: ${err}`)));
  });
}

/** Runs `ssgkr load`; `onConnected` is called when it starts offering. */
function load(
  args: string[],
  onConnected?: () => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, "load", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
    if (onConnected && /load: connected to/.test(stderr)) {
      const f = onConnected;
      onConnected = undefined;
      f();
    }
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

const common = (address: string, out: string) => [
  "--targets",
  address,
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
];

test("serve + load on loopback: every request of the three kinds is accepted after strict verification", {
  timeout: 240_000,
}, async () => {
  const server = await startServer();
  const out = join(mkdtempSync(join(tmpdir(), "ssgkr-e2e-")), "run");
  const r = await load([
    ...common(server.address, out),
    "--jobs",
    "24",
    "--warmup",
    "3",
    "--rate",
    "10",
    "--deadline-ms",
    "120000",
    "--run-id",
    "e2e",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^LOAD_OBSERVATIONS_COMPLETE offered=27 submitted=27 accepted=27 accepted_late=0 rejected=0 transport_errors=0 generator_failures=0 unresolved=0 /,
  );
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  assert.equal(s.status, "LOAD_OBSERVATIONS_COMPLETE");
  assert.equal(s.controls.status, "CONTROLS_PASS");
  assert.equal(s.counts.unknown_responses + s.counts.duplicate_responses, 0);
  assert.equal(s.timed_counts.accepted, 24);
  assert.ok(s.accounting_balanced);
  const records = readFileSync(join(out, "records.ndjson"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind: string; outcome: string; server: { host_id: string } | null });
  assert.equal(records.length, 27);
  assert.deepEqual([...new Set(records.map((x) => x.kind))].sort(), ["membership", "nonmembership", "update"]);
  assert.ok(records.every((x) => x.outcome === "accepted" && x.server !== null));
  // the same directory is never overwritten
  const again = await load([...common(server.address, out), "--jobs", "1"]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /OUT_EXISTS/);

  // kill the server while the load runs: transport errors and closed-queue failures are recorded, the run finishes
  const out2 = join(mkdtempSync(join(tmpdir(), "ssgkr-e2e-")), "killed");
  const killed = await load(
    [...common(server.address, out2), "--jobs", "40", "--warmup", "0", "--rate", "20", "--drain-ms", "5000"],
    () => {
      setTimeout(() => server.child.kill("SIGKILL"), 300);
    },
  );
  assert.equal(killed.code, 0, killed.stderr);
  const k = JSON.parse(readFileSync(join(out2, "summary.json"), "utf8")) as LoadSummary;
  assert.equal(k.status, "LOAD_OBSERVATIONS_COMPLETE");
  assert.equal(k.counts.offered, 40);
  assert.ok(k.accounting_balanced);
  assert.equal(k.generator.closed_targets.length, 1);
  assert.ok(k.counts.transport_errors + k.counts.frontend_sender_queue_full_or_closed > 0);
  assert.equal(
    k.counts.rejected + k.counts.unknown_responses + k.counts.duplicate_responses + k.counts.unresolved_at_drain,
    0,
  );
  assert.equal(
    k.counts.accepted + k.counts.accepted_late + k.counts.transport_errors + k.counts.generator_failures,
    40,
  );
});
