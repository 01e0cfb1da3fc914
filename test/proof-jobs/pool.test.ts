/**
 * The primary's pool on the broker (src/proof-jobs/pool.ts) against a real nats-server on
 * 127.0.0.1 and a fake worker that answers as each case needs: outstanding jobs past the bound
 * are refused at once (`PROVER_BUSY`) and jobs without a result time out (`PROVER_TIMEOUT`); a
 * result in many chunks is reassembled; a result is used once (a second copy is dropped); a proof
 * of another name, a refusal and a block part that does not verify are `PROOF_JOB_REFUSED`; a
 * proof's own error keeps its code. Skipped when nats-server is not installed.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect, headers, type NatsConnection } from "nats";
import { SsgkrError } from "../../src/errors.js";
import { NatsProvingPool } from "../../src/proof-jobs/pool.js";
import {
  REGISTRY_JOBS_STREAM,
  decodeJob,
  encodeResult,
  registryJobConsumer,
  registryResultSubject,
  type JobResult,
  type RegistryJob,
} from "../../src/proof-jobs/jobs.js";
import { streamSettings } from "../../src/serve/nats/setup.js";
import { cleanup, haveNatsServer, startBroker, type Broker } from "../serve/support/nats.js";

const skip = haveNatsServer() ? false : "nats-server is not installed";
const ROOT = Array.from({ length: 8 }, (_, i) => i + 1);
let broker: Broker;
let nc: NatsConnection;
let pool: NatsProvingPool;

/** The error a promise rejects with (caught at once, so no rejection goes unhandled), or "resolved". */
function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => "resolved",
    (e: unknown) => e,
  );
}

/** Asserts that `p` (from `failure`) is an error with `code` and a message matching `re`. */
async function failsWith(p: Promise<unknown>, code: string, re = /./): Promise<void> {
  const e = await p;
  assert.ok(e instanceof SsgkrError, String(e));
  assert.equal(e.code, code, e.message);
  assert.match(e.message, re);
}

/** Pulls the next job of a kind (waits up to 10 s). */
async function nextJob(kind: "read" | "block"): Promise<RegistryJob> {
  const js = nc.jetstream();
  const c = await js.consumers.get(REGISTRY_JOBS_STREAM, registryJobConsumer(kind));
  const m = await c.next({ expires: 10_000 });
  assert.ok(m, `a ${kind} job was published`);
  m.ack();
  const d = decodeJob(m.data);
  assert.ok(d.ok, JSON.stringify(d));
  return d.job;
}

/** Publishes a result the way a worker does, in chunks of `chunk` bytes. */
async function answer(job: RegistryJob, r: JobResult, chunk = 512 * 1024): Promise<void> {
  const js = nc.jetstream();
  for (const c of encodeResult(r, chunk)) {
    const h = headers();
    h.set("Ssgkr-Job", c.job);
    h.set("Ssgkr-Chunk", `${c.index}/${c.count}`);
    await js.publish(registryResultSubject(job.reply), c.data, { headers: h });
  }
}

before(async () => {
  if (skip) return;
  broker = await startBroker();
  nc = await connect({ servers: broker.url });
  pool = await NatsProvingPool.start({
    endpoint: { servers: [broker.url] },
    streams: streamSettings({ ackWaitMs: 1000 }),
    token: "primary-test",
    readTimeoutMs: 20_000,
    blockTimeoutMs: 20_000,
  });
});

after(async () => {
  await pool?.close();
  await nc?.close();
  cleanup();
});

test("past the bound of outstanding reads a proof is refused at once (PROVER_BUSY); one without a result times out (PROVER_TIMEOUT)", {
  skip,
}, async () => {
  const short = await NatsProvingPool.start({
    endpoint: { servers: [broker.url] },
    streams: streamSettings(),
    token: "primary-short",
    maxQueuedReads: 2,
    readTimeoutMs: 1500,
  });
  try {
    const t = Date.now();
    const a = failure(short.proveRead("a", ROOT, "v3"));
    const b = failure(short.proveRead("b", ROOT, "v3"));
    const t0 = performance.now();
    await assert.rejects(short.proveRead("c", ROOT, "v3"), (e: SsgkrError) => e.code === "PROVER_BUSY");
    assert.ok(performance.now() - t0 < 200, "refused before anything is published");
    assert.deepEqual(short.stats().queued, { read: 2, block: 0 });
    await failsWith(a, "PROVER_TIMEOUT");
    await failsWith(b, "PROVER_TIMEOUT");
    assert.deepEqual(short.stats().queued, { read: 0, block: 0 });
    // the two jobs stay on the queue, expiring when the primary stopped waiting: a worker acks them unproved
    for (const name of ["a", "b"]) {
      const j = await nextJob("read");
      assert.equal(j.kind === "read" && j.name, name);
      assert.ok(j.expires !== undefined && j.expires >= t + 1500 && j.expires <= t + 2500, String(j.expires));
    }
  } finally {
    await short.close();
  }
});

