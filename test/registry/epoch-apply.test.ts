/**
 * An epoch's batched apply (registry/sequencer/epoch.ts `applyEpoch`: stored rows looked up only
 * for keys in the key index, branches the tree update creates written without looking up an
 * earlier row) against the plain path: every write committed alone (`commitNameUpdate`: its own
 * lookups, path and tree walk) into a second registry. Each epoch's results, root and records
 * equal the plain path's; every batch's tree stays readable (`readAtBatch`: each record's path at
 * that batch recomputes that batch's root, so every row an epoch overwrote was kept), and the
 * whole store checks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { compressReference, type Digest } from "../../src/hash/digest.js";
import { hashLeaf, TOMBSTONE } from "../../src/smt/leaf.js";
import { computeRootFromDigest } from "../../src/smt/path.js";
import { RegistryError } from "../../src/registry/errors.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { nameKey } from "../../src/registry/name-key.js";
import { commitNameUpdate } from "../../src/registry/name-operations.js";
import { pathOf, referenceCompact } from "../../src/registry/hashing/name-tree.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import {
  applyEpoch,
  checkEpochWrite,
  checkEpochWriteForm,
  liveDigests,
  liveRowDigests,
  type EpochWrite,
  type KeyIndex,
} from "../../src/registry/sequencer/epoch.js";
import { RecordState, encodeRecord, type StoredRecord } from "../../src/registry/store/record-codec.js";
import { tempDir } from "./support/tmp.js";

const DEPTH = 16;
const arr = (d: ArrayLike<number>) => Array.from(d);

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The root of the records by the plain recursive reference. */
function referenceRoot(store: NameStore, records: Map<string, RecordValue | "deleted">): Digest {
  const B = store.config.leafMaxFields;
  const rows = [...records]
    .map(([name, v]) => ({
      key: nameKey(name, DEPTH),
      digest: v === "deleted" ? hashLeaf(TOMBSTONE, B) : hashLeaf(recordLeaf(name, v, B), B),
    }))
    .sort((a, b) => a.key - b.key);
  return referenceCompact(
    DEPTH,
    store.defaults,
    compressReference,
    rows.map((r) => r.key),
    rows.map((r) => r.digest),
  ).root;
}

/** An epoch of writes: new names (most), replaces, deletes, restores, and writes that do not fit. */
function epochWrites(rand: () => number, e: number, names: readonly string[], count: number): EpochWrite[] {
  const out: EpochWrite[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const old = names.length > 0 ? names[Math.floor(rand() * names.length)]! : undefined;
    if (old === undefined || r < 0.55)
      out.push({ op: "put", name: `e${e}-n${i}`, value: `https://example.com/${e}/${i}` });
    else if (r < 0.7) out.push({ op: "put", name: old, value: rand() < 0.5 ? null : { fields: [e, i] } });
    else if (r < 0.82) out.push({ op: "delete", name: old });
    else if (r < 0.94) out.push({ op: "restore", name: old, ...(rand() < 0.5 ? { value: `back ${e}/${i}` } : {}) });
    else out.push({ op: "delete", name: `never-${e}-${i}` });
  }
  return out;
}

test("applyEpoch equals every write committed alone: results, roots and records; every earlier batch's tree reads back to its root; the store checks", () => {
  const dir = tempDir("ssgkr-epoch-apply-");
  const fast = NameStore.openOrCreate(join(dir, "fast"), { depth: DEPTH });
  const plain = NameStore.openOrCreate(join(dir, "plain"), { depth: DEPTH });
  const index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  const rand = rng(11);
  const records = new Map<string, RecordValue | "deleted">();
  const lastLive = new Map<string, RecordValue>();
  const byBatch: Map<string, RecordValue | "deleted">[] = [new Map()];
  let created = 0;
  let overwritten = 0;
  for (let e = 0; e < 6; e++) {
    const writes = epochWrites(rand, e, [...records.keys()], e === 0 ? 400 : 150);
    // every third epoch starts from a stale index (reloaded from the store)
    if (e % 3 === 2) index.batch = -1;
    const before = fast.head().batch;
    const o = applyEpoch(fast, index, writes);
    assert.ok(o.entry !== undefined, `epoch ${e} committed`);
    assert.equal(index.batch, o.entry.batch);
    o.results.forEach((r, i) => {
      const w = writes[i]!;
      if (!r.ok) {
        assert.throws(
          () => commitNameUpdate(plain, w.op === "put" ? "insert" : w.op, w.name, w.value),
          (err: unknown) => err instanceof RegistryError,
          `write ${i} of epoch ${e} fails on the plain path too`,
        );
        return;
      }
      commitNameUpdate(plain, r.op, w.name, w.value);
      if (r.op === "delete") records.set(w.name, "deleted");
      else {
        // a restore without a value takes the last live value
        const v = w.value !== undefined ? w.value : lastLive.get(w.name)!;
        records.set(w.name, v);
        lastLive.set(w.name, v);
      }
      if (r.op === "insert") created++;
      else overwritten++;
    });
    byBatch.push(new Map(records));
    assert.deepEqual(arr(o.entry.root), arr(plain.head().root), `root of epoch ${e}`);
    assert.deepEqual(arr(o.entry.root), arr(referenceRoot(fast, records)), `reference root of epoch ${e}`);
    assert.equal(fast.head().records, plain.head().records);
    assert.equal(fast.head().live, plain.head().live);
    for (const name of records.keys()) {
      const key = nameKey(name, DEPTH);
      assert.deepEqual(fast.leafRow(key)!.record, plain.leafRow(key)!.record, `record ${name}`);
    }
    assert.equal(fast.head().batch, before + 1);
  }
  assert.ok(created > 500 && overwritten > 100, `inserts ${created}, other updates ${overwritten}`);
  // the tree of every batch: each record's path at that batch recomputes that batch's root
  const c = fast.hasher();
  const B = fast.config.leafMaxFields;
  for (let b = 1; b < byBatch.length; b++) {
    fast.readAtBatch(b, (at) => {
      let checked = 0;
      for (const [name, v] of byBatch[b]!) {
        if (checked++ % 4 !== 0) continue;
        const key = nameKey(name, DEPTH);
        const leaf = v === "deleted" ? hashLeaf(TOMBSTONE, B) : hashLeaf(recordLeaf(name, v, B), B);
        assert.deepEqual(arr(at.leafRow(key)!.digest), arr(leaf), `leaf of ${name} at batch ${b}`);
        const path = pathOf(at.source, c, fast.defaults, DEPTH, key);
        assert.deepEqual(
          arr(computeRootFromDigest(leaf, BigInt(key), path.siblings)),
          arr(at.entry.root),
          `path of ${name} at batch ${b}`,
        );
      }
    });
  }
  const checked = fast.check();
  assert.deepEqual(arr(checked.root), arr(fast.head().root));
  assert.equal(checked.records, records.size);
  fast.closeSync();
  plain.closeSync();
});

