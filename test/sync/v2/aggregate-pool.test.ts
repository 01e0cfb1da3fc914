import { test, after } from "node:test";
import assert from "node:assert/strict";
import { goldenFixture } from "../../../src/smt/fixture.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { OpKind } from "../../../src/statement/types.js";
import { prepare } from "../../../src/sync/prepared.js";
import { encodeSyncResult } from "../../../src/sync/encoded.js";
import { provePrepared } from "../../../src/sync/prove.js";
import { prepareV2, proveAggregate, verifyAggregate, type PreparedV2 } from "../../../src/sync/v2/index.js";
import { AggregatePool, createAggregatePool, proveAggregates } from "../../../src/sync/v2/aggregate-pool.js";
import { createSyncPool } from "../../../src/sync/parallel/pool.js";
import { ParallelError } from "../../../src/sync/parallel/errors.js";
import { decodeJobs, encodeJob, encodeJobs, JobDecodeError } from "../../../src/sync/parallel/job-codec.js";
import { SyncError } from "../../../src/statement/errors.js";

const DEPTH = 4;
const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;

const preparedV2 = new Map<OpKind, PreparedV2>();
function v2(kind: OpKind): PreparedV2 {
  let p = preparedV2.get(kind);
  if (!p) preparedV2.set(kind, (p = prepareV2(kind, { depth: DEPTH })));
  return p;
}
const batch = (kind: OpKind, n: number, from: number): OpRequest[] =>
  Array.from({ length: n }, (_, i) => goldenFixture(kind, DEPTH, BigInt((from + i) % 16)));

const pools: AggregatePool[] = [];
function pool(workers: number): AggregatePool {
  const p = createAggregatePool({ workers });
  pools.push(p);
  return p;
}
after(() => Promise.all(pools.map((p) => p.close())));

test("encodeJobs / decodeJobs: several requests in one buffer, each as decodeJob gives it; truncated and trailing words refused", () => {
  const reqs = [...batch(OpKind.Membership, 2, 0), ...batch(OpKind.Update, 2, 3), ...batch(OpKind.NonMembership, 1, 5)];
  const packed = encodeJobs(reqs)!;
  assert.ok(packed instanceof Uint32Array);
  assert.equal(packed[0], reqs.length);
  const back = decodeJobs(packed);
  assert.equal(back.length, reqs.length);
  back.forEach((r, i) => assert.deepEqual(encodeJob(r), encodeJob(reqs[i]!), `request ${i} round-trips`));
  assert.deepEqual(decodeJobs(encodeJobs([])!), []);
  assert.throws(() => decodeJobs(packed.subarray(0, packed.length - 1)), JobDecodeError);
  assert.throws(() => decodeJobs(Uint32Array.from([...packed, 0])), JobDecodeError);
  assert.throws(() => decodeJobs(new Uint32Array(0)), JobDecodeError);
  assert.throws(() => decodeJobs(Uint32Array.from([3, 1])), JobDecodeError);
  // A request the binary form cannot carry makes the whole list go by structured clone.
  assert.equal(
    encodeJobs([reqs[0]!, { ...reqs[1]!, operation: { ...reqs[1]!.operation, key: 1 as unknown as bigint } }]),
    null,
  );
  assert.ok(decodeJobs(packed).every((r) => r.witness.siblings.length === DEPTH));
  assert.equal(encodeJobs("x" as unknown as OpRequest[]), null);
});

test("proveAggregates: bytes identical to the one-thread proveAggregate for every kind, full and partial batches, 1 and 2 workers", async () => {
  for (const workers of [1, 2]) {
    const p = pool(workers);
    for (const kind of KINDS) {
      const prepared = v2(kind);
      const batches = [batch(kind, 4, 0), batch(kind, 3, 4), batch(kind, 1, 9), batch(kind, 4, 2)];
      const out = await p.proveAggregates(prepared, batches);
      assert.equal(out.length, batches.length);
      out.forEach((o, i) => {
        assert.equal(o.index, i);
        assert.ok(o.ok, `${kind} × ${workers} workers, batch ${i}: ${o.ok ? "" : o.error.message}`);
        assert.deepEqual(o.bytes, proveAggregate(prepared, batches[i]!), `${kind} batch ${i} bytes`);
        assert.ok(verifyAggregate(prepared, batches[i]!, o.bytes).ok);
        assert.equal(o.timings.operations, batches[i]!.length);
        assert.equal(o.timings.copies, 2 ** Math.ceil(Math.log2(batches[i]!.length)));
        for (const key of ["decodeMs", "witnessMs", "evaluateMs", "proveMs", "encodeMs"] as const)
          assert.ok(o.timings[key] >= 0, key);
      });
    }
  }
});

