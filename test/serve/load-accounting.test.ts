/**
 * Outcome accounting of `runLoad` against a tiny in-test proof server that answers each job as
 * told: honest replies (proofs made here), server errors, late, missing, duplicate, unknown and
 * bad replies, and a connection that dies mid-run.
 *
 * The expected outcomes do not depend on how fast this machine is: a late reply is sent only once
 * its job's deadline has passed; on-time replies have a deadline far beyond any verification time
 * and runs that expect every job answered get a drain they never wait out (a run ends as soon as
 * nothing is pending); a connection is closed only after the replies before it are written; and
 * where the frontend's view of a close races with its schedule, each job is checked against the
 * rule (written before the close was seen: transport error; offered after: generator failure).
 */
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { corpusRequest } from "../../src/serve/fixtures/corpus.js";
import { VerifyPool } from "../../src/serve/load/verify-pool.js";
import { JobStreamReader } from "../../src/serve/protocol/streams.js";
import { decodeJob, type Job } from "../../src/serve/protocol/job.js";
import { baseReply, encodeReplyFrames, errorReply, sha256Hex } from "../../src/serve/protocol/reply.js";
import { runLoad, type LoadResult } from "../../src/serve/load/load.js";
import { parseLoadOptions } from "../../src/serve/load/options.js";
import { LoadError } from "../../src/serve/load/errors.js";
import { checkReply, precheckReply } from "../../src/serve/load/checker.js";
import { Ledger, type RequestRecord } from "../../src/serve/load/ledger.js";
import { offerAt } from "../../src/serve/load/schedule.js";
import type { OpKindName } from "../../src/statement/types.js";

const DEPTH = 4;
/** A deadline (and a drain) no verification on a loaded machine comes near, ms. */
const NEVER_LATE_MS = 120_000;
const ORIGIN = { hostId: "fake", processId: 1 };
let prepared: PreparedSync;
/** Honest proofs of membership fixtures 0 and 1. */
const proofs: Uint8Array[] = [];

before(() => {
  prepared = prepare("membership", { depth: DEPTH });
  for (const i of [0, 1])
    proofs.push(encodeSyncResult(prepared, provePrepared(prepared, corpusRequest("membership", i, { depth: DEPTH }))));
});

type Action =
  | { readonly type: "good"; readonly times?: number }
  /** An honest reply sent once the job's deadline has passed (plus `afterMs`). */
  | { readonly type: "late"; readonly afterMs: number }
  | { readonly type: "error"; readonly reason: string }
  | { readonly type: "none" }
  | { readonly type: "close" }
  | { readonly type: "unknown" }
  | { readonly type: "bad-hash" }
  | { readonly type: "wrong-proof" };

