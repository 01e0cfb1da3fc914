/**
 * Registry mirrors (src/mirror, `ssgkr registry mirror`): a new mirror verifies the whole history
 * of a primary (single writes, a block, a batch that left the root unchanged) and reaches its head
 * with the same root and batch numbers; it resumes from its own position; it serves the primary's
 * checkpoints byte for byte and proofs the primary's `POST /v1/verify` accepts; it waits out
 * `202 PROOF_PENDING` and `429`; on a tampered block, a gap, a fork, a rollback or a checkpoint
 * of another key it applies nothing more, keeps serving its verified state, reports the problem
 * in `GET /v1/status` and writes the evidence.
 * Primaries run in-process on 127.0.0.1; tampering primaries forward to them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { verifyCheckpoint } from "../../src/registry/checkpoint/checkpoint.js";
import { verifyConsistency } from "../../src/registry/consistency/verify-consistency.js";
import { formatRoot } from "../../src/registry/root.js";
import { createRegistryApp } from "../../src/http/server.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { MirrorError } from "../../src/mirror/errors.js";
import { makeRegistry, postVerify, startServer } from "../web/support.js";
import { fakeServer, forwardJson, proveAll, startPrimary, stopPrimary, testKey } from "./support.js";

type Json = Record<string, any>;
const DEPTH = 16;
const key = testKey();
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

/** A batch that leaves the root as it was. */
function unchangedBatch(store: NameStore): void {
  store.commit({
    kind: "block",
    expectBatch: store.head().batch,
    write: (_w, head) => ({ root: head.root, newRecords: 0, liveDelta: 0, deletedDelta: 0, written: 0 }),
  });
}

const open = (db: string, from = srv.base, extra: Partial<Parameters<typeof Mirror.open>[0]> = {}) =>
  Mirror.open({ from, key: key.verifierKey, db: join(dir, db), timeoutMs: 10_000, ...extra });

before(async () => {
  ({ dir, primary, srv } = await startPrimary("ssgkr-mirror-", key, (d) => {
    const store = makeRegistry(d, DEPTH); // batches 1..4
    applyNameBlock(store, [
      { op: "insert", name: "m-a", value: "a" },
      { op: "insert", name: "m-b", value: null },
      { op: "replace", name: "left-pad", value: { fields: [1, 2, 3] } },
    ]); // 5
    unchangedBatch(store); // 6
    planNameUpdate(store, "restore", "gone").commit(); // 7
    return store;
  }));
});

after(() => stopPrimary({ dir, primary, srv }));

