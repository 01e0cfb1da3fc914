import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { prepare, type PreparedSync } from "../../src/sync/prepared.js";
import { proveBatchSequential } from "../../src/sync/batch.js";
import { encodeSyncResult, verifyEncoded } from "../../src/sync/encoded.js";
import { corpus } from "../../src/serve/fixtures/corpus.js";
import { OpKind } from "../../src/statement/types.js";
import { createSyncPool, type ProveOutcome, type SyncPool } from "../../src/sync/parallel/pool.js";
import { proveBatch, verifyBatch } from "../../src/sync/parallel/batch.js";
import { JobError, ParallelError } from "../../src/sync/parallel/errors.js";
import { SyncError } from "../../src/statement/errors.js";
import type { OpRequest } from "../../src/smt/operation.js";

const DEPTH = 3;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;
const PER_KIND = 2;

interface KindSetup {
  readonly prepared: PreparedSync;
  readonly jobs: OpRequest[];
  /** Sequential reference bytes, one per job. */
  readonly bytes: Uint8Array[];
}

const setups = new Map<OpKind, KindSetup>();
function setup(kind: OpKind): KindSetup {
  let s = setups.get(kind);
  if (!s) {
    const prepared = prepare(kind, { depth: DEPTH });
    const jobs: OpRequest[] = corpus(kind, PER_KIND, { depth: DEPTH });
    const bytes = proveBatchSequential(prepared, jobs).map((o) => {
      assert.ok(o.ok);
      return encodeSyncResult(prepared, o.result);
    });
    s = { prepared, jobs, bytes };
    setups.set(kind, s);
  }
  return s;
}

const pools: SyncPool[] = [];
function pool(workers: number): SyncPool {
  const p = createSyncPool({ workers });
  pools.push(p);
  return p;
}
after(() => Promise.all(pools.map((p) => p.close())));

function assertSameBytes(outcomes: readonly ProveOutcome[], expected: readonly Uint8Array[], label: string): void {
  assert.equal(outcomes.length, expected.length);
  outcomes.forEach((o, i) => {
    assert.equal(o.index, i, `${label}: outcome ${i} is in input order`);
    assert.ok(o.ok, `${label}: job ${i} failed: ${o.ok ? "" : o.error.message}`);
    assert.deepEqual(o.bytes, expected[i], `${label}: job ${i} bytes`);
  });
}

const two = pool(2);

test("parallel proofs are byte-identical to the sequential path for 1 and 2 workers, in input order", async () => {
  const one = pool(1);
  for (const p of [one, two]) {
    // One batch per kind, submitted together: they share the pool's workers.
    const results = await Promise.all(KINDS.map((k) => p.proveBatch(setup(k).prepared, setup(k).jobs)));
    KINDS.forEach((k, i) => assertSameBytes(results[i]!, setup(k).bytes, `${p.size} workers, kind ${k}`));
    for (const outcomes of results)
      for (const o of outcomes) if (o.ok) assert.ok(o.timings.proveMs > 0 && o.timings.witnessMs >= 0);
  }
  // A reversed batch comes back reversed: outcomes follow the input, not completion order.
  const { prepared, jobs, bytes } = setup(OpKind.Update);
  assertSameBytes(await two.proveBatch(prepared, [...jobs].reverse()), [...bytes].reverse(), "reversed");
  assert.equal(two.stats().prepared, 3);
  assert.equal(two.stats().respawns, 0);
  await one.close();
});

