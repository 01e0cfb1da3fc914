/**
 * The return path both transports share (`ReplyReturn`): reply building and encoding, the
 * overlapped return queue bound, the serial path's waits, back-pressure on a destination's
 * backlog, and the counters — against scripted destinations.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { Job } from "../../src/serve/protocol/job.js";
import { ReplyStreamReader } from "../../src/serve/protocol/streams.js";
import { sha256Hex, type Reply } from "../../src/serve/protocol/reply.js";
import type { BatchSlot } from "../../src/serve/server/batch-reply.js";
import { ReplyReturn, type ReplyDestination, type ReturnItem } from "../../src/serve/server/return-path.js";

const ORIGIN = { hostId: "h", processId: 7 };
const TIMES = {
  flushUnixNs: 10n,
  witnessEndUnixNs: 20n,
  proveEndUnixNs: 30n,
  encodeEndUnixNs: 40n,
  witnessNs: 10n,
  proveNs: 10n,
  encodeNs: 10n,
};

function slot(jobId: number, ok = true): BatchSlot {
  const job = {
    protocol: 1,
    run_id: "r",
    job_id: BigInt(jobId),
    fixture_id: 0,
    repeat: 1,
    warmup: false,
    scheduled_unix_ns: 1n,
    deadline_unix_ns: 2n,
    input: { kind: "membership" },
  } as unknown as Job;
  return {
    job,
    result: ok ? { ok: true, bytes: new Uint8Array([jobId, 1, 2, 3]) } : { ok: false, error: "prove: boom" },
    batchId: 3n,
    batchSize: 2,
    times: TIMES,
    receivedNs: 5n,
    enqueuedNs: 6n,
    queueNs: 4n,
  };
}

/** A destination whose sends settle when the test says so; records what it was handed. */
class ScriptedDestination implements ReplyDestination {
  backlog = 0;
  readonly sent: { reply: Reply; bytes: Buffer }[] = [];
  private readonly settle: ((ok: boolean) => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  drained(): Promise<void> {
    return new Promise((r) => this.drainWaiters.push(r));
  }
  send(frames: readonly Buffer[], reply: Reply): Promise<boolean> {
    this.sent.push({ reply, bytes: Buffer.concat(frames) });
    return new Promise((r) => this.settle.push(r));
  }
  settleNext(ok = true): void {
    this.settle.shift()!(ok);
  }
  drain(): void {
    this.backlog = 0;
    for (const w of this.drainWaiters.splice(0)) w();
  }
  get waitingForDrain(): number {
    return this.drainWaiters.length;
  }
}

async function settleLoop(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await yieldToLoop();
}

test("replies are built, hashed and framed as protocol 1; proof and error replies counted", async () => {
  const dest = new ScriptedDestination();
  const rr = new ReplyReturn("overlapped", 2, ORIGIN, () => undefined);
  await rr.hand([
    { slot: slot(1), dest },
    { slot: slot(2, false), dest },
  ]);
  await rr.handedOver();
  assert.equal(dest.sent.length, 2);
  const reader = new ReplyStreamReader();
  reader.push(dest.sent[0]!.bytes);
  const m = reader.next()!;
  assert.equal(m.reply.job_id, 1n);
  assert.equal(m.reply.canonical_sha256, sha256Hex(new Uint8Array([1, 1, 2, 3])));
  assert.deepEqual([...m.proof], [1, 1, 2, 3]);
  assert.equal(m.reply.batch_id, 3n);
  assert.equal(m.reply.error, null);
  assert.equal(dest.sent[1]!.reply.error, "prove: boom");
  assert.equal(rr.counts.proofReplies, 1);
  assert.equal(rr.counts.batchErrors, 1);
  dest.settleNext(true);
  dest.settleNext(false);
  await rr.settled();
  assert.equal(rr.counts.undelivered, 1, "a send reported lost");
});

test("overlapped: at most queueBatches batches wait; a batch leaves once handed over, not once written", async () => {
  const dest = new ScriptedDestination();
  let rooms = 0;
  const rr = new ReplyReturn("overlapped", 1, ORIGIN, () => rooms++);
  assert.ok(rr.hasRoom);
  dest.backlog = Number.MAX_SAFE_INTEGER; // the first reply waits for a drain
  await rr.hand([
    { slot: slot(1), dest },
    { slot: slot(2), dest },
  ]);
  await settleLoop();
  assert.equal(rr.hasRoom, false, "one batch queued fills a one-batch queue");
  assert.equal(dest.waitingForDrain, 1, "delivery waits while the destination's backlog is over the bound");
  assert.equal(dest.sent.length, 0);
  dest.drain();
  await rr.handedOver();
  assert.equal(dest.sent.length, 2);
  assert.ok(rr.hasRoom, "room again although no send has settled");
  assert.equal(rooms, 1);
  dest.settleNext();
  dest.settleNext();
  await rr.settled();
  assert.equal(rr.counts.undelivered, 0);
});

test("serial: each reply is written before the next is handed over, and hand() waits for the last", async () => {
  const dest = new ScriptedDestination();
  const rr = new ReplyReturn("serial", 1, ORIGIN, () => assert.fail("serial has no return queue"));
  let done = false;
  const items: ReturnItem[] = [
    { slot: slot(1), dest },
    { slot: slot(2), dest },
  ];
  const handing = rr.hand(items).then(() => (done = true));
  await settleLoop();
  assert.ok(rr.hasRoom);
  assert.equal(dest.sent.length, 1, "the second waits for the first write");
  dest.settleNext();
  await settleLoop();
  assert.equal(dest.sent.length, 2);
  assert.equal(done, false);
  dest.settleNext();
  await handing;
  assert.ok(done);
  assert.equal(rr.counts.proofReplies, 2);
});

test("a destination under the bound is not waited for; the bound is per call", async () => {
  const dest = new ScriptedDestination();
  const rr = new ReplyReturn("overlapped", 2, ORIGIN, () => undefined, 100);
  dest.backlog = 100;
  await rr.hand([{ slot: slot(1), dest }]);
  await rr.handedOver();
  assert.equal(dest.sent.length, 1, "at the bound: sent");
  dest.backlog = 101;
  await rr.hand([{ slot: slot(2), dest }]);
  await settleLoop();
  assert.equal(dest.sent.length, 1, "over the bound: waits");
  dest.drain();
  await rr.handedOver();
  assert.equal(dest.sent.length, 2);
  dest.settleNext();
  dest.settleNext();
  await rr.settled();
});
