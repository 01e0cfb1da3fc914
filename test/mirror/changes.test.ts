/**
 * Following a primary past its last proved block (src/mirror/changes.ts, what a registry worker's
 * copy does): after `Mirror.sync` stops at the first batch still being proved, `followByChanges`
 * applies each later batch from its change list (`GET /v1/changes/:batch`) and keeps it only at
 * the root of the primary's signed checkpoint of that size; the copy then replays those batches
 * as the primary does (what a block-part job proves from), and goes on by block proofs once the
 * primary has them. A change list altered on the way, or a checkpoint of another key, applies
 * nothing and halts (a halting mirror error); the copy keeps its verified size.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { signCheckpoint } from "../../src/registry/checkpoint/signing-key.js";
import { formatRoot } from "../../src/registry/root.js";
import { replayBatch } from "../../src/registry/consistency/replay.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { followByChanges } from "../../src/mirror/changes.js";
import { haltsMirror, MirrorError } from "../../src/mirror/errors.js";
import { freshDir, makeRegistry, removeDir, startServer } from "../web/support.js";
import { fakeServer, forwardJson, proveAll, testKey } from "./support.js";

const key = testKey();
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

const open = (db: string, from = srv.base) =>
  Mirror.open({ from, key: key.verifierKey, db: join(dir, db), timeoutMs: 10_000, pendingWaitMs: 0 });

before(async () => {
  dir = freshDir("ssgkr-mirror-changes-");
  primary = makeRegistry(dir, 16); // batches 1..4
  proveAll(primary);
  applyNameBlock(primary, [
    { op: "insert", name: "c-a", value: "a" },
    { op: "insert", name: "c-b", value: null },
    { op: "replace", name: "left-pad", value: { fields: [1, 2, 3] } },
  ]); // 5
  planNameUpdate(primary, "delete", "c-b").commit(); // 6
  planNameUpdate(primary, "restore", "gone").commit(); // 7: batches 5..7 have no block yet
  srv = await startServer({ store: primary, signingKey: key, rateLimit: 0 });
});

after(async () => {
  await srv?.app.close();
  await primary?.close();
  if (dir) removeDir(dir);
});

test("past the last proved block, a copy follows by change lists at the signed checkpoints' roots, replays those batches as the primary does, then goes on by blocks", async () => {
  const m = await open("copy");
  try {
    await assert.rejects(m.sync(), (e: MirrorError) => e.code === "MIRROR_PENDING");
    assert.equal(m.store.head().batch, 4, "the proved batches were applied by their blocks");
    const r = await followByChanges(m, 10_000);
    assert.deepEqual(r, { batches: 3, updates: 5, size: 7, target: 7 });
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
    for (let b = 5; b <= 7; b++) {
      assert.equal(m.checkpointText(b), signCheckpoint(key, { size: b, root: primary.batchEntry(b).root }));
      const mine = replayBatch(m.store, b);
      const theirs = replayBatch(primary, b);
      assert.equal(mine.length, theirs.length);
      for (let i = 0; i < mine.length; i++) {
        assert.equal(formatRoot(mine[i]!.fromRoot), formatRoot(theirs[i]!.fromRoot));
        assert.equal(formatRoot(mine[i]!.toRoot), formatRoot(theirs[i]!.toRoot));
        assert.deepEqual(
          mine[i]!.updates.map((u) => u.listed),
          theirs[i]!.updates.map((u) => u.listed),
        );
      }
    }
    assert.deepEqual(await followByChanges(m, 10_000), { batches: 0, updates: 0, size: 7, target: 7 });
    // once the primary proves the blocks and writes more, the copy goes on by blocks from its size
    proveAll(primary);
    planNameUpdate(primary, "insert", "c-later", "x").commit(); // 8
    proveAll(primary);
    const s = await m.sync();
    assert.equal(s.size, 8);
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
  } finally {
    m.close();
  }
});

test("a change list altered on the way, or a checkpoint of another key, applies nothing and halts", async () => {
  const size = primary.head().batch;
  planNameUpdate(primary, "insert", "c-next", "y").commit(); // not proved
  const altered = await fakeServer(async (req, res) => {
    if (!req.url!.startsWith(`/v1/changes/${size + 1}`)) return false;
    const a = await forwardJson(srv.base, req.url!);
    a.body.changes[0].value = "tampered";
    res.writeHead(a.status, { "content-type": "application/json" }).end(JSON.stringify(a.body));
    return true;
  }, srv.base);
  const other = testKey("example.com/mirror", 9);
  const forged = await fakeServer(async (req, res) => {
    if (req.url !== `/v1/checkpoint?size=${size + 1}` && req.url !== "/v1/checkpoint") return false;
    res
      .writeHead(200, { "content-type": "text/plain" })
      .end(signCheckpoint(other, { size: size + 1, root: primary.head().root }));
    return true;
  }, srv.base);
  try {
    const m = await open("copy2");
    try {
      await m.sync().catch(() => undefined);
      await followByChanges(m, 10_000, size);
      assert.equal(m.store.head().batch, size);
    } finally {
      m.close();
    }
    for (const [from, code] of [
      [altered.base, "MIRROR_ROOT_MISMATCH"],
      [forged.base, "MIRROR_BAD_SIGNATURE"],
    ] as const) {
      const m2 = await Mirror.open({
        from,
        key: key.verifierKey,
        db: join(dir, "copy2"),
        timeoutMs: 10_000,
        pendingWaitMs: 0,
      });
      try {
        await assert.rejects(
          followByChanges(m2, 10_000),
          (e: unknown) => haltsMirror(e) && (e as MirrorError).code === code,
        );
        assert.equal(m2.store.head().batch, size, "nothing of the batch was applied");
        assert.equal(formatRoot(m2.store.head().root), formatRoot(primary.batchEntry(size).root));
      } finally {
        m2.close();
      }
    }
  } finally {
    await altered.close();
    await forged.close();
  }
});
