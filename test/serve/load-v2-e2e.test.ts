/**
 * End to end on loopback with profile v2: the real `ssgkr serve --profile v2` (depth 4) and
 * `ssgkr load --profile v2` as child processes. Every job of the three kinds is accepted after
 * its batch's aggregate was verified (once per batch); a compat-v1 load against the v2 server gets
 * no proof (protocol 1 jobs are not read), and the server's stop line counts the aggregates.
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

// A max wait of 250 ms: at 40 offers/s over three kinds, several jobs of a kind arrive within it,
// so batches of more than one job form however fast the machine proves.
function startServer(): Promise<{
  child: ChildProcess;
  address: string;
  stdout: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      "--profile",
      "v2",
      "--listen",
      "127.0.0.1:0",
      "--depth",
      "4",
      "--control-samples",
      "2",
      "--batch-max",
      "8",
      "--max-wait-us",
      "250000",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"status":"SERVER_READY".*?"listen":"([^"]+)"/.exec(out);
      if (m) resolve({ child, address: m[1]!, stdout: () => out, exited });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`ssgkr serve exited with ${code} before SERVER_READY: ${err}`)));
  });
}

function load(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, "load", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

const common = (address: string, out: string, samples = 2) => [
  "--targets",
  address,
  "--depth",
  "4",
  "--corpus",
  "3",
  "--control-samples",
  String(samples),
  "--verify-workers",
  "1",
  "--out",
  out,
];

interface Rec {
  kind: string;
  outcome: string;
  verify_ms: number | null;
  server: { batch_id: number; batch_size: number; encoded_bytes: number } | null;
}

test("serve --profile v2 + load --profile v2: every job accepted, one aggregate verification per batch", {
  timeout: 240_000,
}, async () => {
  const server = await startServer();
  assert.match(server.stdout(), /"status":"CONTROLS_PASS","checks":15,/);
  assert.match(server.stdout(), /"profile":"v2"/);
  const out = join(mkdtempSync(join(tmpdir(), "ssgkr-e2e-v2-")), "run");
  const r = await load([
    ...common(server.address, out),
    "--profile",
    "v2",
    "--jobs",
    "30",
    "--warmup",
    "3",
    "--rate",
    "40",
    "--deadline-ms",
    "120000",
    "--run-id",
    "e2e-v2",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^LOAD_OBSERVATIONS_COMPLETE offered=33 submitted=33 accepted=33 accepted_late=0 rejected=0 transport_errors=0 generator_failures=0 unresolved=0 /,
  );
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  assert.equal(s.controls.status, "CONTROLS_PASS");
  assert.equal(s.controls.checks, 15);
  assert.ok(s.accounting_balanced);
  const records = readFileSync(join(out, "records.ndjson"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Rec);
  assert.equal(records.length, 33);
  assert.deepEqual([...new Set(records.map((x) => x.kind))].sort(), ["membership", "nonmembership", "update"]);
  assert.ok(records.every((x) => x.outcome === "accepted" && x.server !== null));
  const batches = new Map<number, Rec[]>();
  for (const x of records) batches.set(x.server!.batch_id, [...(batches.get(x.server!.batch_id) ?? []), x]);
  for (const [id, rs] of batches) {
    assert.equal(rs.length, rs[0]!.server!.batch_size, `batch ${id}: every job of the batch was offered by this run`);
    assert.equal(new Set(rs.map((x) => x.kind)).size, 1, `batch ${id} is of one kind`);
    assert.equal(rs.filter((x) => (x.verify_ms ?? 0) > 0).length, 1, `batch ${id}: one aggregate verification`);
  }
  assert.ok(
    [...batches.values()].some((rs) => rs.length > 1),
    "some batch aggregates several jobs",
  );

  // a compat-v1 load gets no reply from a v2 server: its protocol 1 jobs are not read
  const out1 = join(mkdtempSync(join(tmpdir(), "ssgkr-e2e-v2-")), "v1");
  const v1 = await load([
    ...common(server.address, out1, 0),
    "--jobs",
    "2",
    "--warmup",
    "0",
    "--rate",
    "20",
    "--drain-ms",
    "3000",
  ]);
  assert.equal(v1.code, 0, v1.stderr);
  const k = JSON.parse(readFileSync(join(out1, "summary.json"), "utf8")) as LoadSummary;
  assert.equal(k.counts.accepted + k.counts.accepted_late + k.counts.rejected, 0);
  assert.ok(k.accounting_balanced);

  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0);
  const stopped = JSON.parse(server.stdout().trim().split("\n").at(-1)!) as {
    status: string;
    proof_replies: number;
    batches: number;
    connection_closes: Record<string, number>;
  };
  assert.equal(stopped.status, "SERVER_STOPPED");
  assert.equal(stopped.proof_replies, 33);
  assert.equal(stopped.batches, batches.size);
  assert.equal(stopped.connection_closes["protocol_mismatch"], 1);
});