test("proveAggregates: a failing batch gets the sequential path's code and operation index, the others their proofs", async () => {
  const prepared = v2(OpKind.Membership);
  const good = batch(OpKind.Membership, 2, 0);
  const wrongKind = [good[0]!, goldenFixture(OpKind.Update, DEPTH, 1n)];
  const short = { ...good[1]!, witness: { ...good[1]!.witness, siblings: good[1]!.witness.siblings.slice(1) } };
  const badWitness = [good[0]!, good[1]!, short];
  // A key the binary form cannot carry: the batch goes by structured clone and fails as on the sequential path.
  const numberKey = [good[0]!, { ...good[1]!, operation: { ...good[1]!.operation, key: 5 as unknown as bigint } }];
  const batches = [good, wrongKind, [], badWitness, good, numberKey];
  const out = await pool(2).proveAggregates(prepared, batches);
  const sequentialCode = (b: OpRequest[]): { code: string; operation: unknown } => {
    try {
      proveAggregate(prepared, b);
    } catch (err) {
      assert.ok(err instanceof SyncError);
      return { code: err.code, operation: err.details["operation"] };
    }
    throw new Error("the batch was expected to fail");
  };
  assert.ok(out[0]!.ok && out[4]!.ok);
  assert.deepEqual(out[0]!.ok && out[0]!.bytes, proveAggregate(prepared, good));
  for (const [i, code, operation] of [
    [1, "WRONG_KIND", 1],
    [2, "BAD_AGGREGATE", undefined],
    [3, "WITNESS", 2],
    [5, "WITNESS", 1],
  ] as const) {
    const o = out[i]!;
    assert.ok(!o.ok, `batch ${i} fails`);
    assert.equal(o.error.code, code);
    assert.equal(o.error.details["index"], i);
    assert.equal(o.error.details["operation"], operation);
    assert.equal(o.error.details["origin"], "SyncError");
    const seq = sequentialCode(batches[i]!);
    assert.equal(seq.code, code);
    assert.equal(seq.operation, operation);
  }
});

test("proveAggregates: aggregates and compat-v1 jobs share one pool; the one-call form starts and closes its own", async () => {
  const p = pool(2);
  const compat = prepare(OpKind.Membership, { depth: DEPTH });
  const jobs = batch(OpKind.Membership, 3, 0);
  const prepared = v2(OpKind.Update);
  const batches = [batch(OpKind.Update, 2, 0), batch(OpKind.Update, 4, 1)];
  const [aggs, proofs] = await Promise.all([p.proveAggregates(prepared, batches), p.sync.proveBatch(compat, jobs)]);
  aggs.forEach((o, i) => assert.deepEqual(o.ok && o.bytes, proveAggregate(prepared, batches[i]!)));
  proofs.forEach((o, i) =>
    assert.deepEqual(o.ok && o.bytes, encodeSyncResult(compat, provePrepared(compat, jobs[i]!))),
  );
  assert.equal(p.stats().prepared, 2);
  p.release(prepared);
  assert.equal(p.stats().prepared, 1);
  const again = await p.proveAggregates(prepared, [batches[0]!]);
  assert.deepEqual(again[0]!.ok && again[0]!.bytes, proveAggregate(prepared, batches[0]!));
  const oneCall = await proveAggregates(prepared, batches, { workers: 2 });
  oneCall.forEach((o, i) => assert.deepEqual(o.ok && o.bytes, proveAggregate(prepared, batches[i]!)));
  assert.deepEqual(await p.proveAggregates(prepared, []), []);
});

test("proveAggregates: a worker whose circuit has another commitment fails the batch with BAD_SHARED; a plain sync pool has no aggregates", async () => {
  const prepared = v2(OpKind.Membership);
  const forged: PreparedV2 = { ...prepared, commitment: new Uint32Array(8) };
  const out = await pool(1).proveAggregates(forged, [batch(OpKind.Membership, 2, 0)]);
  assert.ok(!out[0]!.ok && out[0]!.error.code === "BAD_SHARED", JSON.stringify(out[0]));
  const plain = createSyncPool({ workers: 1 });
  try {
    const ext = await plain.runExtension(prepared, {}, [{ body: {} }]);
    assert.ok(!ext[0]!.ok && ext[0]!.error.code === "NOT_ATTACHED");
  } finally {
    await plain.close();
  }
});

test("proveAggregates: refuses a compat-v1 prepared circuit, a non-array and a closed pool", async () => {
  const p = pool(1);
  await assert.rejects(
    p.proveAggregates(prepare(OpKind.Membership, { depth: DEPTH }) as unknown as PreparedV2, [
      batch(OpKind.Membership, 1, 0),
    ]),
    (e: unknown) => e instanceof ParallelError && e.code === "BAD_OPTION",
  );
  await assert.rejects(
    p.proveAggregates(v2(OpKind.Membership), "x" as unknown as OpRequest[][]),
    (e: unknown) => e instanceof ParallelError && e.code === "BAD_OPTION",
  );
  await p.close();
  await assert.rejects(
    p.proveAggregates(v2(OpKind.Membership), [batch(OpKind.Membership, 1, 0)]),
    (e: unknown) => e instanceof ParallelError && e.code === "POOL_CLOSED",
  );
});

test("proveAggregates: an aggregate running when its pool closes gets POOL_CLOSED", async () => {
  const p = pool(1);
  const pending = p.proveAggregates(v2(OpKind.Membership), [
    batch(OpKind.Membership, 4, 0),
    batch(OpKind.Membership, 4, 1),
  ]);
  await p.close();
  const out = await pending;
  for (const o of out) assert.ok(!o.ok && o.error.code === "POOL_CLOSED");
});