/** A proof server that answers job i with `plan(i)`. */
async function fakeServer(plan: (jobId: number) => Action): Promise<{ server: Server; port: number; jobs: Job[] }> {
  const jobs: Job[] = [];
  const server = createServer((socket: Socket) => {
    const reader = new JobStreamReader();
    const send = (job: Job, proof: Uint8Array, fields: Parameters<typeof baseReply>[2] = {}) => {
      for (const b of encodeReplyFrames(
        baseReply(job, ORIGIN, {
          encoded_bytes: proof.length,
          canonical_sha256: sha256Hex(proof),
          batch_id: 1n,
          batch_size: 1,
          ...fields,
        }),
        proof,
      ))
        socket.write(b);
    };
    let ended = false;
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => {
      if (ended) return;
      reader.push(chunk);
      for (let body = reader.next(); body !== null; body = reader.next()) {
        const job = decodeJob(body);
        jobs.push(job);
        const proof = proofs[job.fixture_id]!;
        const a = plan(Number(job.job_id));
        switch (a.type) {
          case "good":
            for (let k = 0; k < (a.times ?? 1); k++) send(job, proof);
            break;
          case "late": {
            const waitMs = Number(job.deadline_unix_ns / 1_000_000n) - Date.now() + a.afterMs;
            setTimeout(
              () => {
                if (!socket.destroyed && !ended) send(job, proof);
              },
              Math.max(0, waitMs),
            );
            break;
          }
          case "error":
            for (const b of encodeReplyFrames(errorReply(job, ORIGIN, a.reason), new Uint8Array(0))) socket.write(b);
            break;
          case "none":
            break;
          case "close":
            // after the replies written before it (a FIN, then nothing more is read)
            ended = true;
            socket.end();
            return;
          case "unknown":
            send({ ...job, job_id: 1_000_000n }, proof);
            break;
          case "bad-hash":
            for (const b of encodeReplyFrames(
              baseReply(job, ORIGIN, { encoded_bytes: proof.length, canonical_sha256: "00".repeat(32) }),
              proof,
            ))
              socket.write(b);
            break;
          case "wrong-proof":
            send(job, proofs[1 - job.fixture_id]!);
            break;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0, jobs };
}

function outDir(): string {
  return join(mkdtempSync(join(tmpdir(), "ssgkr-load-")), "out");
}

async function run(
  plan: (i: number) => Action,
  over: Record<string, string>,
): Promise<{ result: LoadResult; records: RequestRecord[]; jobs: Job[] }> {
  const { server, port, jobs } = await fakeServer(plan);
  try {
    const options = parseLoadOptions({
      targets: `127.0.0.1:${port}`,
      depth: String(DEPTH),
      mixture: "membership:1",
      corpus: "2",
      "control-samples": "0",
      "verify-workers": "1",
      rate: "200",
      warmup: "0",
      "deadline-ms": String(NEVER_LATE_MS),
      "drain-ms": String(NEVER_LATE_MS),
      out: outDir(),
      ...over,
    });
    const result = await runLoad(options, { prepared: new Map<OpKindName, PreparedSync>([["membership", prepared]]) });
    const records = readFileSync(result.records, "utf8")
      .trim()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as RequestRecord);
    return { result, records, jobs };
  } finally {
    server.close();
  }
}

/** Every offered job has exactly one record, and the counts add up. */
function assertAccounted(result: LoadResult, records: RequestRecord[]): void {
  const s = result.summary;
  assert.equal(records.length, s.counts.offered);
  assert.equal(new Set(records.map((r) => r.job_id)).size, records.length);
  assert.ok(s.accounting_balanced);
  const c = s.counts;
  assert.equal(
    c.offered,
    c.accepted + c.accepted_late + c.rejected + c.transport_errors + c.generator_failures + c.unresolved_at_drain,
  );
  const byOutcome = (o: string) => records.filter((r) => r.outcome === o).length;
  assert.equal(byOutcome("accepted"), c.accepted);
  assert.equal(byOutcome("accepted_late"), c.accepted_late);
  assert.equal(byOutcome("rejected"), c.rejected);
  assert.equal(byOutcome("transport_error"), c.transport_errors);
  assert.equal(byOutcome("generator_failure"), c.generator_failures);
  assert.equal(byOutcome("unresolved"), c.unresolved_at_drain);
}

test("honest replies with controls: all accepted, outputs written, report has its charts", async () => {
  const { result, records, jobs } = await run(() => ({ type: "good" }), {
    jobs: "6",
    warmup: "2",
    "control-samples": "1",
  });
  const s = result.summary;
  assertAccounted(result, records);
  assert.equal(s.status, "LOAD_OBSERVATIONS_COMPLETE");
  assert.equal(s.controls.status, "CONTROLS_PASS");
  assert.equal(s.controls.references["membership/0"], sha256Hex(proofs[0]!));
  assert.equal(s.planned, 8);
  assert.equal(s.counts.offered, 8);
  assert.equal(s.counts.submitted, 8);
  assert.equal(s.counts.accepted, 8);
  assert.equal(s.timed_counts.accepted, 6);
  assert.equal(s.latency_ms.count, 6);
  for (const th of [250, 500, 1000, 2000]) {
    const n = records.filter((r) => !r.warmup && r.outcome.startsWith("accepted") && r.latency_ns! <= th * 1e6).length;
    assert.equal(s.within_ms[String(th)], n / 6);
  }
  assert.ok(s.latency_ms.p50_ms !== null && s.latency_ms.p99_ms! >= s.latency_ms.p50_ms);
  assert.ok(s.throughput.drained_empty);
  assert.equal(s.server.batches, 1);
  // the jobs on the wire follow the schedule
  assert.deepEqual(
    jobs.map((j) => Number(j.job_id)),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(
    jobs.map((j) => j.fixture_id),
    [0, 1, 0, 1, 0, 1, 0, 1],
  );
  assert.deepEqual(
    jobs.map((j) => j.warmup),
    [true, true, false, false, false, false, false, false],
  );
  assert.ok(
    jobs.every(
      (j) =>
        j.run_id === "pilot" &&
        j.input.kind === "membership" &&
        j.deadline_unix_ns - j.scheduled_unix_ns === BigInt(NEVER_LATE_MS) * 1_000_000n,
    ),
  );
  assert.equal(jobs[1]!.scheduled_unix_ns - jobs[0]!.scheduled_unix_ns, 5_000_000n);
  assert.ok(
    records.every(
      (r) => r.latency_ns !== null && r.latency_ns > 0 && r.verify_ms !== null && r.server?.host_id === "fake",
    ),
  );
  const dir = join(result.summaryPath, "..");
  assert.deepEqual(readdirSync(dir).sort(), ["records.ndjson", "report.html", "summary.json"]);
  const html = readFileSync(result.reportPath, "utf8");
  assert.match(html, /<canvas id="cdf">/);
  assert.match(html, /LOAD_OBSERVATIONS_COMPLETE/);
  assert.ok(html.length > 100_000, "chart.js is inlined");
  assert.equal(JSON.parse(readFileSync(result.summaryPath, "utf8")).counts.accepted, 8);
});

test("server errors, late, missing and on-time replies are kept apart", async () => {
  // Deadline D: on-time replies are sent at once and verified well within D (seconds of slack on
  // a loaded machine), the late one once D has passed; the drain outlasts the late reply's
  // verification by seconds and then ends the missing job as unresolved.
  const deadlineMs = 6000;
  const plan = (i: number): Action =>
    i === 1
      ? { type: "error", reason: "server_total_queue_full" }
      : i === 2
        ? { type: "late", afterMs: 100 }
        : i === 3
          ? { type: "none" }
          : { type: "good" };
  const { result, records } = await run(plan, {
    jobs: "5",
    rate: "100",
    "deadline-ms": String(deadlineMs),
    "drain-ms": String(2 * deadlineMs),
  });
  const c = result.summary.counts;
  assertAccounted(result, records);
  assert.equal(result.summary.status, "LOAD_OBSERVATIONS_COMPLETE");
  assert.equal(c.accepted, 2);
  assert.equal(c.accepted_late, 1);
  assert.equal(c.rejected, 1);
  assert.equal(c.rejected_server_error, 1);
  assert.equal(c.rejected_check, 0);
  assert.equal(c.unresolved_at_drain, 1);
  assert.equal(c.deadline_events, 2, "the late job and the missing one");
  assert.equal(c.transport_errors + c.generator_failures + c.unknown_responses + c.duplicate_responses, 0);
  const r = (id: number) => records.find((x) => x.job_id === id)!;
  assert.equal(r(1).outcome, "rejected");
  assert.equal(r(1).reason, "server_error: server_total_queue_full");
  assert.equal(r(2).outcome, "accepted_late");
  assert.ok(r(2).deadline_event && r(2).latency_ns! > deadlineMs * 1e6);
  for (const id of [0, 4]) assert.ok(!r(id).deadline_event && r(id).latency_ns! <= deadlineMs * 1e6);
  assert.equal(r(3).outcome, "unresolved");
  assert.ok(r(3).deadline_event);
  assert.ok(!result.summary.throughput.drained_empty);
  assert.deepEqual(result.summary.rejections_by_reason, { "server_error: server_total_queue_full": 1 });
});

for (const [name, action, check] of [
  [
    "a duplicate reply",
    { type: "good", times: 2 },
    (c: Record<string, number>) => assert.equal(c["duplicate_responses"], 1),
  ],
  ["an unknown reply", { type: "unknown" }, (c: Record<string, number>) => assert.equal(c["unknown_responses"], 1)],
  [
    "a reply whose bytes do not hash to canonical_sha256",
    { type: "bad-hash" },
    (c: Record<string, number>) => assert.equal(c["rejected_check"], 1),
  ],
  [
    "a proof for another request",
    { type: "wrong-proof" },
    (c: Record<string, number>) => assert.equal(c["rejected_check"], 1),
  ],
] as const) {
  test(`${name} trips the semantic guard and stops generation`, async () => {
    const { result, records } = await run((i) => (i === 1 ? action : { type: "good" }), {
      jobs: "200",
      rate: "20",
      "drain-ms": "2000",
    });
    const s = result.summary;
    assertAccounted(result, records);
    assert.equal(s.status, "FAIL_SEMANTIC_GUARD");
    assert.ok(s.guard.tripped && s.guard.reason !== null);
    assert.ok(s.counts.offered < s.planned, `generation stopped (${s.counts.offered} of ${s.planned} offered)`);
    check(s.counts as unknown as Record<string, number>);
  });
}

test("a connection that dies mid-run: transport errors, then closed-queue generator failures; the run finishes", async () => {
  const jobs = 40;
  const { result, records } = await run(
    (i) => (i === 3 ? { type: "close" } : i === 2 ? { type: "none" } : { type: "good" }),
    { jobs: String(jobs), rate: "50" },
  );
  const s = result.summary;
  assertAccounted(result, records);
  assert.equal(s.status, "LOAD_OBSERVATIONS_COMPLETE");
  assert.equal(s.counts.offered, jobs);
  assert.equal(s.counts.accepted, 2, "jobs 0 and 1 were answered before the close");
  assert.equal(s.generator.closed_targets.length, 1);
  // µs resolution in the summary
  const closedAt = s.generator.closed_targets[0]!.offset_ms * 1e6;
  const slack = 1000;
  const byId = [...records].sort((a, b) => a.job_id - b.job_id);
  assert.deepEqual(
    byId.slice(0, 2).map((r) => r.outcome),
    ["accepted", "accepted"],
  );
  // jobs 2 and 3 were pending on the connection; a later job is a transport error if it was
  // written before the frontend saw the close, else a generator failure (closed sender queue)
  const after = byId.slice(2);
  for (const r of after) {
    if (r.submitted_offset_ns !== null) {
      assert.equal(r.outcome, "transport_error", `job ${r.job_id}`);
      assert.equal(r.reason, "transport: the server closed the connection");
      assert.ok(r.submitted_offset_ns <= closedAt + slack, `job ${r.job_id} written before the close was seen`);
    } else {
      assert.equal(r.outcome, "generator_failure", `job ${r.job_id}`);
      assert.equal(r.reason, "frontend_sender_queue_full_or_closed");
      assert.ok(r.completion_offset_ns >= closedAt - slack, `job ${r.job_id} offered after the close was seen`);
    }
  }
  const written = after.filter((r) => r.submitted_offset_ns !== null).map((r) => r.job_id);
  assert.ok(written.includes(2) && written.includes(3), "jobs 2 and 3 were pending on the dead connection");
  assert.deepEqual(
    written,
    after.slice(0, written.length).map((r) => r.job_id),
    "the transport errors are the jobs before the close, the failures those after",
  );
  assert.ok(written.length < after.length, "jobs offered after the close fail without being sent");
  assert.equal(s.counts.transport_errors, written.length);
  assert.equal(s.counts.frontend_sender_queue_full_or_closed, after.length - written.length);
  assert.equal(s.counts.generator_failures, after.length - written.length);
});

test("a full pending map is a recorded generator failure, not less load", async () => {
  const { result, records } = await run(() => ({ type: "none" }), { jobs: "6", "max-pending": "2", "drain-ms": "200" });
  const s = result.summary;
  assertAccounted(result, records);
  assert.equal(s.counts.offered, 6);
  assert.equal(s.counts.submitted, 2);
  assert.equal(s.counts.frontend_max_pending, 4);
  assert.equal(s.counts.unresolved_at_drain, 2);
});

test("an existing --out and an unreachable target are refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-load-"));
  await assert.rejects(
    runLoad(parseLoadOptions({ out: dir, depth: "4", corpus: "2" })),
    (e: unknown) => e instanceof LoadError && e.code === "OUT_EXISTS",
  );
  const { server, port } = await fakeServer(() => ({ type: "none" }));
  server.close();
  await new Promise((r) => setTimeout(r, 50));
  await assert.rejects(
    runLoad(
      parseLoadOptions({
        out: outDir(),
        depth: "4",
        corpus: "2",
        mixture: "membership:1",
        "control-samples": "0",
        "verify-workers": "1",
        targets: `127.0.0.1:${port}`,
      }),
      { prepared: new Map([["membership", prepared]]) },
    ),
    (e: unknown) => e instanceof LoadError && e.code === "CONNECT",
  );
});

test("acceptance checks: binding, hash, control reference, strict verification in the pool", async () => {
  const request = corpusRequest("membership", 0, { depth: DEPTH });
  const job = { kind: "membership" as const, fixtureId: 0, request };
  const reply = baseReply(
    { run_id: "r", job_id: 0n, fixture_id: 0, input: { kind: "membership" } } as unknown as Job,
    ORIGIN,
    { encoded_bytes: proofs[0]!.length, canonical_sha256: sha256Hex(proofs[0]!) },
  );
  const none = new Map<string, string>();
  assert.equal(precheckReply(reply, proofs[0]!, job, "r", none), null);
  assert.match(precheckReply({ ...reply, run_id: "x" }, proofs[0]!, job, "r", none)!, /^binding: run_id/);
  assert.match(precheckReply({ ...reply, protocol: 2 }, proofs[0]!, job, "r", none)!, /^binding: protocol/);
  assert.match(precheckReply({ ...reply, fixture_id: 1 }, proofs[0]!, job, "r", none)!, /^binding: fixture_id/);
  assert.match(precheckReply({ ...reply, kind: "update" }, proofs[0]!, job, "r", none)!, /^binding: kind/);
  assert.match(
    precheckReply({ ...reply, error: "server_stopping" }, proofs[0]!, job, "r", none)!,
    /^server_error: server_stopping/,
  );
  assert.match(precheckReply(reply, proofs[1]!, job, "r", none)!, /^sha256_mismatch/);
  assert.match(
    precheckReply(reply, proofs[0]!, job, "r", new Map([["membership/0", "ab".repeat(32)]]))!,
    /^control_hash_mismatch/,
  );
  const pool = new VerifyPool(1);
  try {
    assert.deepEqual((await checkReply(pool, prepared, reply, proofs[0]!, job, "r", none)).ok, true);
    const other = { ...reply, canonical_sha256: sha256Hex(proofs[1]!), encoded_bytes: proofs[1]!.length };
    const v = await checkReply(pool, prepared, other, proofs[1]!, job, "r", none);
    assert.equal(v.ok, false);
    assert.match((v as { reason: string }).reason, /^verify: /);
    // the pool's verdicts are those of verifyEncoded on this thread, with attach done up front
    assert.equal((await pool.attach([prepared])).length, 1);
    for (const bytes of [proofs[0]!.subarray(0, 100), proofs[0]!.subarray(0, 10), proofs[1]!]) {
      const local = verifyEncoded(prepared, request, bytes);
      const remote = await pool.verify(prepared, request, bytes);
      assert.ok(!local.ok && remote.ok && !remote.accepted && remote.code === local.code, local.ok ? "" : local.code);
    }
    const ok = await pool.verify(prepared, request, proofs[0]!);
    assert.ok(ok.ok && ok.accepted && ok.code === null);
  } finally {
    await pool.close();
  }
});

test("ledger: unknown vs duplicate replies, one record per offer", () => {
  const records: RequestRecord[] = [];
  const l = new Ledger({
    runId: "r",
    repeat: 1,
    startUnixNs: 10n ** 18n,
    targetNames: ["t"],
    onRecord: (r) => records.push(r),
  });
  const spec = {
    rate: 10,
    jobs: 4,
    warmupJobs: 1,
    mixture: ["membership"] as const,
    corpus: 3,
    targets: 1,
    deadlineMs: 100,
  };
  const offers = [0, 1, 2, 3, 4].map((i) => offerAt({ ...spec, mixture: [...spec.mixture] }, i));
  for (const o of offers) l.offered(o);
  const jobs = offers.slice(0, 4).map((o) => l.admit(o));
  l.generatorFailure(offers[4]!, "frontend_max_pending", 5);
  for (const j of jobs.slice(0, 3)) l.submitted(j, 1);
  assert.equal(l.matchReply(4, 2).kind, "unknown", "a job never sent");
  assert.equal(l.matchReply(99, 2).kind, "unknown", "a job never offered");
  const m = l.matchReply(0, 3);
  assert.equal(m.kind, "pending");
  assert.equal(l.matchReply(0, 4).kind, "duplicate", "a second reply while verifying");
  l.accept(jobs[0]!, 50e6);
  assert.equal(l.matchReply(0, 5).kind, "duplicate", "a reply after acceptance");
  // deadlines at 100, 200, 300, 400 ms; job 0 is already final
  assert.equal(l.scanDeadlines(350e6), 2);
  assert.equal(l.scanDeadlines(360e6), 0, "each deadline event once");
  l.transportError(jobs[1]!, "transport: gone", 370e6);
  l.reject(jobs[2]!, "sha256_mismatch: x", 380e6);
  assert.equal(l.scanDeadlines(500e6), 1);
  l.drainEnded(600e6);
  assert.equal(records.length, 5);
  assert.deepEqual(records.map((r) => r.outcome).sort(), [
    "accepted",
    "generator_failure",
    "rejected",
    "transport_error",
    "unresolved",
  ]);
  assert.ok(l.balanced(l.all) && l.balanced(l.timed));
  assert.equal(l.unknownResponses, 2);
  assert.equal(l.duplicateResponses, 2);
  assert.equal(l.all.deadline_events, 3);
  assert.equal(l.timed.offered, 4);
  assert.equal(l.all.accepted, 1);
  assert.equal(l.timed.accepted, 0, "job 0 was warmup");
  assert.equal(records.find((r) => r.job_id === 0)!.scheduled_unix_ns, (10n ** 18n).toString());
  assert.ok(l.guard !== null);
});