test("failing jobs are reported with their index and code; the other jobs and the pool are unaffected", async () => {
  const { prepared, jobs, bytes } = setup(OpKind.Membership);
  const good = jobs[0]!;
  const shortPath: OpRequest = { ...good, witness: { ...good.witness, siblings: good.witness.siblings.slice(1) } };
  const otherKind = setup(OpKind.NonMembership).jobs[0]!;
  // Not representable in the binary form (1.5 is no u32): sent by structured clone, fails like the sequential path.
  const oddPayload: OpRequest = {
    ...good,
    witness: { ...good.witness, leaf: { tag: 1, payload: [1.5], identity: new Uint8Array(32) } as never },
  };
  // Neither binary (1.5) nor cloneable (a function).
  const uncloneable = { ...oddPayload, extra: () => 0 } as unknown as OpRequest;
  const batch = [shortPath, good, otherKind, uncloneable, oddPayload, null as unknown as OpRequest];
  const outcomes = await two.proveBatch(prepared, batch);
  const sequential = proveBatchSequential(prepared, batch);
  assert.deepEqual(
    outcomes.map((o) => o.index),
    [0, 1, 2, 3, 4, 5],
  );
  const codes = outcomes.map((o) => (o.ok ? "ok" : o.error.code));
  assert.deepEqual(codes, ["WITNESS", "ok", "WRONG_KIND", "JOB_ENCODING", "WITNESS", "WRONG_KIND"]);
  for (const i of [0, 2, 4, 5]) {
    const o = outcomes[i]!,
      s = sequential[i]!;
    assert.ok(!o.ok && !s.ok);
    assert.ok(o.error instanceof JobError);
    assert.equal(o.error.code, (s.error as SyncError).code);
    assert.equal(o.error.message, s.error.message);
    assert.equal(o.error.details["origin"], "SyncError");
    assert.equal(o.error.details["index"], i);
  }
  assert.ok(outcomes[1]!.ok && sequential[1]!.ok);
  assert.deepEqual(outcomes[1]!.ok && outcomes[1]!.bytes, bytes[0]);
  assert.deepEqual(await two.proveBatch(prepared, []), []);
});

test("a circuit the workers cannot attach fails its jobs with the attach error; the pool keeps serving", async () => {
  const { prepared, jobs, bytes } = setup(OpKind.NonMembership);
  const layers = prepared.circuit.layers.map((l, i) =>
    i === 0 ? { ...l, gateCoeff: l.gateCoeff.map(() => 0xffffffff) } : l,
  );
  const circuit = { ...prepared.circuit, layers };
  const broken = { ...prepared, circuit, compiled: { ...prepared.compiled, circuit } } as PreparedSync;
  const outcomes = await two.proveBatch(broken, jobs);
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? "ok" : `${o.error.details["origin"]} ${o.error.code}`)),
    ["CircuitError NON_CANONICAL_COEFF", "CircuitError NON_CANONICAL_COEFF"],
  );
  assertSameBytes(await two.proveBatch(prepared, jobs), bytes, "after the failed attach");
  assert.equal(two.stats().respawns, 0);
  two.release(broken);
  assert.equal(two.stats().prepared, 3);
});

test("verifyBatch agrees with verifyEncoded on honest, tampered and mismatched items", async () => {
  const { prepared, jobs, bytes } = setup(OpKind.Update);
  const flipped = bytes[0]!.slice();
  flipped[200]! ^= 1;
  const items = [
    { request: jobs[0]!, bytes: bytes[0]! },
    { request: jobs[1]!, bytes: bytes[1]! },
    { request: jobs[1]!, bytes: bytes[0]! },
    { request: jobs[0]!, bytes: flipped },
    { request: jobs[0]!, bytes: Uint8Array.from([...bytes[0]!, 0]) },
    { request: jobs[0]!, bytes: setup(OpKind.Membership).bytes[0]! },
    { request: setup(OpKind.Membership).jobs[0]!, bytes: bytes[0]! },
    { request: null as unknown as OpRequest, bytes: bytes[0]! },
  ];
  const outcomes = await two.verifyBatch(prepared, items);
  const expected = items.map((it) => verifyEncoded(prepared, it.request, it.bytes));
  assert.deepEqual(
    outcomes.map((o) => o.index),
    items.map((_, i) => i),
  );
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? o.verdict : o.error)),
    expected,
  );
  assert.deepEqual(
    expected.map((v) => v.ok),
    [true, true, false, false, false, false, false, false],
  );
  assert.deepEqual(items[0]!.bytes, bytes[0], "the caller's bytes are not transferred away");
});