test("GET /v1/checkpoint?size=N: a retained batch's checkpoint, signed as the head's is", async () => {
  for (const size of [0, 3, primary.head().batch]) {
    const res = await fetch(`${srv.base}/v1/checkpoint?size=${size}`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(text, signCheckpoint(key, { size, root: primary.batchEntry(size).root }));
    const c = verifyCheckpoint(text, key.verifierKey);
    assert.ok(c.ok && c.size === size);
  }
  assert.equal(
    await (await fetch(`${srv.base}/v1/checkpoint`)).text(),
    await (await fetch(`${srv.base}/v1/checkpoint?size=${primary.head().batch}`)).text(),
  );
  const late = await fetch(`${srv.base}/v1/checkpoint?size=${primary.head().batch + 1}`);
  assert.equal(late.status, 404);
  assert.equal(((await late.json()) as Json).code, "SIZE_UNKNOWN");
  const bad = await fetch(`${srv.base}/v1/checkpoint?size=x`);
  assert.equal(bad.status, 400);
});

test("a new mirror verifies the whole history and reaches the head: same root, same batches, the primary's checkpoints", async () => {
  const m = await open("m1");
  try {
    const r = await m.sync();
    assert.equal(r.size, primary.head().batch);
    assert.equal(r.batches, primary.head().batch);
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
    for (let b = 0; b <= primary.head().batch; b++) {
      assert.equal(formatRoot(m.store.batchEntry(b).root), formatRoot(primary.batchEntry(b).root), `batch ${b}`);
      assert.equal(m.checkpointText(b), signCheckpoint(key, { size: b, root: primary.batchEntry(b).root }));
    }
    assert.equal(m.store.head().live, primary.head().live);
    assert.equal(m.store.head().deleted, primary.head().deleted);
    // nothing new: a second round applies nothing
    assert.equal((await m.sync()).batches, 0);
    assert.equal((m.status() as Json).lag_batches, 0);
  } finally {
    m.close();
  }
});

test("the mirror serves the primary's checkpoints byte for byte, proofs the primary verifies, its chain and its status", async () => {
  const m = await open("m1");
  const { app } = await createRegistryApp({
    store: m.store,
    checkpoints: (s) => m.checkpointText(s),
    mirrorStatus: () => m.status(),
    rateLimit: 0,
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  try {
    const head = primary.head().batch;
    for (const q of ["", "?size=3", `?size=${head}`]) {
      const [a, b] = await Promise.all([fetch(`${base}/v1/checkpoint${q}`), fetch(`${srv.base}/v1/checkpoint${q}`)]);
      assert.equal(a.status, 200);
      assert.deepEqual(Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer()), `checkpoint${q}`);
    }
    // proofs at the head and at a retained root, in two profiles, posted unchanged to the primary
    const past = formatRoot(primary.batchEntry(4).root);
    for (const q of ["?profile=v3", "", `?profile=v3&root=${past}`]) {
      for (const name of ["left-pad", "gone", "never-there"]) {
        const res = await fetch(`${base}/v1/records/${encodeURIComponent(name)}/proof${q}`);
        assert.equal(res.status, 200, `${name}${q}`);
        const body = (await res.json()) as Json;
        assert.equal(typeof body.checkpoint, "string");
        const v = await postVerify(srv.base, body);
        assert.equal(v.status, 200);
        assert.equal(v.json.ok, true, `${name}${q}: ${JSON.stringify(v.json)}`);
      }
    }
    // a write is refused: the answer says where writes go
    const put = await fetch(`${base}/v1/records/left-pad`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ value: "https://example.com/x" }),
    });
    const refusal = (await put.json()) as Json;
    assert.equal(put.status, 403, JSON.stringify(refusal));
    assert.equal(refusal.code, "READ_ONLY");
    assert.match(refusal.message, /a mirror serves its verified copy read-only: write to the primary/);
    // its chain is the primary's
    const page = (await (await fetch(`${base}/v1/consistency?from=0&to=${head}`)).json()) as Json;
    assert.deepEqual(verifyConsistency({ from: page.from, to: page.to }, page.links), {
      ok: true,
      blocks: head - 1,
      unchanged: 1,
    });
    const status = (await (await fetch(`${base}/v1/status`)).json()) as Json;
    assert.equal(status.mirror.verified.size, head);
    assert.equal(status.mirror.problem, null);
    assert.equal(status.mirror.origin, "example.com/mirror");
    // read-only: writes are refused
    const w = await fetch(`${base}/v1/records/x`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "y" }),
    });
    assert.ok(w.status >= 400 && w.status < 500);
  } finally {
    await app.close();
    m.close();
  }
});

