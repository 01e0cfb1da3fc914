/**
 * Consistency between checkpoints (docs/registry.md "Consistency between checkpoints"): every
 * batch that changes the tree logs its updates; the block prover replays them at the batch before
 * and keeps a profile v3 block per batch; `verifyConsistency` accepts the honest chain between
 * any two sizes and rejects a chain with a block dropped, swapped or taken from another registry,
 * each with its code.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { applyNameBlock } from "../../src/registry/name-block.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { NdjsonSource } from "../../src/registry/import/sources/ndjson.js";
import { BlockProver, batchProofState, proveBatch } from "../../src/registry/consistency/block-prover.js";
import { replayBatch } from "../../src/registry/consistency/replay.js";
import { verifyConsistency, type ConsistencyLink } from "../../src/registry/consistency/verify-consistency.js";
import { formatRoot } from "../../src/registry/root.js";
import { bytesBase64 } from "../../src/counterparty/body.js";
import { RegistryError } from "../../src/registry/errors.js";
import { freshDir, makeRegistry, removeDir } from "../web/support.js";
import { join } from "node:path";
import { open } from "lmdb";

let dir: string;
let store: NameStore;
let other: NameStore;
let bulk: NameStore;

/** The chain of batches from+1..to as the route serves it. */
function chainOf(s: NameStore, from: number, to: number): ConsistencyLink[] {
  const out: ConsistencyLink[] = [];
  for (let b = from + 1; b <= to; b++) {
    const k = s.blockProof(b);
    if (k === undefined) {
      const root = formatRoot(s.batchEntry(b).root);
      out.push({ batch: b, from_root: root, to_root: root, unchanged: true });
    } else
      out.push({
        batch: b,
        from_root: k.summary.from_root,
        to_root: k.summary.to_root,
        block: JSON.parse(k.blockJson) as object,
        proof: bytesBase64(k.proof),
      });
  }
  return out;
}
const end = (s: NameStore, size: number) => ({ size, root: formatRoot(s.batchEntry(size).root) });

before(async () => {
  dir = freshDir("ssgkr-consistency-");
  store = makeRegistry(dir, 12); // batches 1..4: insert, insert, insert, delete
  planNameUpdate(store, "replace", "left-pad", "https://gitlab.com/lp/lp").commit(); // 5
  planNameUpdate(store, "restore", "gone", "back").commit(); // 6
  applyNameBlock(store, [
    { op: "insert", name: "blk-a", value: "a" },
    { op: "replace", name: "blk-a", value: "a2" },
    { op: "delete", name: "@scope/pkg" },
    { op: "insert", name: "blk-b", value: null },
  ]); // 7
  const ndjson = ["imp-1", "imp-2", "imp-3"].map((n) => JSON.stringify({ name: n, value: `v-${n}` })).join("\n") + "\n";
  await importNames(store, () => new NdjsonSource(Buffer.from(ndjson), "test records"), { threads: 0, bulk: false }); // 8
  other = makeRegistry(dir, 12, { sub: "other", liveValue: "elsewhere" });
  // a bulk import into an empty registry (its log: the rows it created), then a replace of one of them
  bulk = NameStore.openOrCreate(join(dir, "bulk"), { depth: 12 });
  await importNames(bulk, () => new NdjsonSource(Buffer.from(ndjson), "test records"), { threads: 0 }); // 1
  planNameUpdate(bulk, "replace", "imp-2", "changed").commit(); // 2
});

after(async () => {
  await store?.close();
  await other?.close();
  await bulk?.close();
  if (dir) removeDir(dir);
});

test("every batch that changes the tree logs its updates, in order, with the values written", () => {
  assert.equal(store.head().batch, 8);
  assert.deepEqual(store.changePart(6, 0), [{ op: "restore", name: "gone", value: "back" }]);
  assert.deepEqual(store.changePart(4, 0), [{ op: "delete", name: "gone" }]);
  assert.deepEqual(
    store.changePart(7, 0).map((u) => u.op),
    ["insert", "replace", "delete", "insert"],
  );
  assert.deepEqual(store.changeHeader(8), { updates: 3, parts: 1 });
  assert.equal(store.changeHeader(0), undefined, "the creation has no change log");
  assert.throws(
    () => store.changePart(0, 0),
    (e: unknown) => e instanceof RegistryError && e.code === "CHANGES_NOT_RECORDED",
  );
});

