/**
 * Consistency across an import larger than one block proof at the registry's default depth 48
 * (docs/registry.md "Consistency between checkpoints"): an import of 10,000 npm records is one
 * batch proved in five parts of at most `maxBlockUpdates(48)` = 2,048 updates, and a write after
 * it one block, and an epoch of 2,100 writes through the sequencer one batch in two parts; the
 * chain from size 0 to the head verifies, part by part, and the HTTP route serves it (200) with
 * the parts in a row.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { BlockProver, batchBlockParts, batchProofState } from "../../src/registry/consistency/block-prover.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import { formatRoot } from "../../src/registry/root.js";
import { maxBlockUpdates } from "../../src/registry/block-size.js";
import { createRegistryApp } from "../../src/http/server.js";
import { fetchChain } from "../../src/cli/registry-client.js";
import { npmReposSubsetPath } from "../../src/registry/import/dataset.js";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tempDir } from "./support/tmp.js";
import { Sequencer } from "../../src/registry/sequencer/sequencer.js";

const RECORDS = 10_000;
let store: NameStore;
const dir = tempDir();

before(async () => {
  store = NameStore.openOrCreate(join(dir, "db")); // the defaults: depth 48, name-keyed
  const lines = gunzipSync(readFileSync(npmReposSubsetPath())).toString("utf8").split("\n").slice(0, RECORDS);
  await importNames(store, () => new NdjsonSource(Buffer.from(lines.join("\n") + "\n"), "npm records"), { threads: 0 });
  planNameUpdate(store, "replace", JSON.parse(lines[7]!).name as string, "https://example.com/seven").commit();
  // an epoch above the limit: 2,100 writes in one epoch, one batch (3)
  const seq = new Sequencer(store, { epochMs: 60_000, epochMax: 4096 });
  seq.start();
  try {
    const answers = Array.from({ length: 2100 }, (_, i) =>
      seq.submit({ op: "put", name: `epoch-write-${i}`, value: `https://example.com/e/${i}` }),
    );
    seq.runEpoch();
    const got = await Promise.all(answers);
    assert.ok(got.every((a) => a.kind === "done" && a.result.ok && a.result.batch === 3));
  } finally {
    seq.close();
  }
});

after(async () => {
  await store?.close();
});

test("an import of 10,000 records at depth 48 is proved in five parts of at most 2,048 updates, an epoch of 2,100 writes in two; the chain across both verifies and the route serves it", async () => {
  assert.equal(store.config.depth, 48);
  const updates = store.changeHeader(1)!.updates;
  assert.ok(updates > 4 * 2048 && updates <= 5 * 2048, `${updates} records imported`);
  assert.equal(maxBlockUpdates(48), 2048);
  assert.equal(batchBlockParts(store, 1), 5);
  assert.equal(batchBlockParts(store, 2), 1);
  assert.deepEqual(
    [store.batchEntry(3).kind, store.changeHeader(3)!.updates, batchBlockParts(store, 3)],
    ["epoch", 2100, 2],
  );
  const proved: string[] = [];
  new BlockProver(store, { onProved: (s) => proved.push(`${s.batch}.${s.part ?? "-"}/${s.operations}`) }).drain();
  assert.deepEqual(proved, [
    "1.0/2048",
    "1.1/2048",
    "1.2/2048",
    "1.3/2048",
    `1.4/${updates - 4 * 2048}`,
    "2.-/1",
    "3.0/2048",
    "3.1/52",
  ]);
  assert.deepEqual(
    [1, 2, 3].map((b) => batchProofState(store, b)),
    ["kept", "kept", "kept"],
  );
  const end = (size: number) => ({ size, root: formatRoot(store.batchEntry(size).root) });
  const { app } = await createRegistryApp({ store, webDir: join(dir, "no-page"), rateLimit: 0 });
  try {
    const res = await app.inject({ url: "/v1/consistency?from=0&to=3" });
    assert.equal(res.statusCode, 200, res.body);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const chain: ConsistencyLink[] = await fetchChain(`http://127.0.0.1:${port}`, 0, 3, 30_000);
    assert.deepEqual(
      chain.map((l) => `${l.batch}.${l.part ?? "-"}`),
      ["1.0", "1.1", "1.2", "1.3", "1.4", "2.-", "3.0", "3.1"],
    );
    assert.deepEqual(verifyConsistency({ from: end(0), to: end(3) }, chain), { ok: true, blocks: 8, unchanged: 0 });
    // a part left out is a gap
    const v = verifyConsistency({ from: end(0), to: end(3) }, [...chain.slice(0, 2), ...chain.slice(3)]);
    assert.equal(v.ok, false);
  } finally {
    await app.close();
  }
});