test("leaf digests hashed from record rows equal those hashed from the records, and hashLeaf(recordLeaf) record by record", () => {
  const B = 31;
  const records: StoredRecord[] = [
    { state: RecordState.Live, name: "a", value: "https://example.com/a" },
    { state: RecordState.Live, name: "empty-text", value: "" },
    { state: RecordState.Live, name: "null", value: null },
    { state: RecordState.Live, name: "fields", value: { fields: [0, 1, 2130706432] } },
    { state: RecordState.Live, name: "one-field", value: { fields: [7] } },
    { state: RecordState.Live, name: "ü-ñ-✓ 名前", value: "väl-ü ✓ ".repeat(40) },
    { state: RecordState.Live, name: "x".repeat(300), value: "y".repeat(2000) },
  ];
  const fromRows = liveRowDigests(records.map(encodeRecord), B);
  const fromRecords = liveDigests(records, B);
  assert.equal(fromRows.length, 8 * records.length);
  assert.deepEqual(arr(fromRows), arr(fromRecords));
  records.forEach((r, i) =>
    assert.deepEqual(
      arr(fromRows.subarray(8 * i, 8 * i + 8)),
      arr(hashLeaf(recordLeaf(r.name, r.value, B), B)),
      r.name,
    ),
  );
});

test("writes checked without their key (checkEpochWriteForm, names hashed by the epoch in one batch) apply as writes keyed one by one and as unchecked writes", () => {
  const dir = tempDir("ssgkr-epoch-checked-");
  const stores = ["plain", "keyed", "checked"].map((n) => NameStore.openOrCreate(join(dir, n), { depth: DEPTH }));
  const indexes: KeyIndex[] = stores.map(() => ({ batch: -1, keys: new Float64Array(0) }));
  const rand = rng(23);
  const names: string[] = [];
  const codeOf = (f: () => unknown): string | undefined => {
    try {
      f();
      return undefined;
    } catch (e) {
      return (e as RegistryError).code;
    }
  };
  for (let e = 0; e < 5; e++) {
    const writes: EpochWrite[] = epochWrites(rand, e, names, 120);
    // writes the checks refuse, and a name twice in one epoch
    writes.push({ op: "put", name: "", value: "x" }, { op: "put", name: "Cafe\u0301", value: "y" });
    writes.push({ op: "put", name: `twice-${e}`, value: "1" }, { op: "put", name: `twice-${e}`, value: "2" });
    writes.push({ op: "put", name: `no-value-${e}` } as EpochWrite);
    const keyed = writes.map((w) => {
      try {
        return { ...w, key: checkEpochWrite(stores[1]!, w) };
      } catch {
        return w;
      }
    });
    const checked = writes.map((w) => {
      // the same refusal with and without the key
      assert.equal(
        codeOf(() => checkEpochWriteForm(stores[2]!, w)),
        codeOf(() => checkEpochWrite(stores[2]!, w)),
      );
      try {
        checkEpochWriteForm(stores[2]!, w);
        return { ...w, checked: true };
      } catch {
        return w;
      }
    });
    const outcomes = [writes, keyed, checked].map((ws, s) => applyEpoch(stores[s]!, indexes[s]!, ws));
    const shown = (o: (typeof outcomes)[number]) =>
      o.results.map((r) => (r.ok ? `${r.op}@${r.position}` : `${r.error.code}: ${r.error.message}`));
    assert.deepEqual(shown(outcomes[1]!), shown(outcomes[0]!), `keyed results of epoch ${e}`);
    assert.deepEqual(shown(outcomes[2]!), shown(outcomes[0]!), `checked results of epoch ${e}`);
    for (const o of outcomes.slice(1)) assert.deepEqual(arr(o.entry!.root), arr(outcomes[0]!.entry!.root));
    for (const w of writes) if (w.op === "put" && w.name !== "" && !names.includes(w.name)) names.push(w.name);
  }
  for (const s of stores) s.closeSync();
});