test("a bulk import logs the rows it created: read back as inserts in key order with the values of that batch", () => {
  assert.deepEqual(bulk.changeHeader(1), { updates: 3, parts: 1, created: true });
  const part = bulk.changePart(1, 0);
  assert.deepEqual(part.map((u) => u.name).sort(), ["imp-1", "imp-2", "imp-3"]);
  assert.deepEqual(
    part.map((u) => bulk.keyOf(u.name)),
    part.map((u) => bulk.keyOf(u.name)).sort((a, b) => a - b),
    "in key order",
  );
  assert.equal(part.find((u) => u.name === "imp-2")!.value, "v-imp-2", "the value of batch 1, not the later replace");
  new BlockProver(bulk).drain();
  const v = verifyConsistency({ from: end(bulk, 0), to: end(bulk, 2) }, chainOf(bulk, 0, 2));
  assert.deepEqual(v, { ok: true, blocks: 2, unchanged: 0 });
});

test("a replayed batch goes from the root of the batch before to its own root", () => {
  for (let b = 1; b <= 8; b++) {
    const [p] = replayBatch(store, b);
    assert.equal(formatRoot(p!.fromRoot), formatRoot(store.batchEntry(b - 1).root), `batch ${b} from`);
    assert.equal(formatRoot(p!.toRoot), formatRoot(store.batchEntry(b).root), `batch ${b} to`);
  }
});

