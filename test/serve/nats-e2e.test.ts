/**
 * End to end over NATS JetStream on 127.0.0.1: a nats-server started by the test (free port,
 * temporary store), two `ssgkr serve --nats` workers sharing the job consumers, and
 * `ssgkr load --nats` publishing jobs and reading results from the results stream. Every offer
 * ends in exactly one outcome; every proof is verified strictly and accepted once.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadSummary } from "../../src/serve/load/summary.js";
import {
  cleanup,
  freePort,
  haveNatsServer,
  loadArgs,
  readRecords,
  resultCount,
  runCli,
  startBroker,
  startWorker,
  tempDir,
} from "./support/nats.js";

after(cleanup);
const skip = haveNatsServer() ? false : "nats-server is not installed (apt-get install -y nats-server)";

test("nats setup is idempotent and names what it did", { skip, timeout: 60_000 }, async () => {
  const broker = await startBroker();
  const first = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "5000"]);
  assert.equal(first.code, 0, first.stderr);
  const a = JSON.parse(first.stdout) as { status: string; actions: Record<string, string>; max_payload: number };
  assert.equal(a.status, "NATS_SETUP_DONE");
  const names = [
    "SSGKR_JOBS",
    "SSGKR_RESULTS",
    "ssgkr-membership",
    "ssgkr-nonmembership",
    "ssgkr-update",
    "SSGKR_REGISTRY_JOBS",
    "SSGKR_REGISTRY_RESULTS",
    "ssgkr-registry-read",
    "ssgkr-registry-block",
  ];
  assert.deepEqual(a.actions, Object.fromEntries(names.map((n) => [n, "created"])));
  const again = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "5000"]);
  assert.deepEqual(
    (JSON.parse(again.stdout) as typeof a).actions,
    Object.fromEntries(names.map((n) => [n, "unchanged"])),
  );
  const changed = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "7000"]);
  const c = (JSON.parse(changed.stdout) as typeof a).actions;
  assert.equal(c["ssgkr-update"], "updated");
  assert.equal(c["ssgkr-registry-block"], "updated");
  assert.equal(c["SSGKR_JOBS"], "unchanged");
  assert.equal(c["SSGKR_REGISTRY_RESULTS"], "unchanged");
  assert.equal(changed.stderr, "", "one copy asked for, no notice");
  // a lone broker keeps one copy whatever --replicas says: the run says so (and still succeeds)
  const replicated = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "7000", "--replicas", "3"]);
  assert.equal(replicated.code, 0, replicated.stderr);
  assert.match(
    replicated.stderr,
    /^notice: \S+ is not part of a cluster: the streams have one copy on it, not the 3 --replicas asks for\n$/,
  );
  const bad = await runCli(["nats", "setup", "--nats", "localhost:4222"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error BAD_OPTION: --nats entry "localhost:4222" is not nats:\/\/HOST:PORT/m);
  const down = await runCli(["nats", "setup", "--nats", `nats://127.0.0.1:${await freePort()}`]);
  assert.equal(down.code, 2);
  assert.match(down.stderr, /^error BROKER_CONNECT: cannot connect to nats:\/\/127\.0\.0\.1:/m);
});

test("serve --nats + load --nats: two workers share the jobs, every proof of the three kinds is accepted once", {
  skip,
  timeout: 240_000,
}, async () => {
  const broker = await startBroker();
  const [w1, w2] = await Promise.all([
    startWorker(broker.url, undefined, "w1"),
    startWorker(broker.url, undefined, "w2"),
  ]);
  assert.match(w1.stdout(), /"status":"SERVER_READY".*"transport":"nats","listen":null/);
  const out = join(tempDir("ssgkr-nats-e2e-"), "run");
  const r = await runCli(
    loadArgs(broker.url, out, [
      "--jobs",
      "30",
      "--warmup",
      "3",
      "--rate",
      "15",
      "--deadline-ms",
      "60000",
      "--run-id",
      "e2e-nats",
    ]),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^LOAD_OBSERVATIONS_COMPLETE offered=33 submitted=33 accepted=33 accepted_late=0 rejected=0 transport_errors=0 generator_failures=0 unresolved=0 deadline_events=0 unknown=0 duplicate=0 /,
  );
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as LoadSummary;
  assert.ok(s.accounting_balanced);
  assert.equal(s.settings["transport"], "nats");
  assert.equal(s.transport?.["duplicate_results_dropped"], 0);
  assert.equal(s.transport?.["results_read"], 33);
  assert.ok(existsSync(join(out, "report.html")));
  const records = readRecords(out);
  assert.equal(records.length, 33);
  assert.equal(new Set(records.map((x) => x.job_id)).size, 33);
  assert.ok(records.every((x) => x.outcome === "accepted"));
  assert.equal(await resultCount(broker.url, "ssgkr.results.e2e-nats"), 33);

  // a run id with results on the broker is refused (its results would be dropped as duplicates), and nothing is left behind
  const out2 = join(tempDir("ssgkr-nats-e2e-"), "again");
  const again = await runCli(loadArgs(broker.url, out2, ["--jobs", "2", "--run-id", "e2e-nats"]));
  assert.equal(again.code, 2);
  assert.match(again.stderr, /^error RUN_ID_USED: the broker already holds results of run id "e2e-nats"/m);
  assert.equal(existsSync(out2), false);

  w1.child.kill("SIGTERM");
  w2.child.kill("SIGTERM");
  const [s1, s2] = await Promise.all([w1.stopped, w2.stopped]);
  assert.equal(s1?.["status"], "SERVER_STOPPED");
  assert.equal(Number(s1!["published_results"]) + Number(s2!["published_results"]), 33);
  assert.equal(Number(s1!["proof_replies"]) + Number(s2!["proof_replies"]), 33);
});

test("load removes the --out it created when it fails before sending anything", { timeout: 120_000 }, async () => {
  const out = join(tempDir("ssgkr-nats-e2e-"), "never");
  const r = await runCli([
    "load",
    "--targets",
    `127.0.0.1:${await freePort()}`,
    "--depth",
    "4",
    "--corpus",
    "3",
    "--control-samples",
    "1",
    "--verify-workers",
    "1",
    "--jobs",
    "2",
    "--connect-timeout-ms",
    "2000",
    "--out",
    out,
  ]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error CONNECT: cannot connect to 127\.0\.0\.1:/m);
  assert.equal(existsSync(out), false);
  assert.equal(existsSync(join(out, "..")), true);
});

test("a worker terminates what is not a Job, answers input errors and jobs delivered too often with error replies, and acks them all", {
  skip,
  timeout: 120_000,
}, async () => {
  const { connect } = await import("nats");
  const { inputFromRequest } = await import("../../src/serve/protocol/input.js");
  const { jobToJson, decodeJob } = await import("../../src/serve/protocol/job.js");
  const { corpusRequest } = await import("../../src/serve/fixtures/corpus.js");
  const { OpKind } = await import("../../src/statement/types.js");
  const { ReplyStreamReader } = await import("../../src/serve/protocol/streams.js");
  const broker = await startBroker();
  assert.equal((await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "5000"])).code, 0);
  const nc = await connect({ servers: broker.url });
  try {
    const js = nc.jetstream();
    const input = inputFromRequest(corpusRequest(OpKind.Update, 0, { depth: 4 }));
    const job = (id: number, siblings = input.siblings) =>
      jobToJson({
        protocol: 1,
        run_id: "raw",
        job_id: BigInt(id),
        fixture_id: 0,
        repeat: 1,
        warmup: false,
        scheduled_unix_ns: 1n,
        deadline_unix_ns: 2n,
        input: { ...input, siblings },
      });
    await js.publish("ssgkr.jobs.update", new TextEncoder().encode("not json"), { msgID: "raw/bad" });
    await js.publish("ssgkr.jobs.update", new TextEncoder().encode(job(1, input.siblings.slice(1))), {
      msgID: "raw/1",
    });
    await js.publish("ssgkr.jobs.membership", new TextEncoder().encode(job(2)), { msgID: "raw/2" });
    // job 2 was delivered once already (to a consumer that handed it back)
    for await (const m of js.fetch("SSGKR_JOBS", "ssgkr-membership", { batch: 1, expires: 2000 })) {
      assert.equal(decodeJob(m.data).job_id, 2n);
      m.nak();
    }
    const worker = await startWorker(broker.url, undefined, "strict", ["--max-deliveries", "1"]);
    const replies = new Map<bigint, string | null>();
    const c = await js.consumers.get("SSGKR_RESULTS", { filterSubjects: "ssgkr.results.raw" });
    for (let tries = 0; tries < 100 && replies.size < 2; tries++) {
      const batch = await c.fetch({ max_messages: 10, expires: 1000 });
      for await (const m of batch) {
        const r = new ReplyStreamReader();
        r.push(m.data);
        const msg = r.next()!;
        replies.set(msg.reply.job_id, msg.reply.error);
      }
    }
    assert.equal(replies.get(1n), "input: input outside measured profile");
    assert.equal(replies.get(2n), "worker_delivery_limit: delivered 2 times");
    const jsm = await nc.jetstreamManager();
    for (let i = 0; i < 50 && (await jsm.streams.info("SSGKR_JOBS")).state.messages > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal((await jsm.streams.info("SSGKR_JOBS")).state.messages, 0, "every job acked or terminated");
    worker.child.kill("SIGTERM");
    const s = await worker.stopped;
    assert.equal(s?.["bad_jobs"], 1);
    assert.equal(s?.["input_errors"], 1);
    assert.equal(s?.["redelivered_jobs"], 1);
    assert.equal(s?.["delivery_limit_replies"], 1);
  } finally {
    await nc.close();
  }
});
