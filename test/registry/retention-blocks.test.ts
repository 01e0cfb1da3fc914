/**
 * Retention waits for block proofs (docs/registry.md "Retention"): in a registry whose batches get
 * block proofs, the window of provable roots never passes the tree a pending block still needs,
 * however far proving lags behind the commits, so no batch becomes `not-provable`; once the blocks
 * are proved the window moves on by the retention as before. A registry that never kept a block
 * proof keeps its retention as it is.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { BlockProver, batchProofState } from "../../src/registry/consistency/block-prover.js";
import { tempDir } from "./support/tmp.js";

const put = (s: NameStore, i: number) => planNameUpdate(s, "insert", `n-${i}`, `https://example.com/${i}`).commit();

test("with block proofs the window waits for the oldest pending block; the blocks of a lag longer than the retention are all proved, then the window moves on", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: 12 });
  try {
    store.setRetention({ commits: 2 });
    put(store, 0); // batch 1
    new BlockProver(store).drain();
    assert.equal(batchProofState(store, 1), "kept");
    for (let i = 1; i <= 8; i++) put(store, i); // batches 2..9, no proofs yet: a lag of 8 > 2 commits
    assert.equal(store.window().oldestBatch, 1, "the tree after batch 1 stays: batch 2's block needs it");
    for (let b = 2; b <= 9; b++) assert.equal(batchProofState(store, b), "pending", `batch ${b}`);
    new BlockProver(store).drain();
    for (let b = 1; b <= 9; b++) assert.equal(batchProofState(store, b), "kept", `batch ${b}`);
    put(store, 9); // batch 10: the window moves on by the retention
    assert.equal(store.window().oldestBatch, 8);
  } finally {
    await store.close();
  }
});

test("a registry that never kept a block proof keeps its retention as it is", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: 12 });
  try {
    store.setRetention({ commits: 2 });
    for (let i = 0; i < 6; i++) put(store, i);
    assert.equal(store.window().oldestBatch, 4);
    assert.equal(batchProofState(store, 2), "not-provable");
  } finally {
    await store.close();
  }
});
