/**
 * The proving pool (src/proving, docs/http.md "How it runs"): workers with the registry open
 * read-only make names' proofs at a root and parts of blocks. Checked here: a read proof made on a
 * worker is byte for byte the one made on this thread (compat-v1 and v3; a v3-zk proof is random
 * and is checked as a counterparty checks it), at the head and at an earlier root; a worker sees a
 * batch committed after it started; a proof's own error keeps its code and details; a full queue
 * refuses at once (`PROVER_BUSY`); a worker killed mid-job is replaced and its job retried; the
 * HTTP API with a pool answers what it answers without one; the block prover on the pool keeps
 * the same blocks as on this thread; a pool whose workers skip the read circuits' preparation
 * (`prepareReads: false`, `registry prove-blocks`) proves the same reads.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { proveNameRead } from "../../src/counterparty/prove.js";
import { checkProofBody } from "../../src/counterparty/body.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { ProvingPool } from "../../src/proving/pool.js";
import { BlockProver } from "../../src/registry/consistency/block-prover.js";
import { createRegistryApp } from "../../src/http/server.js";
import { tempDir } from "../registry/support/tmp.js";

const dir = join(tempDir(), "db");
let store: NameStore;
let pool: ProvingPool;

before(async () => {
  store = NameStore.openOrCreate(dir, { depth: 16 });
  for (let i = 0; i < 6; i++) planNameUpdate(store, "insert", `pkg-${i}`, `https://example.com/${i}`).commit();
  pool = await ProvingPool.start({ dir, workers: 2, maxQueuedReads: 4 });
});

after(async () => {
  await pool?.close();
  await store?.close();
});

test("a read proof made on a worker is the one made on this thread (v1, v3 byte for byte; v3-zk checks), at the head and at an earlier root", async () => {
  assert.equal(pool.workers, 2);
  assert.equal(pool.blockCapacity, 1);
  const head = store.head().root;
  const earlier = store.batchEntry(3).root;
  for (const root of [head, earlier])
    for (const name of ["pkg-1", "pkg-5", "never-there"]) {
      for (const profile of ["v1", "v3"] as const) {
        const here = proveNameRead(store, name, root, { profile });
        const there = await pool.proveRead(name, root, profile);
        assert.deepEqual(there.statement, here.statement, `${name} ${profile}`);
        assert.deepEqual(Buffer.from(there.proof), Buffer.from(here.proof), `${name} ${profile}: the same bytes`);
      }
      const zk = await pool.proveRead(name, root, "v3-zk");
      assert.equal(zk.zk, true);
      const body = { statement: zk.statement, profile: zk.profile, zk: true, proof: bytesBase64(zk.proof) };
      const verdict = checkProofBody(body, name, root);
      assert.equal(verdict.ok, true, JSON.stringify(verdict));
    }
});

test("a pool whose workers do not prepare the read circuits proves the same reads (each mode prepared by its first proof)", async () => {
  const lean = await ProvingPool.start({ dir, workers: 1, prepareReads: false, reserveReadWorker: false });
  try {
    assert.equal(lean.blockCapacity, 1);
    const root = store.head().root;
    for (const profile of ["v1", "v3"] as const) {
      const here = proveNameRead(store, "pkg-2", root, { profile });
      const there = await lean.proveRead("pkg-2", root, profile);
      assert.deepEqual(Buffer.from(there.proof), Buffer.from(here.proof), profile);
    }
  } finally {
    await lean.close();
  }
});

test("a worker sees batches committed after it started; a proof's own error keeps its code; a full queue refuses at once", async () => {
  planNameUpdate(store, "insert", "late", "https://example.com/late").commit();
  const p = await pool.proveRead("late", store.head().root, "v3");
  assert.equal(p.statement.kind, "membership");
  await assert.rejects(pool.proveRead("late", new Uint32Array(8).fill(7), "v1"), { code: "ROOT_UNKNOWN" });
  // 2 workers busy + 4 queued: the seventh is refused before any work
  const many = Array.from({ length: 7 }, (_, i) => pool.proveRead(`pkg-${i % 6}`, store.head().root, "v3-zk"));
  const settled = await Promise.allSettled(many);
  const busy = settled.filter((s) => s.status === "rejected");
  assert.equal(busy.length, 1);
  assert.equal(((busy[0] as PromiseRejectedResult).reason as { code: string }).code, "PROVER_BUSY");
  assert.equal(pool.stats().queued.read, 0);
});

test("a worker killed mid-job is replaced and the job retried on the new worker", async () => {
  const before = pool.stats();
  const job = pool.proveRead("pkg-2", store.head().root, "v3-zk");
  // the slot the job went to: end its worker while it proves
  const slots = (pool as unknown as { slots: { worker: { terminate(): Promise<number> }; job?: unknown }[] }).slots;
  const busy = slots.find((s) => s.job !== undefined)!;
  await busy.worker.terminate();
  const p = await job;
  assert.equal(p.statement.kind, "membership");
  const now = pool.stats();
  assert.equal(now.replaced, before.replaced + 1);
  assert.equal(now.retried, before.retried + 1);
  assert.equal(now.workers, 2);
  // the pool goes on serving
  assert.equal((await pool.proveRead("pkg-3", store.head().root, "v1")).statement.kind, "membership");
});

test("the HTTP API with a pool answers the body it answers without one; the block prover on the pool keeps the blocks this thread makes", async () => {
  const webDir = join(dir, "..", "no-page");
  const withPool = await createRegistryApp({ store, webDir, rateLimit: 0, pool, cacheBytes: 0 });
  const without = await createRegistryApp({ store, webDir, rateLimit: 0, cacheBytes: 0 });
  try {
    for (const url of [
      "/v1/records/pkg-4/proof?profile=v3",
      "/v1/records/nobody/proof",
      `/v1/records/pkg-1/proof?root=${Buffer.from(new Uint32Array(store.batchEntry(2).root).buffer).toString("hex")}`,
    ]) {
      const a = await withPool.app.inject({ url });
      const b = await without.app.inject({ url });
      assert.equal(a.statusCode, b.statusCode, url);
      const strip = (s: string) => {
        const j = JSON.parse(s) as Record<string, unknown>;
        delete j["prove_ms"];
        return j;
      };
      assert.deepEqual(strip(a.body), strip(b.body), url);
    }
  } finally {
    await withPool.app.close();
    await without.app.close();
  }
  const onPool: string[] = [];
  const prover = new BlockProver(store, { pool, idleMs: 20, onProved: (s) => onPool.push(`${s.batch}`) });
  prover.start();
  const head = store.head().batch;
  for (let i = 0; i < 600 && onPool.length < head; i++) await new Promise((r) => setTimeout(r, 50));
  await prover.stop();
  assert.deepEqual(
    onPool,
    Array.from({ length: head }, (_, i) => `${i + 1}`),
  );
  for (let b = 1; b <= head; b++) assert.ok(store.blockProof(b) !== undefined, `batch ${b} kept`);
});
