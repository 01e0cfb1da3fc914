import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { mkdirSync, writeFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SparseMerkleTree } from "../../src/smt/tree.js";
import { computeRoot } from "../../src/smt/path.js";
import { LeafTag, hashLeaf, EMPTY } from "../../src/smt/leaf.js";
import { compress, digestEquals } from "../../src/hash/digest.js";
import { RegistryError } from "../../src/registry/errors.js";
import { RegistryStore, defaultDigests } from "../../src/registry/store/store.js";
import { recordLeaf, type RecordValue } from "../../src/registry/mapping.js";
import { deleteRecord, insertRecord, replaceRecord, restoreRecord } from "../../src/registry/operations.js";
import { sealRow } from "../../src/registry/store/row-checksum.js";
import { tempDir } from "./support/tmp.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const arr = (d: ArrayLike<number>) => Array.from(d);

test("empty-subtree defaults: default_0 = h_leaf(Empty), default_{l+1} = h_node(default_l, default_l); a new registry's root is default_depth", async () => {
  const d = defaultDigests(24, 31);
  assert.deepEqual(arr(d[0]!), arr(hashLeaf(EMPTY)));
  for (let l = 0; l < 24; l++) assert.deepEqual(arr(d[l + 1]!), arr(compress(d[l]!, d[l]!)));
  const store = RegistryStore.openOrCreate(join(tempDir(), "db"));
  assert.deepEqual(arr(store.head().root), arr(new SparseMerkleTree().root()));
  assert.deepEqual(arr(store.head().root), arr(d[24]!));
  assert.equal(store.history().length, 1);
  await store.close();
});

type Op = { op: "insert" | "replace" | "delete" | "restore"; pick: number; value: RecordValue };
const valueArb: fc.Arbitrary<RecordValue> = fc.oneof(
  fc.constant(null),
  fc.constantFrom("https://github.com/a/b", "x", ""),
  fc.array(fc.nat(1000), { maxLength: 3 }).map((fields) => ({ fields })),
);
const opArb: fc.Arbitrary<Op> = fc.record({
  op: fc.constantFrom("insert", "insert", "replace", "delete", "restore"),
  pick: fc.nat(50),
  value: valueArb,
});

test("store updates track the in-memory SparseMerkleTree (roots after every op, paths, reopen)", async () => {
  const base = tempDir();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
      const dir = join(base, `r${run++}`);
      const store = RegistryStore.openOrCreate(dir, { depth: 8 });
      const tree = new SparseMerkleTree({ depth: 8 });
      const names: string[] = [];
      for (const o of ops) {
        try {
          if (o.op === "insert") {
            const name = `n${names.length}`;
            const r = insertRecord(store, name, o.value);
            names.push(name);
            const leaf = recordLeaf(name, o.value, 31);
            tree.insert(BigInt(r.slot), leaf.payload, leaf.identity);
            assert.deepEqual(arr(r.oldRoot), arr(computeRoot(r.oldLeaf, BigInt(r.slot), r.siblings, 8)));
          } else if (names.length > 0) {
            const name = names[o.pick % names.length]!;
            const slot = BigInt(store.slotOf(name)!);
            const live = tree.get(slot).tag === LeafTag.Occupied;
            if (o.op === "replace") {
              if (!live) {
                assert.throws(() => replaceRecord(store, { name }, o.value), code("RECORD_ABSENT"));
                continue;
              }
              replaceRecord(store, { name }, o.value);
              const leaf = recordLeaf(name, o.value, 31);
              tree.replace(slot, leaf.payload, leaf.identity);
            } else if (o.op === "delete") {
              if (!live) {
                assert.throws(() => deleteRecord(store, { slot: Number(slot) }), code("RECORD_ABSENT"));
                continue;
              }
              deleteRecord(store, { slot: Number(slot) });
              tree.delete(slot);
            } else {
              if (live) {
                assert.throws(() => restoreRecord(store, { name }, o.value), code("RECORD_LIVE"));
                continue;
              }
              restoreRecord(store, { name }, o.value);
              const leaf = recordLeaf(name, o.value, 31);
              tree.restore(slot, leaf.payload, leaf.identity);
            }
          }
        } finally {
          assert.deepEqual(arr(store.head().root), arr(tree.root()));
        }
      }
      for (const key of [0, 1, names.length, 255]) {
        const s = store.slotState(key);
        assert.equal(s.leaf.tag, tree.get(BigInt(key)).tag);
        assert.deepEqual(s.siblings.map(arr), tree.path(BigInt(key)).map(arr));
      }
      const root = arr(store.head().root);
      const batches = store.history().length;
      await store.close();
      const again = RegistryStore.open(dir, { readOnly: true });
      assert.deepEqual(arr(again.head().root), root);
      assert.equal(again.history().length, batches);
      assert.deepEqual(arr(again.history().at(-1)!.root), root);
      await again.close();
    }),
    { numRuns: 12 },
  );
});

