import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { connect, type Socket } from "node:net";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { OP_KIND_NAMES, type OpKind, type OpKindTag } from "../../src/statement/types.js";
import {
  encodeJobFrame,
  inputFromRequest,
  ReplyStreamReader,
  sha256Hex,
  type Job,
  type ReplyMessage,
} from "../../src/serve/protocol/index.js";
import {
  KindQueues,
  ProofServer,
  serverOptions,
  splitPhases,
  parseListen,
  ServerError,
  type ServerOptions,
} from "../../src/serve/server/index.js";

const DEPTH = 4;

interface Item {
  kind: OpKind;
  admittedNs: bigint;
  id: number;
}

test("KindQueues: ready on batch-max or max-wait, oldest ready head first, min(len, batch-max) taken", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 50 }),
      fc.array(fc.record({ kind: fc.integer({ min: 0, max: 2 }), dt: fc.integer({ min: 0, max: 20 }) }), {
        maxLength: 30,
      }),
      fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 10 }),
      (batchMax, maxWait, arrivals, probes) => {
        const q = new KindQueues<Item>(batchMax, BigInt(maxWait));
        const model: Item[][] = [[], [], []];
        let t = 0n;
        arrivals.forEach((a, id) => {
          t += BigInt(a.dt);
          const item = { kind: OP_KIND_NAMES[a.kind]!, admittedNs: t, id };
          q.push(item);
          model[a.kind]!.push(item);
        });
        assert.equal(q.size, arrivals.length);
        for (const extra of probes) {
          const now = t + BigInt(extra);
          const ready = [0, 1, 2].filter(
            (k) =>
              model[k]!.length > 0 &&
              (model[k]!.length >= batchMax || now - model[k]![0]!.admittedNs >= BigInt(maxWait)),
          );
          const expected =
            ready.length === 0
              ? -1
              : ready.reduce((a, b) => (model[b]![0]!.admittedNs < model[a]![0]!.admittedNs ? b : a));
          assert.equal(q.readyKind(now), expected);
          const until = q.nsUntilReady(now);
          if (model.every((m) => m.length === 0)) assert.equal(until, -1n);
          else assert.equal(until === 0n, expected >= 0);
          if (expected >= 0) {
            const taken = q.take(expected);
            const want = model[expected]!.splice(0, Math.min(model[expected]!.length, batchMax));
            assert.deepEqual(
              taken.map((x) => x.id),
              want.map((x) => x.id),
            );
          }
        }
        assert.equal(
          q.size,
          model.reduce((s, m) => s + m.length, 0),
        );
        assert.deepEqual(
          q.drainAll().map((x) => x.id),
          [...model[0]!, ...model[1]!, ...model[2]!].map((x) => x.id),
        );
        assert.equal(q.size, 0);
      },
    ),
    { numRuns: 300 },
  );
});

test("splitPhases: three non-negative parts that sum to the total", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 10n ** 12n }),
      fc.double({ min: 0, max: 1e4, noNaN: true }),
      fc.double({ min: 0, max: 1e4, noNaN: true }),
      fc.double({ min: 0, max: 1e4, noNaN: true }),
      (total, w, p, e) => {
        const [a, b, c] = splitPhases(total, w, p, e);
        assert.ok(a >= 0n && b >= 0n && c >= 0n);
        assert.equal(a + b + c, total);
      },
    ),
    { numRuns: 300 },
  );
});

