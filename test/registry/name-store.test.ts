import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { compressReference, type Digest } from "../../src/hash/digest.js";
import { hashLeaf, TOMBSTONE } from "../../src/smt/leaf.js";
import { computeRoot } from "../../src/smt/path.js";
import { RegistryError } from "../../src/registry/errors.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { nameKey, nameKeyBig, keyOfDigest, expectedCollisions } from "../../src/registry/name-key.js";
import { NameStore, peekRegistryMapping } from "../../src/registry/store/name-store.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { planNameUpdate } from "../../src/registry/name-operations.js";
import { referenceCompact } from "../../src/registry/hashing/name-tree.js";
import { seal } from "../../src/registry/store/row-seal.js";
import { fileSource, npmReposSource } from "../../src/registry/import/dataset.js";
import { tempDir, tempFile } from "./support/tmp.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const arr = (d: ArrayLike<number>) => Array.from(d);

/** The root of a set of live/deleted records computed from scratch with the plain reference. */
function referenceRoot(store: NameStore, records: Map<string, RecordValue | "deleted">): Digest {
  const { depth, leafMaxFields: B } = store.config;
  const rows = [...records]
    .map(([name, v]) => ({
      key: nameKey(name, depth),
      digest: v === "deleted" ? hashLeaf(TOMBSTONE, B) : hashLeaf(recordLeaf(name, v, B), B),
    }))
    .sort((a, b) => a.key - b.key);
  return referenceCompact(
    depth,
    store.defaults,
    compressReference,
    rows.map((r) => r.key),
    rows.map((r) => r.digest),
  ).root;
}

test("name keys: the first depth bits of Keccak-256(name), most significant bit first (known answer)", () => {
  // Keccak-256("2048") = e64fdd85c4abae7e…
  assert.equal(nameKey("2048", 48), 0xe64fdd85c4ab);
  assert.equal(nameKey("2048", 8), 0xe6);
  assert.equal(nameKey("2048", 1), 1);
  assert.equal(nameKeyBig("2048", 64), 0xe64fdd85c4abae7en);
  assert.equal(BigInt(nameKey("2048", 48)), nameKeyBig("2048", 48));
  assert.equal(keyOfDigest(new Uint8Array(32).fill(0xff), 48), 2 ** 48 - 1);
  // 4,483,635 names: about 600,000 colliding pairs at depth 24, 0.04 at depth 48
  assert.ok(Math.abs(expectedCollisions(4_483_635, 24) - 599_168) < 1000);
  assert.ok(Math.abs(expectedCollisions(4_483_635, 48) - 0.0357) < 0.001);
});

test("name-keyed import: the root equals the plain reference, in one batch or many, and survives a reopen", async () => {
  const dir = join(tempDir(), "db");
  const store = NameStore.openOrCreate(dir, { depth: 48 });
  assert.equal(peekRegistryMapping(dir), "record-leaf-v2");
  assert.deepEqual(
    readdirSync(join(dir, "..")).filter((e) => e.includes(".creating-")),
    [],
    "no temporary creation directory is left",
  );
  const report = await importNames(store, () => npmReposSource(700), {
    threads: 0,
    batchSize: 150,
    onError: "fail",
    bulk: false,
  });
  assert.equal(report.imported, 700);
  assert.equal(report.batches, 5);
  const one = NameStore.openOrCreate(join(tempDir(), "db1"), { depth: 48 });
  const r1 = await importNames(one, () => npmReposSource(700), { threads: 1, batchSize: 100_000 });
  assert.deepEqual(arr(r1.root), arr(report.root), "batching does not change the root");
  await one.close();
  // the reference over the same records
  const records = new Map<string, RecordValue | "deleted">();
  store.read((txn) => {
    for (const row of store.leafRows(txn)) records.set(row.record.name, row.record.value);
  });
  assert.equal(records.size, 700);
  assert.deepEqual(arr(referenceRoot(store, records)), arr(report.root));
  const checked = store.check();
  assert.equal(checked.records, 700);
  assert.equal(checked.branches, 699);
  assert.deepEqual(arr(checked.root), arr(report.root));
  await store.close();
  const again = NameStore.open(dir, { readOnly: true });
  assert.deepEqual(arr(again.head().root), arr(report.root));
  for (const name of ["2048", "never-registered-name"]) {
    const s = again.nameState(name);
    assert.deepEqual(arr(computeRoot(s.leaf, BigInt(s.key), s.path.siblings, 48)), arr(s.head.root));
  }
  await again.close();
});

