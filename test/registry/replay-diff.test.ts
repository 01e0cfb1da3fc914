/**
 * The replay of replay.ts against its plain reference (replay-reference.ts): every part of every
 * batch — imports logged as their created rows, imports into a populated registry, blocks of
 * random inserts, replaces, deletes and restores with several updates of one name in a batch — is
 * the same, update by update (old and new leaf, siblings, roots), at depths 12 and 48, with parts
 * of 7 updates and of the whole batch, with the stored keys read into memory and without, at the
 * head and at batches before it, when a part before the replay's position is asked for, and when
 * parts are skipped (every other part, every third, the last alone).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NameStore } from "../../src/registry/store/name-store.js";
import { applyNameBlock, type BlockUpdate } from "../../src/registry/name-block.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { BatchReplay, replayBatch } from "../../src/registry/consistency/replay.js";
import { replayBatchReference } from "../../src/registry/consistency/replay-reference.js";
import { PendingKeys } from "../../src/registry/consistency/pending-keys.js";
import { freshDir, removeDir } from "../web/support.js";

let dir: string;
const stores: NameStore[] = [];

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function importRecords(store: NameStore, names: string[], bulk: boolean): Promise<void> {
  const ndjson = names.map((n) => JSON.stringify({ name: n, value: `v-${n}` })).join("\n") + "\n";
  await importNames(store, () => new NdjsonSource(Buffer.from(ndjson), "records"), { threads: 0, bulk });
}

/** A registry of depth `depth`: an import (logged as created rows), 5 random blocks, an import into it. */
async function build(depth: number, seed: number): Promise<NameStore> {
  const store = NameStore.openOrCreate(join(dir, `d${depth}`), { depth });
  const rand = rng(seed);
  const state = new Map<string, "live" | "deleted">();
  const keys = new Set<number>();
  let next = 0;
  const fresh = (): string => {
    for (;;) {
      const name = `pkg-${seed}-${next++}`;
      const key = store.keyOf(name);
      if (!keys.has(key)) {
        keys.add(key);
        return name;
      }
    }
  };
  const first = Array.from({ length: 150 }, fresh);
  await importRecords(store, first, true); // 1
  for (const n of first) state.set(n, "live");
  for (let b = 0; b < 5; b++) {
    const updates: BlockUpdate[] = [];
    while (updates.length < 60) {
      const r = rand();
      const names = [...state.keys()];
      const name = names[Math.floor(rand() * names.length)]!;
      if (r < 0.3) {
        const n = fresh();
        updates.push({ op: "insert", name: n, value: `i${b}` });
        state.set(n, "live");
      } else if (state.get(name) === "deleted") {
        updates.push({ op: "restore", name, value: `r${b}` });
        state.set(name, "live");
      } else if (r < 0.65) updates.push({ op: "replace", name, value: `x${b}-${updates.length}` });
      else {
        updates.push({ op: "delete", name });
        state.set(name, "deleted");
      }
    }
    applyNameBlock(store, updates); // 2..6
  }
  await importRecords(store, Array.from({ length: 80 }, fresh), false); // 7
  return store;
}

before(async () => {
  dir = freshDir("ssgkr-replay-diff-");
  stores.push(await build(12, 1), await build(48, 2));
});

after(async () => {
  for (const s of stores) await s.close();
  if (dir) removeDir(dir);
});

test("the replay equals the reference replay, part by part, for every batch", () => {
  for (const store of stores) {
    const head = store.head().batch;
    assert.equal(head, 7);
    for (let b = 1; b <= head; b++) {
      const updates = store.changeHeader(b)!.updates;
      for (const perPart of [7, updates]) {
        const want = replayBatchReference(store, b, undefined, perPart);
        assert.equal(want.length, Math.ceil(updates / perPart));
        for (const scanKeys of [true, false]) {
          const replay = new BatchReplay(store, b, { perPart, scanKeys });
          const got = want.map((_, p) => replay.part(p));
          assert.deepStrictEqual(
            got,
            want,
            `depth ${store.config.depth}, batch ${b}, parts of ${perPart}, scan ${scanKeys}`,
          );
        }
      }
    }
  }
});

test("a part past the next one skips the parts between, as a pool's workers that share a batch's parts ask for them", () => {
  for (const store of stores) {
    for (let b = 1; b <= store.head().batch; b++) {
      const want = replayBatchReference(store, b, undefined, 7);
      const n = want.length;
      const patterns = [
        Array.from({ length: Math.ceil(n / 2) }, (_, i) => 2 * i),
        Array.from({ length: Math.floor(n / 2) }, (_, i) => 2 * i + 1),
        Array.from({ length: Math.ceil((n - 2) / 3) }, (_, i) => 2 + 3 * i),
        [n - 1],
        [0, n - 1],
      ];
      for (const parts of patterns)
        for (const scanKeys of [true, false]) {
          const replay = new BatchReplay(store, b, { perPart: 7, scanKeys });
          for (const p of parts)
            assert.deepStrictEqual(
              replay.part(p),
              want[p],
              `depth ${store.config.depth}, batch ${b}, part ${p} of ${n} (asked: ${parts.join(",")}), scan ${scanKeys}`,
            );
        }
    }
  }
});

test("a part before the replay's position starts it over; a part past the last is refused", () => {
  for (const store of stores) {
    const want = replayBatchReference(store, 3, undefined, 7);
    const replay = new BatchReplay(store, 3, { perPart: 7 });
    assert.deepStrictEqual(replay.part(5), want[5]);
    assert.deepStrictEqual(replay.part(1), want[1]);
    assert.deepStrictEqual(replay.part(2), want[2]);
    assert.throws(() => replay.part(want.length), { code: "BAD_BLOCK" });
    assert.throws(() => replay.part(-1), { code: "BAD_BLOCK" });
  }
});

test("replayBatch: every part, or only one", () => {
  const store = stores[1]!;
  const all = replayBatch(store, 2);
  assert.equal(all.length, 1);
  assert.deepStrictEqual(replayBatch(store, 2, 0), all);
  assert.deepStrictEqual(replayBatch(store, 2, 1), []);
  assert.throws(() => replayBatch(store, 0), { code: "DB_CORRUPT" });
});

test("pending keys: distinct keys and updates left in a range, against a plain count", () => {
  const rand = rng(7);
  const keys = Array.from({ length: 400 }, () => Math.floor(rand() * 2 ** 10) * 2 ** 38);
  const pending = new PendingKeys(keys);
  const left = new Map<number, number>();
  for (const k of keys) left.set(k, (left.get(k) ?? 0) + 1);
  for (let step = 0; step < 600; step++) {
    const open = [...left.keys()].filter((k) => left.get(k)! > 0);
    if (step % 2 === 0 && open.length > 0) {
      const k = open[Math.floor(rand() * open.length)]!;
      pending.done(k);
      left.set(k, left.get(k)! - 1);
      assert.equal(pending.pendingOf(k), left.get(k));
    }
    const lo = Math.floor(rand() * 2 ** 48);
    const hi = lo + Math.floor(rand() * 2 ** 46);
    let distinct = 0;
    let count = 0;
    for (const [k, n] of left)
      if (k >= lo && k < hi) {
        distinct++;
        count += n;
      }
    assert.deepEqual(pending.range(lo, hi), { distinct, pending: count });
  }
  assert.equal(pending.pendingOf(12345), 0);
  const k = keys[0]!;
  while (pending.pendingOf(k) > 0) pending.done(k);
  assert.throws(() => pending.done(k), /no update left/);
});