test("the block prover keeps a block per batch; the honest chain between any two sizes is accepted", () => {
  assert.equal(batchProofState(store, 3), "pending");
  const proved: number[] = [];
  // a prover stopped after two steps; a new one (a restart) goes on where it stopped
  const first = new BlockProver(store, { onProved: (s) => proved.push(s.batch) });
  assert.equal(first.step(), true);
  assert.equal(first.step(), true);
  assert.deepEqual(proved, [1, 2]);
  const prover = new BlockProver(store, { onProved: (s) => proved.push(s.batch) });
  prover.drain();
  assert.deepEqual(proved, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(proveBatch(store, 3), undefined, "a kept block is not made again");
  assert.equal(batchProofState(store, 3), "kept");
  for (const [a, b] of [
    [0, 8],
    [2, 7],
    [4, 4],
    [6, 8],
  ] as const) {
    const v = verifyConsistency({ from: end(store, a), to: end(store, b) }, chainOf(store, a, b));
    assert.deepEqual(v, { ok: true, blocks: b - a, unchanged: 0 }, `${a} → ${b}`);
  }
});

test("a chain with a block dropped, swapped, cut short or from another registry is rejected with its code", () => {
  const ends = { from: end(store, 2), to: end(store, 7) };
  const chain = chainOf(store, 2, 7);
  const code = (c: ConsistencyLink[], e = ends) => {
    const v = verifyConsistency(e, c);
    return v.ok ? "ACCEPT" : v.code;
  };
  assert.equal(code([...chain.slice(0, 2), ...chain.slice(3)]), "CHAIN_GAP");
  assert.equal(code([chain[0]!, chain[2]!, chain[1]!, ...chain.slice(3)]), "CHAIN_ORDER");
  assert.equal(code([chain[1]!, chain[0]!, ...chain.slice(2)]), "CHAIN_ORDER");
  assert.equal(code(chain.slice(0, 4)), "CHAIN_END");
  // relabelled batch numbers: the roots no longer chain
  assert.equal(
    code([chain[0]!, { ...chain[2]!, batch: 4 }, { ...chain[1]!, batch: 5 }, ...chain.slice(3)]),
    "CHAIN_ROOT",
  );
  // a block.json that names another batch than its link
  assert.equal(
    code([{ ...chain[0]!, block: { ...(chain[0]!.block as object), batch: 99 } }, ...chain.slice(1)]),
    "CHAIN_MALFORMED",
  );
  // another registry's block in the chain, its roots kept or relabelled as ours
  new BlockProver(other).drain();
  const foreign = chainOf(other, 0, 4);
  const ours = chainOf(store, 0, 4);
  const e04 = { from: end(store, 0), to: end(store, 4) };
  assert.equal(code(ours, e04), "ACCEPT");
  assert.equal(code(foreign, e04), "CHAIN_END", "another registry's chain ends at its own root");
  assert.equal(code([ours[0]!, foreign[1]!, ...ours.slice(2)], e04), "CHAIN_ROOT");
  const relabelled = {
    ...foreign[0]!,
    to_root: ours[0]!.to_root,
    block: { ...(foreign[0]!.block as object), to_root: ours[0]!.to_root },
  };
  assert.match(code([relabelled, ...ours.slice(1)], e04), /^(TO_ROOT_MISMATCH|GKR_|PUBLIC_|INPUT_|DECODE_|[A-Z_]+)/);
  assert.notEqual(code([relabelled, ...ours.slice(1)], e04), "ACCEPT");
  // a tampered proof: the block check's code
  const bad = chain.map((l, i) =>
    i === 1
      ? {
          ...l,
          proof: bytesBase64(
            Uint8Array.from(Buffer.from(l.proof as string, "base64"), (x, j) => (j === 200 ? x ^ 1 : x)),
          ),
        }
      : l,
  );
  assert.notEqual(code(bad), "ACCEPT");
  // an unchanged link whose roots differ
  assert.equal(code([{ ...chain[0]!, unchanged: true }, ...chain.slice(1)]), "CHAIN_UNCHANGED");
  assert.equal(code(chain, { from: ends.to, to: ends.from }), "CHAIN_SIZES");
});

test("a batch without a change log (committed by an earlier version) is not recorded: no block, no chain across it", async () => {
  const path = join(dir, "old");
  const old = makeRegistry(dir, 12, { sub: "old" });
  await old.close();
  // the change log rows of batch 2, as a registry of an earlier version has none
  const env = open({ path, maxDbs: 12 });
  const changes = env.openDB({ name: "changes", encoding: "binary", keyEncoding: "binary" });
  for (const key of [...changes.getKeys({ start: Buffer.of(0, 0, 0, 2), end: Buffer.of(0, 0, 0, 3) })])
    await changes.remove(key as Buffer);
  await env.close();
  const reopened = NameStore.open(path);
  try {
    assert.equal(reopened.changeHeader(2), undefined);
    assert.equal(batchProofState(reopened, 2), "not-recorded");
    assert.throws(
      () => proveBatch(reopened, 2),
      (e: unknown) => e instanceof RegistryError && e.code === "CHANGES_NOT_RECORDED",
    );
    const prover = new BlockProver(reopened);
    prover.drain();
    assert.deepEqual(
      [1, 2, 3, 4].map((b) => prover.state(b)),
      ["kept", "not-recorded", "kept", "kept"],
    );
    assert.equal(
      verifyConsistency({ from: end(reopened, 2), to: end(reopened, 4) }, chainOf(reopened, 2, 4)).ok,
      true,
      "a chain after it still verifies",
    );
  } finally {
    await reopened.close();
  }
});

test("an import of records all present commits a batch that changed nothing: unchanged, no block, and the chain across it verifies", async () => {
  const ndjson = ["imp-1", "imp-3"].map((n) => JSON.stringify({ name: n, value: `v-${n}` })).join("\n") + "\n";
  const before = bulk.head().batch;
  await importNames(bulk, () => new NdjsonSource(Buffer.from(ndjson), "test records"), { threads: 0 });
  const b = bulk.head().batch;
  assert.equal(b, before + 1, "the import commits a batch");
  assert.equal(formatRoot(bulk.batchEntry(b).root), formatRoot(bulk.batchEntry(b - 1).root), "with the root it found");
  assert.equal(bulk.changeHeader(b)?.updates, 0);
  assert.equal(batchProofState(bulk, b), "unchanged");
  new BlockProver(bulk).drain();
  assert.equal(batchProofState(bulk, b), "unchanged", "the prover makes no block of it");
  const chain = chainOf(bulk, 0, b);
  assert.deepEqual(chain.at(-1), {
    batch: b,
    from_root: formatRoot(bulk.batchEntry(b).root),
    to_root: formatRoot(bulk.batchEntry(b).root),
    unchanged: true,
  });
  assert.deepEqual(verifyConsistency({ from: end(bulk, 0), to: end(bulk, b) }, chain), {
    ok: true,
    blocks: b - 1,
    unchanged: 1,
  });
});
