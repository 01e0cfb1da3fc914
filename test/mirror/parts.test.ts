/**
 * A mirror of a primary whose import was proved in parts (more updates than one block proof holds
 * at its depth): the parts of the batch come as links in a row — here one link per page of the
 * chain, so pages end inside the batch (`next_part`) — are verified together between the two
 * checkpoints around the batch and applied as one batch; the mirror then serves the parts as the
 * primary does.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { nameKey } from "../../src/registry/name-key.js";
import { batchBlockParts } from "../../src/registry/consistency/replay.js";
import { CHANGE_PART_UPDATES } from "../../src/registry/store/change-log.js";
import { formatRoot } from "../../src/registry/root.js";
import { Mirror } from "../../src/mirror/mirror.js";
import { freshDir, removeDir, startServer } from "../web/support.js";
import { proveAll, testKey } from "./support.js";

const key = testKey("example.com/mirror-parts");
const DEPTH = 13;
const NAMES = CHANGE_PART_UPDATES + 5;
let dir: string;
let primary: NameStore;
let srv: Awaited<ReturnType<typeof startServer>>;

before(async () => {
  dir = freshDir("ssgkr-mirror-parts-");
  primary = NameStore.openOrCreate(join(dir, "primary"), { depth: DEPTH });
  const lines: string[] = [];
  const keys = new Set<number>();
  for (let i = 0; lines.length < NAMES; i++) {
    const name = `pkg-${i}`;
    const k = nameKey(name, DEPTH);
    if (keys.has(k)) continue;
    keys.add(k);
    lines.push(JSON.stringify({ name, value: `https://example.com/${i}` }));
  }
  await importNames(primary, () => new NdjsonSource(Buffer.from(lines.join("\n") + "\n"), "test records"), {
    threads: 0,
  }); // 1: two parts
  planNameUpdate(primary, "replace", "pkg-7", "https://example.com/seven").commit(); // 2
  proveAll(primary);
  assert.equal(batchBlockParts(primary, 1), 2);
  // a page holds one link: pages end inside batch 1
  srv = await startServer({ store: primary, signingKey: key, rateLimit: 0, consistencyPageBytes: 1 });
});

after(async () => {
  await srv?.app.close();
  await primary?.close();
  if (dir) removeDir(dir);
});

test("a batch proved in parts, its parts on separate pages, is verified and applied as one batch", async () => {
  const m = await Mirror.open({ from: srv.base, key: key.verifierKey, db: join(dir, "mirror") });
  try {
    const r = await m.sync();
    assert.deepEqual([r.size, r.batches, r.updates], [2, 2, NAMES + 1]);
    assert.equal(formatRoot(m.store.batchEntry(1).root), formatRoot(primary.batchEntry(1).root));
    assert.equal(formatRoot(m.store.head().root), formatRoot(primary.head().root));
    assert.equal(m.store.head().live, primary.head().live);
    // it keeps the parts as the primary does
    assert.equal(batchBlockParts(m.store, 1), 2);
    for (const p of [0, 1])
      assert.equal(m.store.blockProof(1, p)!.summary.to_root, primary.blockProof(1, p)!.summary.to_root);
  } finally {
    m.close();
  }
});