test("name-keyed updates: insert, replace, delete, restore keep the root equal to the reference; refused updates change nothing", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: 20 });
  const records = new Map<string, RecordValue | "deleted">();
  const apply = (kind: "insert" | "replace" | "delete" | "restore", name: string, value?: RecordValue) => {
    const p = planNameUpdate(store, kind, name, value);
    const entry = p.commit();
    records.set(
      name,
      kind === "delete" ? "deleted" : kind === "restore" && value === undefined ? (p.newValue as RecordValue) : value!,
    );
    assert.deepEqual(arr(entry.root), arr(referenceRoot(store, records)), `${kind} ${name}`);
    assert.deepEqual(arr(entry.root), arr(p.newRoot));
  };
  for (let i = 0; i < 25; i++) apply("insert", `pkg-${i}`, i % 3 === 0 ? null : `https://github.com/o/pkg-${i}`);
  apply("replace", "pkg-4", { fields: [1, 2, 3] });
  apply("delete", "pkg-7");
  apply("restore", "pkg-7");
  apply("delete", "pkg-9");
  const before = store.history().length;
  assert.throws(() => planNameUpdate(store, "insert", "pkg-4", null), code("NAME_EXISTS"));
  assert.throws(() => planNameUpdate(store, "insert", "pkg-9", null), code("NAME_DELETED"));
  assert.throws(() => planNameUpdate(store, "replace", "pkg-9", null), code("RECORD_ABSENT"));
  assert.throws(() => planNameUpdate(store, "delete", "nope", undefined), code("RECORD_ABSENT"));
  assert.throws(() => planNameUpdate(store, "restore", "pkg-1", undefined), code("RECORD_LIVE"));
  assert.throws(() => planNameUpdate(store, "restore", "nope", undefined), code("NOT_DELETED"));
  assert.throws(() => planNameUpdate(store, "insert", "", null), code("BAD_NAME"));
  const p = planNameUpdate(store, "insert", "late", null);
  planNameUpdate(store, "insert", "other", null).commit();
  records.set("other", null);
  assert.throws(() => p.commit(), code("CONCURRENT_UPDATE"));
  assert.equal(store.history().length, before + 1);
  assert.deepEqual(arr(store.head().root), arr(referenceRoot(store, records)));
  const h = store.head();
  assert.equal(h.live, 25);
  assert.equal(h.deleted, 1);
  await store.close();
});

test("a key collision is refused with KEY_COLLISION saying what to do; imports report it per line", async () => {
  const store = NameStore.openOrCreate(join(tempDir(), "db"), { depth: 4 });
  const names = Array.from({ length: 40 }, (_, i) => `n${i}`);
  const byKey = new Map<number, string>();
  let a = "",
    b = "";
  for (const n of names) {
    const k = nameKey(n, 4);
    if (byKey.has(k) && a === "") [a, b] = [byKey.get(k)!, n];
    byKey.set(k, n);
  }
  planNameUpdate(store, "insert", a, null).commit();
  assert.throws(
    () => planNameUpdate(store, "insert", b, null),
    (e: unknown) =>
      e instanceof RegistryError &&
      e.code === "KEY_COLLISION" &&
      /larger --depth/.test(e.message) &&
      e.message.includes(JSON.stringify(a)),
  );
  const file = tempFile("c.ndjson", names.map((n) => JSON.stringify({ name: n, value: null })).join("\n") + "\n");
  await assert.rejects(
    importNames(store, () => fileSource(file), { threads: 0 }),
    code("IMPORT_REJECTED"),
  );
  assert.equal(store.head().records, 1, "a rejected import writes nothing");
  const issues: string[] = [];
  const r = await importNames(store, () => fileSource(file), {
    threads: 0,
    onError: "skip",
    onMalformed: (i) => issues.push(i.code),
  });
  assert.equal(r.present, 1, "the stored record with the same value is left as it is");
  assert.equal(r.imported + r.present + issues.length, names.length);
  assert.ok(issues.includes("KEY_COLLISION"));
  assert.equal(store.head().records, 16, "depth 4 holds 16 keys");
  await store.close();
});