test("one-call proveBatch / verifyBatch start and close their own pool", async () => {
  const { prepared, jobs, bytes } = setup(OpKind.NonMembership);
  const wrong = setup(OpKind.Update).jobs[0]!;
  const proved = await proveBatch(prepared, [wrong], { workers: 1 });
  assert.ok(!proved[0]!.ok && proved[0]!.error.code === "WRONG_KIND");
  const verified = await verifyBatch(prepared, [{ request: jobs[0]!, bytes: bytes[0]!.subarray(0, 10) }], {
    workers: 1,
  });
  assert.deepEqual(
    verified[0]!.ok && verified[0]!.verdict,
    verifyEncoded(prepared, jobs[0]!, bytes[0]!.subarray(0, 10)),
  );
  const onPool = await proveBatch(prepared, jobs, { pool: two });
  assertSameBytes(onPool, bytes, "on a given pool");
});

test("a crashed worker fails only its job with WORKER_CRASHED and is replaced", async () => {
  const p = pool(2);
  const { prepared, jobs, bytes } = setup(OpKind.Membership);
  const batch = [jobs[0]!, jobs[1]!, jobs[0]!];
  const running = p.proveBatch(prepared, batch);
  // Job 0 is on the first worker now; kill that thread.
  const slots = (p as unknown as { slots: { worker: Worker }[] }).slots;
  await slots[0]!.worker.terminate();
  const outcomes = await running;
  assert.ok(!outcomes[0]!.ok);
  assert.equal(outcomes[0]!.error.code, "WORKER_CRASHED");
  assert.equal(outcomes[0]!.error.details["index"], 0);
  assert.deepEqual(
    outcomes.map((o) => o.index),
    [0, 1, 2],
  );
  assert.deepEqual(outcomes[1]!.ok && outcomes[1]!.bytes, bytes[1]);
  assert.deepEqual(outcomes[2]!.ok && outcomes[2]!.bytes, bytes[0]);
  assert.equal(p.stats().respawns, 1);
  assertSameBytes(await p.proveBatch(prepared, jobs), bytes, "the replacement worker");
  assert.equal(p.stats().running, 0);
  assert.equal(p.stats().queued, 0);
});

test("jobs prefetched by a worker that crashes are queued again and completed", async () => {
  const p = pool(1);
  const { prepared, jobs, bytes } = setup(OpKind.Membership);
  const batch = [jobs[0]!, jobs[1]!, jobs[0]!, jobs[1]!];
  const running = p.proveBatch(prepared, batch);
  // One worker, four jobs: it holds job 0 (running) and job 1 (prefetched), jobs 2 and 3 wait.
  assert.deepEqual({ running: p.stats().running, queued: p.stats().queued }, { running: 2, queued: 2 });
  const slots = (p as unknown as { slots: { worker: Worker }[] }).slots;
  await slots[0]!.worker.terminate();
  const outcomes = await running;
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? "ok" : o.error.code)),
    ["WORKER_CRASHED", "ok", "ok", "ok"],
  );
  outcomes.slice(1).forEach((o, i) => assert.deepEqual(o.ok && o.bytes, bytes[(i + 1) % 2]));
  assert.equal(p.stats().respawns, 1);
});

test("prefetching does not change bytes or order; without it a worker holds one job at a time", async () => {
  const p = createSyncPool({ workers: 1, prefetch: 0 });
  pools.push(p);
  const { prepared, jobs, bytes } = setup(OpKind.NonMembership);
  const running = p.proveBatch(prepared, [...jobs, ...jobs, ...jobs]);
  assert.deepEqual({ running: p.stats().running, queued: p.stats().queued }, { running: 1, queued: 5 });
  assertSameBytes(await running, [...bytes, ...bytes, ...bytes], "prefetch 0");
  assert.throws(
    () => createSyncPool({ workers: 1, prefetch: 9 }),
    (e: unknown) => e instanceof ParallelError && e.code === "BAD_OPTION",
  );
});