test("bad single-record updates get typed errors and leave the database unchanged", async () => {
  const dir = join(tempDir(), "db");
  const store = RegistryStore.openOrCreate(dir, { depth: 10 });
  insertRecord(store, "a", "https://github.com/a/a");
  insertRecord(store, "b", null);
  deleteRecord(store, { name: "b" });
  const snapshot = () => ({ root: arr(store.head().root), head: store.head(), history: store.history().length });
  const before = snapshot();
  const cases: [string, () => unknown][] = [
    ["NAME_NOT_FOUND", () => replaceRecord(store, { name: "zzz" }, null)],
    ["NAME_NOT_FOUND", () => deleteRecord(store, { name: "zzz" })],
    ["SLOT_OUT_OF_RANGE", () => deleteRecord(store, { slot: 1024 })],
    ["SLOT_OUT_OF_RANGE", () => store.slotState(-1)],
    ["SLOT_OUT_OF_RANGE", () => store.slotState(1.5)],
    ["NAME_EXISTS", () => insertRecord(store, "a", null)],
    ["NAME_DELETED", () => insertRecord(store, "b", null)],
    ["RECORD_ABSENT", () => deleteRecord(store, { name: "b" })],
    ["RECORD_ABSENT", () => replaceRecord(store, { slot: 7 }, null)],
    ["RECORD_LIVE", () => restoreRecord(store, { name: "a" })],
    ["NOT_DELETED", () => restoreRecord(store, { slot: 9 })],
    ["VALUE_TOO_LARGE", () => insertRecord(store, "c", { fields: new Array(21).fill(1) })],
    ["VALUE_TOO_LARGE", () => replaceRecord(store, { name: "a" }, { fields: new Array(21).fill(1) })],
    ["BAD_VALUE", () => insertRecord(store, "c", { fields: [2 ** 31] })],
    ["BAD_NAME", () => insertRecord(store, "", null)],
  ];
  for (const [c, f] of cases) {
    assert.throws(f, code(c), c);
    assert.deepEqual(snapshot(), before, `database changed after ${c}`);
  }
  // a deleted record restores with its last value
  const r = restoreRecord(store, { name: "b" });
  assert.equal(r.newLeaf.tag, LeafTag.Occupied);
  assert.deepEqual(arr(r.newRoot), arr(computeRoot(r.newLeaf, BigInt(r.slot), r.siblings, 10)));
  await store.close();
});

test("full registries refuse inserts (REGISTRY_FULL)", async () => {
  const store = RegistryStore.openOrCreate(join(tempDir(), "db"), { depth: 1 });
  insertRecord(store, "a", null);
  insertRecord(store, "b", null);
  assert.throws(() => insertRecord(store, "c", null), code("REGISTRY_FULL"));
  await store.close();
});