test("a block part without a result is published again as a new job; a worker's refusal of it is final", {
  skip,
}, async () => {
  const short = await NatsProvingPool.start({
    endpoint: { servers: [broker.url] },
    streams: streamSettings(),
    token: "primary-blocks",
    blockTimeoutMs: 1000,
  });
  try {
    const p = failure(short.proveBlockPart(5, 0));
    const first = await nextJob("block");
    const second = await nextJob("block");
    assert.notEqual(second.id, first.id);
    assert.deepEqual(second.kind === "block" && [second.batch, second.part], [5, 0]);
    await answer(first, { id: first.id, ok: false, worker: "fake", code: "INTERNAL", message: "late", details: {} });
    await answer(second, {
      id: second.id,
      ok: false,
      worker: "fake",
      code: "PROOF_JOB_REFUSED",
      message: "worker_delivery_limit: delivered 6 times",
      details: {},
    });
    await failsWith(p, "PROOF_JOB_REFUSED", /worker_delivery_limit/);
    assert.ok(short.stats().broker!.duplicates >= 1, "the late result of the first job was dropped");
  } finally {
    await short.close();
  }
});

test("a result in many chunks is reassembled and used once: a second copy is dropped", { skip }, async () => {
  const p = pool.proveRead("left-pad", ROOT, "v3-zk");
  const job = await nextJob("read");
  assert.equal(job.kind, "read");
  const hex = job.kind === "read" ? job.root : "";
  const proof = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 255);
  const r: JobResult = {
    id: job.id,
    ok: true,
    worker: "fake",
    value: { statement: { name: "left-pad", root: hex }, proveMs: 4 },
    proof,
  };
  await answer(job, r, 700);
  const got = await p;
  assert.deepEqual(got.proof, proof);
  assert.equal(got.zk, true);
  assert.equal(got.statement.name, "left-pad");
  const dropped = pool.stats().broker!.duplicates;
  await answer(job, r, 700);
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(pool.stats().broker!.duplicates > dropped, "the second copy was dropped");
  assert.equal(pool.stats().done.read, 1);
  assert.equal(pool.workers, 1);
});

test("a proof of another name, a refusal and a block part that does not verify are PROOF_JOB_REFUSED; a proof's own error keeps its code", {
  skip,
}, async () => {
  const wrong = failure(pool.proveRead("left-pad", ROOT, "v3"));
  let job = await nextJob("read");
  await answer(job, {
    id: job.id,
    ok: true,
    worker: "fake",
    value: { statement: { name: "other", root: "00".repeat(32) } },
    proof: new Uint8Array(3),
  });
  await failsWith(wrong, "PROOF_JOB_REFUSED", /not of "left-pad"/);

  const refused = failure(pool.proveRead("x", ROOT, "v1"));
  job = await nextJob("read");
  await answer(job, {
    id: job.id,
    ok: false,
    worker: "fake",
    code: "PROOF_JOB_REFUSED",
    message: "job_over_bound: name of 2000 bytes exceeds 1024",
    details: {},
  });
  await failsWith(refused, "PROOF_JOB_REFUSED", /job_over_bound/);

  const unknown = failure(pool.proveRead("y", ROOT, "v3"));
  job = await nextJob("read");
  await answer(job, {
    id: job.id,
    ok: false,
    worker: "fake",
    code: "ROOT_UNKNOWN",
    message: "not a root",
    details: { root: "r" },
  });
  await failsWith(unknown, "ROOT_UNKNOWN", /not a root/);
  assert.equal(((await unknown) as SsgkrError).details.root, "r");

  const block = failure(pool.proveBlockPart(3, 0));
  job = await nextJob("block");
  assert.deepEqual(job.kind === "block" && [job.batch, job.part], [3, 0]);
  const summary = {
    batch: 3,
    profile: "v3",
    operations: 1,
    from_root: "11".repeat(32),
    to_root: "22".repeat(32),
    proof_bytes: 4,
    json_bytes: 2,
  };
  await answer(job, {
    id: job.id,
    ok: true,
    worker: "fake",
    value: { summary, blockJson: "{}", proveMs: 1 },
    proof: new Uint8Array(4),
  });
  await failsWith(block, "PROOF_JOB_REFUSED", /does not verify/);

  const otherPart = failure(pool.proveBlockPart(4, 1));
  job = await nextJob("block");
  await answer(job, {
    id: job.id,
    ok: true,
    worker: "fake",
    value: { summary: { ...summary, batch: 4, part: 0, parts: 2 }, blockJson: "{}" },
    proof: new Uint8Array(4),
  });
  await failsWith(otherPart, "PROOF_JOB_REFUSED", /not 4 part 1/);
  assert.ok(pool.stats().broker!.refused >= 3);
});