test("name-keyed store: damaged rows give DB_CORRUPT naming the row; creation is atomic", async () => {
  const dir = join(tempDir(), "db");
  const store = NameStore.openOrCreate(dir, { depth: 16 });
  for (const n of ["a", "b", "c", "d"]) planNameUpdate(store, "insert", n, `https://github.com/x/${n}`).commit();
  const key = store.keyOf("b");
  await store.close();
  const env = open({ path: dir, maxDbs: 8, encoding: "binary", keyEncoding: "binary" });
  const leaves = env.openDB({ name: "leaves", encoding: "binary", keyEncoding: "binary" });
  const k = Buffer.alloc(8);
  k.writeUIntBE(key, 2, 6);
  const row = Buffer.from(leaves.get(k) as Buffer);
  row[5]! ^= 1;
  await leaves.put(k, row);
  await env.close();
  const again = NameStore.open(dir, { readOnly: true });
  assert.throws(
    () => again.nameState("b"),
    (e: unknown) =>
      e instanceof RegistryError && e.code === "DB_CORRUPT" && e.message.includes(`leaf row of key ${key}`),
  );
  assert.throws(
    () => again.check(),
    (e: unknown) =>
      e instanceof RegistryError && e.code === "DB_CORRUPT" && e.message.includes(`leaf row of key ${key}`),
  );
  await again.close();

  // a branch row with a valid checksum but another digest: found by check(), naming the row
  const dir2 = join(tempDir(), "db2");
  const s2 = NameStore.openOrCreate(dir2, { depth: 16 });
  for (let i = 0; i < 40; i++) planNameUpdate(s2, "insert", `name-${i}`, null).commit();
  assert.equal(s2.check().branches, 39);
  await s2.close();
  const env2 = open({ path: dir2, maxDbs: 8, encoding: "binary", keyEncoding: "binary" });
  const branches = env2.openDB({ name: "branches", encoding: "binary", keyEncoding: "binary" });
  const first = [...branches.getKeys()][0] as Buffer; // the lowest branch: not read when the head is checked on open
  const forged = new Uint8Array(32);
  forged[0] = 7;
  await branches.put(first, seal(3, first, forged));
  await env2.close();
  const s3 = NameStore.open(dir2, { readOnly: true });
  assert.throws(
    () => s3.check(),
    (e: unknown) =>
      e instanceof RegistryError &&
      e.code === "DB_CORRUPT" &&
      /branch row \(height \d+, prefix \d+\) does not match/.test(e.message),
  );
  await s3.close();

  // a creation killed before its rename leaves a temporary directory only; the next creation removes it
  const target = join(tempDir(), "fresh");
  const stale = `${target}.creating-999999999-x`;
  mkdirSync(stale);
  writeFileSync(join(stale, "data.mdb"), "");
  assert.equal(peekRegistryMapping(target), undefined);
  assert.throws(() => NameStore.open(target, { readOnly: true }), code("DB_MISSING"));
  const created = NameStore.openOrCreate(target);
  assert.equal(existsSync(stale), false);
  assert.equal(created.config.depth, 48);
  await created.close();
});

test("the head: each commit's head is read at once, by this handle and by another; a caller's change to a head it got does not reach the next read", async () => {
  const dir = join(tempDir(), "db");
  const store = NameStore.openOrCreate(dir, { depth: 48 });
  const other = NameStore.openOrCreate(dir, { depth: 48 });
  for (let i = 0; i < 4; i++) {
    const entry = planNameUpdate(store, "insert", `head-${i}`, `https://example.com/${i}`).commit();
    // another handle's reads outside a transaction take a new snapshot a little later (lmdb's read transaction is renewed)
    for (let t = 0; other.head().batch !== entry.batch && t < 200; t++) await new Promise((r) => setTimeout(r, 10));
    for (const s of [store, other]) {
      const h = s.head();
      assert.equal(h.batch, entry.batch);
      assert.deepEqual(arr(h.root), arr(entry.root));
      assert.equal(h.live, i + 1);
      h.root.fill(0);
      assert.deepEqual(arr(s.head().root), arr(entry.root), "a changed copy is not the next head");
    }
  }
  await other.close();
  await store.close();
});