test("configuration checks: depth and leaf bound ranges, mismatch with a stored registry", async () => {
  const base = tempDir();
  assert.throws(() => RegistryStore.openOrCreate(join(base, "x"), { depth: 49 }), code("BAD_CONFIG"));
  assert.throws(() => RegistryStore.openOrCreate(join(base, "x"), { leafMaxFields: 19 }), code("BAD_CONFIG"));
  const s = RegistryStore.openOrCreate(join(base, "y"), { depth: 12 });
  await s.close();
  assert.throws(() => RegistryStore.openOrCreate(join(base, "y"), { depth: 24 }), code("CONFIG_MISMATCH"));
  const again = RegistryStore.openOrCreate(join(base, "y"));
  assert.equal(again.config.depth, 12);
  await again.close();
});

test("missing and corrupt database directories: DB_MISSING / DB_CORRUPT, nothing written", () => {
  const base = tempDir();
  assert.throws(() => RegistryStore.open(join(base, "absent")), code("DB_MISSING"));
  const other = join(base, "other");
  mkdirSync(other);
  writeFileSync(join(other, "notes.txt"), "hello");
  assert.throws(() => RegistryStore.openOrCreate(other), code("DB_CORRUPT"));
  assert.deepEqual(readdirSync(other), ["notes.txt"]);
  const garbage = join(base, "garbage");
  mkdirSync(garbage);
  const junk = Buffer.alloc(64 * 1024, 0x5a);
  writeFileSync(join(garbage, "data.mdb"), junk);
  assert.throws(() => RegistryStore.open(garbage), code("DB_CORRUPT"));
  assert.throws(() => RegistryStore.openOrCreate(garbage), code("DB_CORRUPT"));
  assert.ok(readFileSync(join(garbage, "data.mdb")).equals(junk), "data.mdb untouched");
});

test("a truncated data file is DB_CORRUPT, not a crash", async () => {
  const dir = join(tempDir(), "db");
  const store = RegistryStore.openOrCreate(dir, { depth: 16 });
  for (let i = 0; i < 40; i++) insertRecord(store, `r${i}`, `https://github.com/r/${i}`);
  await store.close();
  const data = readFileSync(join(dir, "data.mdb"));
  writeFileSync(join(dir, "data.mdb"), data.subarray(0, data.length - 4096));
  assert.throws(() => RegistryStore.open(dir), code("DB_CORRUPT"));
  writeFileSync(join(dir, "data.mdb"), data.subarray(0, 100));
  assert.throws(() => RegistryStore.open(dir), code("DB_CORRUPT"));
});

test("a tampered head is detected on open (DB_CORRUPT)", async () => {
  const dir = join(tempDir(), "db");
  const store = RegistryStore.openOrCreate(dir, { depth: 6 });
  insertRecord(store, "a", null);
  await store.close();
  const { open } = await import("lmdb");
  const env = open({ path: dir, maxDbs: 8 });
  const meta = env.openDB({ name: "meta", encoding: "binary", keyEncoding: "binary" });
  const key = Buffer.from("head");
  const sealed = meta.get(key)!;
  const head = JSON.parse(sealed.subarray(0, sealed.length - 4).toString());
  head.root[0] = (head.root[0] + 1) % 1000;
  // resealed: the row checksum holds, the head root check on open catches it
  await meta.put(key, sealRow(key, Buffer.from(JSON.stringify(head))));
  assert.throws(
    () => RegistryStore.open(dir),
    (e: unknown) => code("DB_CORRUPT")(e) && /head root of batch 1 does not match/.test((e as Error).message),
  );
  // not resealed: the row checksum catches it
  await meta.put(key, Buffer.from(JSON.stringify(head) + "abcd"));
  await env.close();
  assert.throws(
    () => RegistryStore.open(dir),
    (e: unknown) => code("DB_CORRUPT")(e) && /registry head row is damaged/.test((e as Error).message),
  );
  assert.ok(digestEquals([1], [1]));
});
