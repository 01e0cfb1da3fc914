/**
 * Faults of the NATS transport, each on 127.0.0.1 with brokers started by the test and a short
 * ack_wait, each asserting that every offered job ends in exactly one outcome (one record per job
 * id, counts balanced, nothing unresolved or lost) and that no proof is accepted twice:
 * - a worker SIGKILLed in the middle of a batch: its jobs are redelivered to another worker;
 * - a worker SIGKILLed after publishing results but before acking them: the re-published results
 *   are dropped by the duplicate window;
 * - a three-node cluster with stream replicas 3 losing one node mid-run;
 * - the frontend SIGKILLed mid-run and resumed with `--resume` on the same --out.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadSummary } from "../../src/serve/load/summary.js";
import {
  brokerReport,
  cleanup,
  haveNatsServer,
  loadArgs,
  readRecords,
  resultCount,
  runCli,
  startBroker,
  startCluster,
  startWorker,
  tempDir,
  type Worker,
} from "./support/nats.js";

after(cleanup);
const skip = haveNatsServer() ? false : "nats-server is not installed (apt-get install -y nats-server)";

/** Every offer in exactly one outcome, all accepted (on time or late), each job id once. */
function assertAllAcceptedOnce(
  out: string,
  offered: number,
): { summary: LoadSummary; records: ReturnType<typeof readRecords> } {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  const c = summary.counts;
  assert.equal(summary.status, "LOAD_OBSERVATIONS_COMPLETE", JSON.stringify(summary.guard));
  assert.equal(c.offered, offered);
  assert.equal(c.accepted + c.accepted_late, offered, JSON.stringify(c));
  assert.equal(c.rejected + c.transport_errors + c.generator_failures + c.unresolved_at_drain, 0, JSON.stringify(c));
  assert.equal(c.unknown_responses + c.duplicate_responses, 0);
  assert.ok(summary.accounting_balanced);
  const records = readRecords(out);
  assert.equal(records.length, offered);
  assert.equal(new Set(records.map((r) => r.job_id)).size, offered, "one record per job id");
  assert.ok(records.every((r) => r.outcome === "accepted" || r.outcome === "accepted_late"));
  return { summary, records };
}

async function stop(w: Worker): Promise<Record<string, unknown>> {
  w.child.kill("SIGTERM");
  const s = await w.stopped;
  assert.ok(s, `worker stopped with its status line: ${w.stderr()}`);
  return s;
}

const RUN = ["--warmup", "2", "--rate", "10", "--deadline-ms", "60000", "--drain-ms", "60000"];

test("a worker killed with SIGKILL mid-batch: its jobs are redelivered after ack_wait and proved by another worker", {
  skip,
  timeout: 180_000,
}, async () => {
  const broker = await startBroker();
  assert.equal((await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "1500"])).code, 0);
  const victim = await startWorker(broker.url, "kill-on-flush", "victim");
  let rescuer: Promise<Worker> | null = null;
  victim.child.once("exit", () => {
    rescuer = startWorker(broker.url, undefined, "rescuer");
  });
  const out = join(tempDir("ssgkr-nats-fault-"), "run");
  const r = await runCli(loadArgs(broker.url, out, ["--jobs", "14", "--run-id", "kill-mid-batch", ...RUN]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(victim.child.signalCode, "SIGKILL");
  const { records } = assertAllAcceptedOnce(out, 16);
  assert.ok(
    records.every((x) => x.server?.host_id === "rescuer"),
    "the killed worker published nothing",
  );
  const s = await stop(await rescuer!);
  assert.ok(Number(s["redelivered_jobs"]) >= 1, `redeliveries: ${JSON.stringify(s)}`);
  assert.equal(Number(s["published_results"]), 16);
});