test("workers that keep crashing break the pool: POOL_BROKEN for the queue and for later batches", async () => {
  // A 1 MiB heap is too small for a worker to start: every worker dies of out-of-memory.
  const p = createSyncPool({
    workers: 1,
    resourceLimits: { maxOldGenerationSizeMb: 1, maxYoungGenerationSizeMb: 1 },
    maxConsecutiveCrashes: 2,
  });
  pools.push(p);
  const { prepared, jobs } = setup(OpKind.Membership);
  const outcomes = await p.proveBatch(prepared, [jobs[0]!, jobs[1]!, jobs[0]!]);
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? "ok" : o.error.code)),
    ["WORKER_CRASHED", "WORKER_CRASHED", "POOL_BROKEN"],
  );
  assert.match(outcomes[0]!.ok ? "" : String(outcomes[0]!.error.details["reason"]), /memory/);
  assert.equal(p.stats().respawns, 1);
  await assert.rejects(
    p.proveBatch(prepared, jobs),
    (e: unknown) => e instanceof ParallelError && e.code === "POOL_BROKEN",
  );
});

test("closing fails unanswered jobs with POOL_CLOSED; a closed pool refuses batches", async () => {
  const p = createSyncPool({ workers: 1 });
  const { prepared, jobs } = setup(OpKind.Membership);
  const running = p.proveBatch(prepared, jobs);
  await p.close();
  const outcomes = await running;
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? "ok" : o.error.code)),
    ["POOL_CLOSED", "POOL_CLOSED"],
  );
  await p.close();
  await assert.rejects(
    p.proveBatch(prepared, jobs),
    (e: unknown) => e instanceof ParallelError && e.code === "POOL_CLOSED",
  );
  await assert.rejects(
    p.verifyBatch(prepared, []),
    (e: unknown) => e instanceof ParallelError && e.code === "POOL_CLOSED",
  );
});

test("pool options are validated; the default size is the available parallelism", async () => {
  for (const workers of [0, -1, 1.5, 2000, Number.NaN]) {
    assert.throws(
      () => createSyncPool({ workers }),
      (e: unknown) => e instanceof ParallelError && e.code === "BAD_OPTION",
    );
  }
  assert.throws(
    () => createSyncPool({ workers: 1, maxConsecutiveCrashes: 0 }),
    (e: unknown) => e instanceof ParallelError && e.code === "BAD_OPTION",
  );
  const p = createSyncPool();
  assert.equal(p.size, availableParallelism());
  await p.close();
});

function runChild(body: string, nodeOptions: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const url = new URL("../../src/sync/index.js", import.meta.url).href;
  const corpusUrl = new URL("../../src/serve/fixtures/corpus.js", import.meta.url).href;
  const code = `import * as syncEntry from ${JSON.stringify(url)};\nimport * as corpus from ${JSON.stringify(corpusUrl)};\nconst sync = { ...syncEntry, ...corpus };\n${body}`;
  const r = spawnSync(process.execPath, [...nodeOptions, "--input-type=module", "-e", code], {
    timeout: 60_000,
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const CHILD_BATCH = `
const prepared = sync.prepare(0, { depth: 1 });
const pool = sync.createSyncPool({ workers: 2 });
const wrong = sync.corpusRequest(1, 0, { depth: 1 });
const out = await pool.proveBatch(prepared, [wrong, wrong]);
console.log(out.map((o) => o.ok ? "ok" : o.error.code).join(","));
`;

test("a closed pool leaves no handles: the process exits on its own", () => {
  const r = runChild(`${CHILD_BATCH}\nawait pool.close();\nconsole.log("closed");`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "WRONG_KIND,WRONG_KIND\nclosed\n");
});

test("workers start under entry-point and process-wide Node options of the parent", () => {
  const r = runChild(`${CHILD_BATCH}\nawait pool.close();`, [
    "--stack-size=2000",
    "--max-old-space-size=2048",
    "--enable-source-maps",
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "WRONG_KIND,WRONG_KIND\n");
});

test("an idle pool that is never closed does not keep the process alive", () => {
  const r = runChild(`${CHILD_BATCH}\nconsole.log("left open");`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "WRONG_KIND,WRONG_KIND\nleft open\n");
});
