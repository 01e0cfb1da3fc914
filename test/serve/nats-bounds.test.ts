/**
 * Bounded jobs over NATS JetStream on 127.0.0.1 (docs/scale-out.md "Bounded jobs"): a job whose
 * run_id (900 KiB) would make every reply exceed the broker's max_payload is terminated on its
 * first delivery with one small error reply, never proved and never redelivered, while an honest
 * job next to it is proved. The frontend refuses such a run id before it publishes anything.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connect } from "nats";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { inputFromRequest } from "../../src/serve/protocol/input.js";
import { jobToJson, type Job } from "../../src/serve/protocol/job.js";
import { ReplyStreamReader } from "../../src/serve/protocol/streams.js";
import { boundedErrorReply, MAX_RUN_ID_BYTES } from "../../src/serve/nats/job-bounds.js";
import { jobConsumer, jobSubject, resultSubject } from "../../src/serve/nats/names.js";
import { DELIVERY_LIMIT_ERROR } from "../../src/serve/nats/worker.js";
import { encodeReplyFrames } from "../../src/serve/protocol/reply.js";
import {
  brokerReport,
  cleanup,
  haveNatsServer,
  loadArgs,
  resultCount,
  runCli,
  startBroker,
  startWorker,
  tempDir,
} from "./support/nats.js";

after(cleanup);
const skip = haveNatsServer() ? false : "nats-server is not installed (apt-get install -y nats-server)";

function job(runId: string, jobId: bigint): Job {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    protocol: 1,
    run_id: runId,
    job_id: jobId,
    fixture_id: 0,
    repeat: 0,
    warmup: false,
    scheduled_unix_ns: now,
    deadline_unix_ns: now + 60_000_000_000n,
    input: inputFromRequest(corpusRequest("membership", 0, { depth: 4 })),
  };
}

async function until(
  what: string,
  ms: number,
  check: () => Promise<boolean>,
  report: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms\n${await report()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("a job with a 900 KiB run_id ends in exactly one outcome: one small error reply, terminated on its first delivery, not proved, not redelivered", {
  skip,
  timeout: 180_000,
}, async () => {
  const broker = await startBroker();
  const setup = await runCli(["nats", "setup", "--nats", broker.url, "--ack-wait-ms", "2000"]);
  assert.equal(setup.code, 0, setup.stderr);
  const worker = await startWorker(broker.url, undefined, "wb", ["--max-deliveries", "2"]);
  const poisonRun = "p".repeat(900 * 1024);
  const nc = await connect({ servers: [broker.url] });
  try {
    const js = nc.jetstream();
    await js.publish(jobSubject("membership"), Buffer.from(jobToJson(job(poisonRun, 1n))));
    await js.publish(jobSubject("membership"), Buffer.from(jobToJson(job("bounds-ok", 1n))));
    const poisonSubject = resultSubject(poisonRun);
    const report = () => brokerReport(broker.url).then((r) => `${r}\n${worker.stderr().slice(-2000)}`);
    await until(
      "one reply to the over-bound job",
      60_000,
      async () => (await resultCount(broker.url, poisonSubject)) >= 1,
      report,
    );
    await until(
      "the proof of the honest job",
      60_000,
      async () => (await resultCount(broker.url, resultSubject("bounds-ok"))) >= 1,
      report,
    );

    const jsm = await nc.jetstreamManager();
    const stored = await jsm.streams.getMessage("SSGKR_RESULTS", { last_by_subj: poisonSubject });
    assert.ok(stored.data.length < 4096, `the error reply is small (${stored.data.length} bytes)`);
    const reader = new ReplyStreamReader();
    reader.push(stored.data);
    const m = reader.next();
    assert.ok(m !== null);
    assert.match(m.reply.error ?? "", /^job_over_bound: run_id of 921600 bytes exceeds 128/);
    assert.match(m.reply.run_id, /^~[0-9a-f]{32}$/, "the reply does not echo the run id");
    assert.equal(m.reply.encoded_bytes, 0);
    assert.equal(m.proof.length, 0);

    // three ack_waits later: still one outcome, nothing left to redeliver
    await new Promise((r) => setTimeout(r, 6000));
    assert.equal(await resultCount(broker.url, poisonSubject), 1, "exactly one reply");
    assert.equal((await jsm.streams.info("SSGKR_JOBS")).state.messages, 0, "the job is gone from the work queue");
    const c = await jsm.consumers.info("SSGKR_JOBS", jobConsumer("membership"));
    assert.equal(c.num_redelivered, 0, "no redelivery");
    assert.equal(c.num_ack_pending, 0);
  } finally {
    await nc.close();
  }
  worker.child.kill("SIGTERM");
  const s = await worker.stopped;
  assert.ok(s, worker.stderr());
  assert.equal(s["pulled_jobs"], 2);
  assert.equal(s["redelivered_jobs"], 0);
  assert.equal(s["over_bound_jobs"], 1);
  assert.equal(s["admitted_jobs"], 1, "only the honest job is admitted");
  assert.equal(s["proof_replies"], 1, "only the honest job is proved");
  assert.equal(s["published_results"], 2);
});

test("the frontend refuses a run id over the bound before publishing or creating --out", {
  timeout: 60_000,
}, async () => {
  const out = join(tempDir("ssgkr-nats-bounds-"), "never");
  const r = await runCli(
    loadArgs("nats://127.0.0.1:1", out, ["--jobs", "1", "--run-id", "r".repeat(MAX_RUN_ID_BYTES + 1)]),
  );
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error BAD_OPTION: --run-id must be at most 128 bytes/m);
  assert.equal(existsSync(out), false);
});

test("the delivery-limit and over-bound replies stay small whatever the job held", () => {
  const big = {
    ...job("x".repeat(900 * 1024), 18446744073709551615n),
    input: { ...job("x", 1n).input, kind: "k".repeat(500 * 1024) },
  };
  for (const error of [`${DELIVERY_LIMIT_ERROR}: delivered 6 times`, `job_over_bound: ${"e".repeat(100_000)}`]) {
    const reply = boundedErrorReply(big, { hostId: "h", processId: 1 }, error);
    const bytes = Buffer.concat(encodeReplyFrames(reply, new Uint8Array(0))).length;
    assert.ok(bytes < 2048, `${bytes} bytes`);
    assert.match(reply.run_id, /^~[0-9a-f]{32}$/);
    assert.match(reply.kind, /^~[0-9a-f]{32}$/);
  }
  const small = boundedErrorReply(job("run-7", 3n), { hostId: "h", processId: 1 }, "e");
  assert.equal(small.run_id, "run-7");
  assert.equal(small.kind, "membership");
});