test("a worker killed after publishing but before acking: re-published results are dropped as duplicates, no job counted twice", {
  skip,
  timeout: 180_000,
}, async () => {
  const broker = await startBroker();
  assert.equal((await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "1500"])).code, 0);
  const victim = await startWorker(broker.url, "kill-after-publish:2", "victim");
  let rescuer: Promise<Worker> | null = null;
  victim.child.once("exit", () => {
    rescuer = startWorker(broker.url, undefined, "rescuer");
  });
  const out = join(tempDir("ssgkr-nats-fault-"), "run");
  const r = await runCli(loadArgs(broker.url, out, ["--jobs", "14", "--run-id", "kill-before-ack", ...RUN]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(victim.child.signalCode, "SIGKILL");
  const { summary, records } = assertAllAcceptedOnce(out, 16);
  assert.ok(records.filter((x) => x.server?.host_id === "victim").length >= 2, "the victim's published results count");
  const s = await stop(await rescuer!);
  assert.ok(
    Number(s["duplicate_results_dropped"]) >= 1,
    `the broker dropped a re-published result: ${JSON.stringify(s)}`,
  );
  assert.equal(await resultCount(broker.url, "ssgkr.results.kill-before-ack"), 16, "one stored result per job");
  assert.equal(summary.transport?.["duplicate_results_dropped"], 0);
});

test("a three-node cluster with replicas 3 loses one node mid-run: the run completes with nothing lost", {
  skip,
  timeout: 240_000,
}, async () => {
  const brokers = await startCluster();
  const urls = brokers.map((b) => b.url).join(",");
  const worker = await startWorker(urls, undefined, "w");
  // the node the worker is connected to dies: its pulls, acks and publishes in flight are cut
  const port = /"connected_to":"[^"]*:([0-9]+)"/.exec(worker.stdout())![1]!;
  const victim = brokers.find((b) => b.url.endsWith(`:${port}`))!;
  const out = join(tempDir("ssgkr-nats-fault-"), "run");
  let killed = false;
  const r = await runCli(
    loadArgs(urls, out, ["--jobs", "40", "--run-id", "cluster-node-loss", "--connect-timeout-ms", "30000", ...RUN]),
    (err) => {
      if (!killed && /load: connected to/.test(err)) {
        killed = true;
        setTimeout(() => victim.child.kill("SIGKILL"), 1500);
      }
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(killed && victim.child.signalCode === "SIGKILL", "a broker node was killed mid-run");
  try {
    assertAllAcceptedOnce(out, 42);
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\nworker: ${worker.stderr().slice(-3000)}\nload: ${r.stderr.slice(-3000)}\nbroker: ${await brokerReport(urls)}`,
    );
  }
  const s = await stop(worker);
  assert.ok(Number(s["published_results"]) >= 42);
});

test("the frontend killed mid-run resumes with --resume from the results stream", {
  skip,
  timeout: 240_000,
}, async () => {
  const broker = await startBroker();
  const worker = await startWorker(broker.url, undefined, "w");
  const out = join(tempDir("ssgkr-nats-fault-"), "run");
  const args = loadArgs(broker.url, out, ["--jobs", "28", "--run-id", "resumed-run", ...RUN]);
  let killedAt = "";
  const first = await runCli(args, (err, child) => {
    if (killedAt === "" && /load: connected to/.test(err)) {
      killedAt = "armed";
      setTimeout(() => {
        killedAt = readFileSync(join(out, "records.ndjson"), "utf8");
        child.kill("SIGKILL");
      }, 1500);
    }
  });
  assert.equal(first.child.signalCode, "SIGKILL");
  const before = killedAt.split("\n").filter((l) => l !== "").length;
  assert.ok(before < 30, `killed mid-run (${before} records final)`);
  const resumed = await runCli(["load", "--nats", broker.url, "--resume", "--verify-workers", "1", "--out", out]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /resumed: [0-9]+ final/);
  const { summary } = assertAllAcceptedOnce(out, 30);
  assert.equal(summary.settings["resumed"], true);
  await stop(worker);
});