test("options: defaults of §16.4 (workers = cores), ranges refused with the option's name", () => {
  const o = serverOptions({});
  assert.equal(o.batchMax, 96);
  assert.equal(o.maxWaitUs, 1000);
  assert.equal(o.maxQueue, 8192);
  assert.equal(o.runMs, 600000);
  assert.equal(o.ioTimeoutMs, 5000);
  assert.equal(o.depth, 24);
  assert.equal(o.controlSamples, 2);
  assert.equal(o.port, 9400);
  assert.equal(o.returnPath, "overlapped");
  for (const bad of [
    { depth: 33 },
    { depth: 0 },
    { batchMax: 0 },
    { maxQueue: 0 },
    { workers: 0 },
    { runMs: 0 },
    { controlSamples: 2, depth: 1 },
    { returnPath: "x" as never },
  ]) {
    assert.throws(
      () => serverOptions(bad),
      (e: unknown) => e instanceof ServerError && e.code === "BAD_OPTION",
    );
  }
  assert.deepEqual(parseListen("127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListen("[::1]:9400"), { host: "::1", port: 9400 });
  assert.throws(() => parseListen("localhost"), ServerError);
  assert.throws(() => parseListen("h:70000"), ServerError);
});

function job(kind: number, fixture: number, jobId: number): Job {
  return {
    protocol: 1,
    run_id: "queue-test",
    job_id: BigInt(jobId),
    fixture_id: fixture,
    repeat: 1,
    warmup: false,
    scheduled_unix_ns: 0n,
    deadline_unix_ns: 0n,
    input: inputFromRequest(corpusRequest(kind as OpKindTag, fixture, { depth: DEPTH })),
  };
}

async function withServer(
  opts: Partial<ServerOptions>,
  body: (server: ProofServer, port: number) => Promise<void>,
): Promise<void> {
  const server = new ProofServer({ host: "127.0.0.1", port: 0, depth: DEPTH, workers: 1, controlSamples: 0, ...opts });
  const ready = await server.start();
  try {
    await body(server, ready.port);
  } finally {
    await server.stop();
  }
}

function collect(port: number, frames: Buffer, n: number): Promise<{ socket: Socket; replies: ReplyMessage[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const reader = new ReplyStreamReader();
    const replies: ReplyMessage[] = [];
    socket.on("data", (c) => {
      reader.push(c);
      for (let m = reader.next(); m !== null; m = reader.next()) replies.push(m);
      if (replies.length >= n) resolve({ socket, replies });
    });
    socket.on("error", reject);
    socket.on("close", () =>
      replies.length >= n
        ? resolve({ socket, replies })
        : reject(new Error(`closed after ${replies.length} of ${n} replies`)),
    );
    socket.write(frames);
  });
}

test("a full queue refuses with server_total_queue_full; the run limit refuses the queued jobs with server_run_limit_before_compute", async () => {
  const server = new ProofServer({
    host: "127.0.0.1",
    port: 0,
    depth: DEPTH,
    workers: 1,
    controlSamples: 0,
    maxQueue: 3,
    batchMax: 50,
    maxWaitUs: 600_000_000,
    runMs: 1500,
  });
  const { port } = await server.start();
  const frames = Buffer.concat([0, 1, 2, 0, 1, 2].map((k, i) => encodeJobFrame(job(k, i, i))));
  const { socket, replies } = await collect(port, frames, 6);
  const first = replies.slice(0, 3);
  assert.deepEqual(
    first.map((r) => r.reply.error),
    ["server_total_queue_full", "server_total_queue_full", "server_total_queue_full"],
  );
  assert.deepEqual(
    first.map((r) => r.reply.job_id),
    [3n, 4n, 5n],
  );
  for (const r of first) {
    assert.ok(
      r.reply.server_enqueued_unix_ns >= r.reply.server_received_unix_ns && r.reply.server_received_unix_ns > 0n,
    );
    assert.ok(r.reply.server_send_start_unix_ns >= r.reply.server_enqueued_unix_ns);
  }
  const last = replies.slice(3);
  assert.deepEqual(
    last.map((r) => r.reply.error),
    ["server_run_limit_before_compute", "server_run_limit_before_compute", "server_run_limit_before_compute"],
  );
  assert.deepEqual(last.map((r) => r.reply.job_id).sort(), [0n, 1n, 2n]);
  const s = await server.done;
  assert.equal(s.reason, "run_limit");
  assert.equal(s.unprocessedJobs, 3);
  assert.equal(s.processedJobs, 0);
  assert.equal(s.stats.refusals.server_total_queue_full, 3);
  assert.equal(s.stats.refusals.server_run_limit_before_compute, 3);
  socket.destroy();
});

test("stop() refuses queued jobs with server_stopping and closes the connections", async () => {
  const server = new ProofServer({
    host: "127.0.0.1",
    port: 0,
    depth: DEPTH,
    workers: 1,
    controlSamples: 0,
    batchMax: 50,
    maxWaitUs: 600_000_000,
  });
  const { port } = await server.start();
  const socket = connect(port, "127.0.0.1");
  const reader = new ReplyStreamReader();
  const replies: ReplyMessage[] = [];
  const closed = new Promise<void>((r) => socket.on("close", () => r()));
  socket.on("data", (c) => {
    reader.push(c);
    for (let m = reader.next(); m !== null; m = reader.next()) replies.push(m);
  });
  socket.write(Buffer.concat([encodeJobFrame(job(0, 0, 10)), encodeJobFrame(job(2, 1, 11))]));
  while (server.stats().queued < 2) await new Promise((r) => setTimeout(r, 5));
  const s = await server.stop();
  await closed;
  assert.deepEqual(
    replies.map((r) => r.reply.error),
    ["server_stopping", "server_stopping"],
  );
  assert.equal(s.reason, "stopped");
  assert.equal(s.unprocessedJobs, 2);
  assert.equal(s.stats.refusals.server_stopping, 2);
  assert.equal(server.stats().openConnections, 0);
});

for (const returnPath of ["serial", "overlapped"] as const) {
  test(`${returnPath} return path: every job gets its proof; batches of at most batch-max`, async () => {
    await withServer(
      { returnPath, batchMax: 2, maxWaitUs: 0, returnQueueBatches: 1, workers: 2 },
      async (server, port) => {
        const jobs = [job(1, 0, 1), job(1, 1, 2), job(1, 2, 3), job(0, 0, 4), job(2, 0, 5)];
        const { socket, replies } = await collect(port, Buffer.concat(jobs.map(encodeJobFrame)), jobs.length);
        assert.equal(replies.length, jobs.length);
        for (const { reply, proof } of replies) {
          assert.equal(reply.error, null);
          assert.equal(reply.canonical_sha256, sha256Hex(proof));
          assert.ok(reply.batch_size >= 1 && reply.batch_size <= 2);
        }
        assert.deepEqual(
          replies.map((r) => r.reply.job_id).sort((a, b) => Number(a - b)),
          [1n, 2n, 3n, 4n, 5n],
        );
        const st = server.stats();
        assert.equal(st.processed, 5);
        assert.ok(st.batches >= 3);
        socket.destroy();
      },
    );
  });
}

test("a peer that never reads its replies is paused, then dropped after the I/O timeout; others are still served", async () => {
  await withServer({ ioTimeoutMs: 300, maxWaitUs: 0 }, async (server, port) => {
    const bad = job(0, 0, 0);
    const frames: Buffer[] = [];
    for (let i = 0; i < 30000; i++)
      frames.push(encodeJobFrame({ ...bad, job_id: BigInt(i), input: { ...bad.input, key: 1000n } }));
    const flood = connect(port, "127.0.0.1");
    flood.pause();
    const floodClosed = new Promise<void>((r) => flood.on("close", () => r()));
    flood.on("error", () => {});
    flood.write(Buffer.concat(frames));
    await floodClosed;
    const st = server.stats();
    assert.equal(st.closes.write_stall, 1);
    assert.ok(st.inputErrors < 30000, "reading paused before every frame was read");
    const { socket, replies } = await collect(port, encodeJobFrame(job(1, 3, 7)), 1);
    assert.equal(replies[0]!.reply.error, null);
    socket.destroy();
  });
});