test("a mirror resumes from its position; waits out 202 PROOF_PENDING and 429 Retry-After", async () => {
  const before = primary.head().batch;
  planNameUpdate(primary, "insert", "later-1", "v1").commit();
  planNameUpdate(primary, "insert", "later-2", "v2").commit();
  // not proved yet: the round waits, then gives up with MIRROR_PENDING and applies nothing
  const m = await open("m1", srv.base, { pendingWaitMs: 1500 });
  try {
    await assert.rejects(m.sync(), (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_PENDING");
    assert.equal(m.store.head().batch, before);
    proveAll(primary);
    // a primary that answers 429 with Retry-After: 1 to the first request of each kind
    const seen = new Set<string>();
    const limited = await fakeServer((req, res) => {
      const kind = req.url!.split("?")[0]!;
      if (seen.has(kind)) return false;
      seen.add(kind);
      res.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
      res.end(JSON.stringify({ code: "RATE_LIMITED", message: "slow down" }));
      return true;
    }, srv.base);
    m.close();
    const m2 = await open("m1", limited.base);
    try {
      const t0 = Date.now();
      const r = await m2.sync();
      assert.ok(Date.now() - t0 >= 1000, "it waited the Retry-After");
      assert.equal(r.batches, 2);
      assert.equal(formatRoot(m2.store.head().root), formatRoot(primary.head().root));
    } finally {
      m2.close();
      await limited.close();
    }
  } finally {
    try {
      m.close();
    } catch {
      // closed above
    }
  }
});

test("a tampered block: the mirror applies nothing, reports it in /v1/status, writes the evidence, serves its verified state", async () => {
  // catch up to batch 4 through a primary that stops there (its checkpoint of size 4 as the head)
  const at4 = await fakeServer((req, res) => {
    if (req.url === "/v1/checkpoint") {
      res
        .writeHead(200, { "content-type": "text/plain" })
        .end(signCheckpoint(key, { size: 4, root: primary.batchEntry(4).root }));
      return true;
    }
    return false;
  }, srv.base);
  const m0 = await open("m2", at4.base);
  await m0.sync();
  await at4.close();
  assert.equal(m0.store.head().batch, 4);
  m0.close();
  const tamper = await fakeServer(async (req, res) => {
    if (!req.url!.startsWith("/v1/consistency")) return false;
    const { status, body } = await forwardJson(srv.base, req.url!);
    for (const l of body.links ?? []) if (l.batch === 5) l.block.updates[0].value = "tampered";
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    return true;
  }, srv.base);
  const evidenceDir = join(dir, "evidence-m2");
  const m = await open("m2", tamper.base, { evidenceDir });
  const { app } = await createRegistryApp({
    store: m.store,
    checkpoints: (s) => m.checkpointText(s),
    mirrorStatus: () => m.status(),
    rateLimit: 0,
  });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  try {
    const rootBefore = formatRoot(m.store.head().root);
    await assert.rejects(m.sync(), (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_BAD_CHAIN");
    assert.equal(m.store.head().batch, 4);
    assert.equal(formatRoot(m.store.head().root), rootBefore);
    const status = (await (await fetch(`${base}/v1/status`)).json()) as Json;
    assert.equal(status.mirror.state, "halted");
    assert.equal(status.mirror.problem.code, "MIRROR_BAD_CHAIN");
    const file = status.mirror.problem.evidence as string;
    assert.ok(file.startsWith(evidenceDir) && existsSync(file));
    const ev = JSON.parse(readFileSync(file, "utf8")) as Json;
    assert.equal(ev.checkpoints.length, 2);
    assert.equal(ev.links[0].block.updates[0].value, "tampered");
    // it still serves its verified state, and applies nothing more
    const cp = await (await fetch(`${base}/v1/checkpoint`)).text();
    assert.equal(cp, signCheckpoint(key, { size: 4, root: primary.batchEntry(4).root }));
    await assert.rejects(m.sync(), (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_BAD_CHAIN");
    assert.equal(m.store.head().batch, 4);
  } finally {
    await app.close();
    m.close();
    await tamper.close();
  }
});

test("a chain gap (a batch's link left out of the page) halts the mirror with CHAIN_GAP; nothing after the gap is applied", async () => {
  const gap = await fakeServer(async (req, res) => {
    if (!req.url!.startsWith("/v1/consistency")) return false;
    const { status, body } = await forwardJson(srv.base, req.url!);
    if (Array.isArray(body.links)) body.links = body.links.filter((l: Json) => l.batch !== 6);
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    return true;
  }, srv.base);
  const m = await open("m2", gap.base, { evidenceDir: join(dir, "evidence-m2-gap") });
  try {
    await assert.rejects(
      m.sync(),
      (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_BAD_CHAIN" && e.details.check === "CHAIN_GAP",
    );
    // batch 5 verified and applied; nothing after the gap
    assert.equal(m.store.head().batch, 5);
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.batchEntry(5).root));
    assert.ok(existsSync(m.problem!.evidence!));
  } finally {
    m.close();
    await gap.close();
  }
});

test("a fork: a second validly signed checkpoint of the mirror's size with another root halts it with both checkpoints", async () => {
  const head = primary.head().batch;
  const m0 = await open("m3");
  await m0.sync();
  m0.close();
  const forged = signCheckpoint(key, { size: head, root: primary.batchEntry(2).root });
  const forking = await fakeServer((req, res) => {
    if (req.url === "/v1/checkpoint" || req.url === `/v1/checkpoint?size=${head}`) {
      res.writeHead(200, { "content-type": "text/plain" }).end(forged);
      return true;
    }
    return false;
  }, srv.base);
  const m = await open("m3", forking.base, { evidenceDir: join(dir, "evidence-m3") });
  try {
    await assert.rejects(m.sync(), (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_FORK");
    const p = m.problem!;
    assert.equal(p.code, "MIRROR_FORK");
    const ev = JSON.parse(readFileSync(p.evidence!, "utf8")) as Json;
    assert.deepEqual(ev.checkpoints, [m.checkpointText(head), forged]);
    assert.equal(m.store.head().batch, head);
  } finally {
    m.close();
    await forking.close();
  }
});

test("a rollback (an older signed size) and a checkpoint of another key mid-way halt the mirror with the evidence", async () => {
  const head = primary.head().batch;
  const m0 = await open("m4");
  await m0.sync();
  m0.close();
  const older = signCheckpoint(key, { size: 2, root: primary.batchEntry(2).root });
  const rolling = await fakeServer((req, res) => {
    if (req.url !== "/v1/checkpoint") return false;
    res.writeHead(200, { "content-type": "text/plain" }).end(older);
    return true;
  }, srv.base);
  const m = await open("m4", rolling.base, { evidenceDir: join(dir, "evidence-m4") });
  try {
    await assert.rejects(
      m.sync(),
      (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_FORK" && e.details.check === "CHECKPOINT_ROLLBACK",
    );
    const ev = JSON.parse(readFileSync(m.problem!.evidence!, "utf8")) as Json;
    assert.deepEqual(ev.checkpoints, [m.checkpointText(head), older]);
  } finally {
    m.close();
    await rolling.close();
  }
  // a new write, whose checkpoint is signed by another key
  const other = testKey("example.com/mirror", 11);
  planNameUpdate(primary, "insert", "signed-elsewhere", "x").commit();
  const forged = signCheckpoint(other, { size: head + 1, root: primary.head().root });
  planNameUpdate(primary, "insert", "signed-elsewhere-2", "y").commit();
  proveAll(primary);
  const foreign = await fakeServer((req, res) => {
    if (req.url !== `/v1/checkpoint?size=${head + 1}`) return false;
    res.writeHead(200, { "content-type": "text/plain" }).end(forged);
    return true;
  }, srv.base);
  const m2 = await open("m1", foreign.base, { evidenceDir: join(dir, "evidence-m1") });
  try {
    // the head's checkpoint is good, the one of size head + 1 on the way is not
    await assert.rejects(m2.sync(), (e: unknown) => e instanceof MirrorError && e.code === "MIRROR_BAD_SIGNATURE");
    const ev = JSON.parse(readFileSync(m2.problem!.evidence!, "utf8")) as Json;
    assert.equal(ev.checkpoints[1], forged);
    assert.equal(ev.checkpoints[0], m2.checkpointText(m2.store.head().batch));
    assert.equal(m2.store.head().batch, head);
  } finally {
    m2.close();
    await foreign.close();
  }
});
