/**
 * Proofs at earlier roots of name-keyed registries (format 4): the name state and proofs at the
 * head and at earlier roots of the retention window, the window moving with the retention,
 * `ROOT_NOT_PROVABLE` naming the oldest provable root (store, CLI and HTTP), `registry check` of
 * the kept rows, the upgrades of format-2 and format-3 registries, and SIGKILLed writers leaving
 * registries that open and check.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { open, type Database } from "lmdb";
import type { Digest } from "../../src/hash/digest.js";
import { computeRoot } from "../../src/smt/path.js";
import { RegistryError } from "../../src/registry/errors.js";
import type { RecordValue } from "../../src/registry/mapping.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { planNameUpdate, type NameUpdateKind } from "../../src/registry/name-operations.js";
import { proveNameStatement } from "../../src/registry/name-prove.js";
import { verifyRecordProof } from "../../src/registry/verify-record.js";
import { formatRoot } from "../../src/registry/root.js";
import { RecordState, decodeRecord } from "../../src/registry/store/record-codec.js";
import { recordRowOfDelta } from "../../src/registry/store/leaf-delta.js";
import { recordLeaf } from "../../src/registry/mapping.js";
import { TOMBSTONE, hashLeaf } from "../../src/smt/leaf.js";
import { seal, unseal } from "../../src/registry/store/row-seal.js";
import { upgradeRegistry } from "../../src/registry/store/upgrade.js";
import { importNames } from "../../src/registry/import/name-import.js";
import { fileSource } from "../../src/registry/import/dataset.js";
import { keptIndexKey, keptKeyParts, keptRows } from "../../src/registry/store/kept-chunks.js";
import { decodeHistoryRow } from "../../src/registry/store/name-history.js";
import { tempDir } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";
import { startServer } from "../web/support.js";

const code = (c: string) => (e: unknown) => e instanceof RegistryError && e.code === c;
const arr = (d: ArrayLike<number>) => Array.from(d);
const DEPTH = 48;

function update(store: NameStore, kind: NameUpdateKind, name: string, value?: RecordValue): Digest {
  return planNameUpdate(store, kind, name, value).commit().root;
}

/** What a name holds at a root: its value, "deleted" or undefined (never registered), and that its path recomputes the root. */
function heldAt(store: NameStore, name: string, root: Digest): RecordValue | "deleted" | undefined {
  const s = store.nameStateAt(name, root);
  assert.deepEqual(
    arr(computeRoot(s.leaf, BigInt(s.key), s.path.siblings, store.config.depth, store.config.leafMaxFields)),
    arr(root),
    `the path of ${name} recomputes the root`,
  );
  assert.deepEqual(arr(s.head.root), arr(root));
  if (s.record === undefined) return undefined;
  return s.record.state === RecordState.Deleted ? "deleted" : s.record.value;
}

/** A registry with background records and the five batches of the history tests; the roots after each. */
function historyRegistry(
  dir: string,
  retention?: { commits?: number; days?: number },
): { store: NameStore; roots: Digest[] } {
  const store = NameStore.openOrCreate(dir, { depth: DEPTH, ...(retention ? { retention } : {}) });
  for (let i = 0; i < 12; i++) update(store, "insert", `bg-${i}`, `https://github.com/bg/${i}`);
  const roots = [store.head().root];
  roots.push(update(store, "insert", "a", "a1"));
  roots.push(update(store, "insert", "b", "b1"));
  roots.push(update(store, "replace", "a", "a2"));
  roots.push(update(store, "delete", "b"));
  roots.push(update(store, "insert", "c", "c1"));
  return { store, roots };
}

test("name state at the head and at earlier roots: names added, replaced and deleted between roots answer as they were", () => {
  const { store, roots } = historyRegistry(join(tempDir(), "db"));
  try {
    const expected: [
      RecordValue | "deleted" | undefined,
      RecordValue | "deleted" | undefined,
      RecordValue | "deleted" | undefined,
    ][] = [
      [undefined, undefined, undefined],
      ["a1", undefined, undefined],
      ["a1", "b1", undefined],
      ["a2", "b1", undefined],
      ["a2", "deleted", undefined],
      ["a2", "deleted", "c1"],
    ];
    roots.forEach((root, i) => {
      assert.deepEqual(
        ["a", "b", "c"].map((n) => heldAt(store, n, root)),
        expected[i],
        `at root ${i}`,
      );
      assert.equal(
        heldAt(store, "bg-3", root),
        "https://github.com/bg/3",
        `a record older than every root, at root ${i}`,
      );
    });
    assert.deepEqual(store.check().root, store.head().root);
  } finally {
    store.closeSync();
  }
});

test("proofs at earlier roots verify: membership and absence (never registered and deleted), and the wrong claim is refused", () => {
  const { store, roots } = historyRegistry(join(tempDir(), "db"));
  try {
    const { depth, leafMaxFields } = store.config;
    const claim = { depth, leafMaxFields };
    const m = proveNameStatement(store, "membership", "a", undefined, undefined, roots[1]);
    assert.deepEqual(arr(m.request.oldRoot), arr(roots[1]!));
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[1]!, name: "a", value: "a1", ...claim }, m.request, m.proof).ok,
      true,
      "a = a1 at root 1",
    );
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[1]!, name: "a", value: "a2", ...claim }, m.request, m.proof).ok,
      false,
      "not a = a2 at root 1",
    );
    const never = proveNameStatement(store, "nonmembership", "c", undefined, undefined, roots[3]);
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[3]!, name: "c", absent: true, ...claim }, never.request, never.proof).ok,
      true,
      "c absent at root 3",
    );
    const deleted = proveNameStatement(store, "nonmembership", "b", undefined, undefined, roots[4]);
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[4]!, name: "b", absent: true, ...claim }, deleted.request, deleted.proof)
        .ok,
      true,
      "b absent (deleted) at root 4",
    );
    assert.throws(
      () => proveNameStatement(store, "membership", "b", undefined, undefined, roots[4]),
      code("RECORD_ABSENT"),
    );
    assert.throws(
      () => proveNameStatement(store, "nonmembership", "b", undefined, undefined, roots[2]),
      code("RECORD_LIVE"),
    );
    const head = proveNameStatement(store, "membership", "c", undefined, undefined, roots[5]);
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[5]!, name: "c", value: "c1", ...claim }, head.request, head.proof).ok,
      true,
      "c at the head",
    );
  } finally {
    store.closeSync();
  }
});

test("a root pruned out of the window is ROOT_NOT_PROVABLE naming the oldest provable root and size (store, CLI line and HTTP 410 body)", async () => {
  const dir = join(tempDir(), "db");
  const { store, roots } = historyRegistry(dir, { commits: 3 });
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const head = store.head().batch;
    const w = store.window();
    assert.equal(w.oldestBatch, head - 3);
    assert.deepEqual(arr(w.oldestRoot), arr(roots[roots.length - 4]!));
    assert.equal(heldAt(store, "b", w.oldestRoot as Digest), "b1", "the oldest provable root is provable");
    let thrown: unknown;
    assert.throws(
      () => store.nameStateAt("a", roots[1]),
      (e) => ((thrown = e), code("ROOT_NOT_PROVABLE")(e)),
    );
    const details = (thrown as RegistryError).details as { oldestRoot: string; oldestSize: number };
    assert.equal(details.oldestRoot, formatRoot(w.oldestRoot));
    assert.equal(details.oldestSize, head - 3);
    assert.throws(() => store.nameStateAt("a", Uint32Array.of(1, 2, 3, 4, 5, 6, 7, 8)), code("ROOT_UNKNOWN"));
    assert.equal(store.check().records, 15, "pruned versions leave a registry that checks");

    const out = join(tempDir(), "proof");
    const cli = await runCli(
      "registry",
      "prove",
      "membership",
      "--db",
      dir,
      "--name",
      "a",
      "--root",
      formatRoot(roots[1]!),
      "--out",
      out,
    );
    assert.equal(cli.code, 2, cli.err);
    assert.match(cli.err, /ROOT_NOT_PROVABLE/);
    assert.ok(cli.err.includes(`oldest provable root ${formatRoot(w.oldestRoot)} (size ${head - 3})`), cli.err);
    const ok = await runCli(
      "registry",
      "prove",
      "membership",
      "--db",
      dir,
      "--name",
      "b",
      "--root",
      formatRoot(w.oldestRoot),
      "--out",
      out,
    );
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, new RegExp(`root=${formatRoot(w.oldestRoot)}`));

    server = await startServer({ store, rateLimit: 0 });
    const res = await fetch(`${server.base}/v1/records/a/proof?root=${formatRoot(roots[1]!)}`);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 410);
    assert.equal(body["code"], "ROOT_NOT_PROVABLE");
    assert.equal(body["oldest_root"], formatRoot(w.oldestRoot));
    assert.equal(body["oldest_size"], head - 3);
    const inWindow = await fetch(`${server.base}/v1/records/b/proof?root=${formatRoot(w.oldestRoot)}`);
    const proof = (await inWindow.json()) as {
      statement: { root: string; batch: number; value?: string };
      cached: boolean;
    };
    assert.equal(inWindow.status, 200);
    assert.equal(proof.statement.root, formatRoot(w.oldestRoot));
    assert.equal(proof.statement.batch, head - 3);
    assert.equal(proof.statement.value, "b1");
  } finally {
    await server?.app.close();
    store.closeSync();
  }
});

test("the retention can be changed: a shorter one prunes at the next commit, by count and by age", () => {
  const { store, roots } = historyRegistry(join(tempDir(), "db"));
  try {
    assert.equal(store.window().oldestBatch, 0, "the default keeps 1,000 batches");
    store.setRetention({ commits: 2 });
    update(store, "replace", "c", "c2");
    assert.equal(store.window().oldestBatch, store.head().batch - 2);
    assert.throws(() => store.nameStateAt("a", roots[3]), code("ROOT_NOT_PROVABLE"));
    store.setRetention({ commits: 100, days: 0 });
    update(store, "replace", "c", "c3");
    assert.equal(store.window().oldestBatch, store.head().batch, "days 0: only the head stays provable");
    assert.throws(() => store.setRetention({ commits: -1 }), code("BAD_CONFIG"));
    store.check();
  } finally {
    store.closeSync();
  }
});

/** Rewrites the binary history rows of a format-4 registry as the JSON rows of formats 2 and 3 (inside a write transaction). */
function historyToJson(history: Database<Buffer, Buffer>): void {
  for (const { key, value } of [...history.getRange({})]) {
    const k = Buffer.from(key);
    const e = decodeHistoryRow(unseal(4, k, value, "history"), "history");
    history.putSync(k, seal(4, k, Buffer.from(JSON.stringify({ ...e, root: Array.from(e.root) }))));
  }
}

/** Rewrites a format-4 registry into the format-2 layout (leaf rows without their creating batch, no earlier-root rows, JSON history rows). */
function toFormat2(dir: string): void {
  const env = open<Buffer, Buffer>({
    path: dir,
    maxDbs: 8,
    encoding: "binary",
    keyEncoding: "binary",
    compression: false,
  });
  const meta = env.openDB<Buffer, Buffer>({ name: "meta", encoding: "binary", keyEncoding: "binary" });
  const leaves = env.openDB<Buffer, Buffer>({ name: "leaves", encoding: "binary", keyEncoding: "binary" });
  env.transactionSync(() => {
    const rows = [...leaves.getRange({})].map(({ key, value }) => ({
      key: Buffer.from(key),
      value: Buffer.from(value),
    }));
    for (const { key, value } of rows) {
      const v = unseal(2, key, value, "leaf");
      leaves.putSync(key, seal(2, key, v.subarray(0, v.length - 4)));
    }
    const config = Buffer.from(unseal(1, Buffer.from("config"), meta.get(Buffer.from("config"))!, "config"));
    const c = JSON.parse(config.toString());
    meta.putSync(
      Buffer.from("config"),
      seal(1, Buffer.from("config"), Buffer.from(JSON.stringify({ ...c, version: 2 }))),
    );
    meta.removeSync(Buffer.from("retention"));
    meta.removeSync(Buffer.from("window"));
    historyToJson(env.openDB<Buffer, Buffer>({ name: "history", encoding: "binary", keyEncoding: "binary" }));
  });
  void env.close();
}

test("registry upgrade of a format-2 registry: opens refuse it until then; roots from the upgrade on are provable, earlier ones are not", async () => {
  const dir = join(tempDir(), "db");
  const s0 = NameStore.openOrCreate(dir, { depth: 24 });
  update(s0, "insert", "old", "o1");
  const before = update(s0, "insert", "kept", "k1");
  await s0.close();
  toFormat2(dir);
  assert.throws(() => NameStore.open(dir), code("DB_OUTDATED"));
  const r = await runCli("registry", "upgrade", "--db", dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /from format 2 to 4/);
  assert.equal(upgradeRegistry(dir).fromVersion, 4, "a second upgrade writes nothing");
  const store = NameStore.open(dir);
  try {
    assert.equal(store.check().records, 2);
    assert.equal(heldAt(store, "kept", before), "k1", "the head at the upgrade is provable");
    const roots = [
      update(store, "replace", "kept", "k2"),
      update(store, "delete", "old"),
      update(store, "insert", "new", "n1"),
    ];
    assert.deepEqual(
      [heldAt(store, "kept", before), heldAt(store, "old", before), heldAt(store, "new", before)],
      ["k1", "o1", undefined],
    );
    assert.deepEqual(
      [heldAt(store, "kept", roots[0]!), heldAt(store, "old", roots[1]!), heldAt(store, "new", roots[1]!)],
      ["k2", "deleted", undefined],
    );
    assert.throws(
      () => store.nameStateAt("old", store.history()[1]!.root),
      code("ROOT_NOT_PROVABLE"),
      "a root before the upgrade",
    );
    store.check();
  } finally {
    store.closeSync();
  }
});

test("a batch that overwrites more than one chunk of rows: its earlier root stays provable, and pruning removes all its chunks", async () => {
  const dir = tempDir();
  const first = join(dir, "first.ndjson"),
    second = join(dir, "second.ndjson");
  const lines = (n: number, f: (i: number) => object) =>
    `${Array.from({ length: n }, (_, i) => JSON.stringify(f(i))).join("\n")}\n`;
  writeFileSync(
    first,
    lines(3000, (i) => ({ name: `n${i}`, value: `v${i}` })),
  );
  writeFileSync(
    second,
    lines(2000, (i) => ({ name: `m${i}`, value: `w${i}` })),
  );
  const store = NameStore.openOrCreate(join(dir, "db"), { depth: DEPTH, retention: { commits: 3 } });
  try {
    await importNames(store, () => fileSource(first), { onError: "fail", threads: 0 });
    const before = store.head().root;
    await importNames(store, () => fileSource(second), { onError: "fail", threads: 0 });
    const after = store.head().root;
    const chunks = () => store.read((txn) => [...rawKept(store).getKeys({ transaction: txn } as never)].length);
    assert.ok(chunks() > 1, `the insert batch keeps ${chunks()} chunks`);
    for (const i of [0, 1, 1234, 2999]) {
      assert.equal(heldAt(store, `n${i}`, before), `v${i}`);
      assert.equal(heldAt(store, `n${i}`, after), `v${i}`);
      assert.equal(heldAt(store, `m${i % 2000}`, before), undefined);
      assert.equal(heldAt(store, `m${i % 2000}`, after), `w${i % 2000}`);
    }
    const { depth, leafMaxFields } = store.config;
    const m = proveNameStatement(store, "membership", "n7", undefined, undefined, before);
    assert.equal(
      verifyRecordProof({ trustedRoot: before, name: "n7", value: "v7", depth, leafMaxFields }, m.request, m.proof).ok,
      true,
    );
    store.check();
    for (let i = 0; i < 4; i++) update(store, "replace", `n${i}`, `x${i}`);
    assert.throws(() => store.nameStateAt("n7", after), code("ROOT_NOT_PROVABLE"));
    assert.equal(chunks(), 3, "only the chunks of the three batches of the window are left");
    store.check();
  } finally {
    store.closeSync();
  }
});

/** The `kept` table of an open store (a private field, read by the tests of its chunks). */
function rawKept(store: NameStore): Database<Buffer, Buffer> {
  return (store as unknown as { kept: Database<Buffer, Buffer> }).kept;
}

/** Opens a registry's LMDB environment directly (tests that rewrite its rows). */
function rawEnv(dir: string) {
  return open<Buffer, Buffer>({ path: dir, maxDbs: 12, encoding: "binary", keyEncoding: "binary", compression: false });
}

/** 8-byte BE of a key or prefix. */
function be8(x: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(Math.floor(x / 2 ** 32), 0);
  b.writeUInt32BE(x >>> 0, 4);
  return b;
}

/** The format-3 version row value of a kept leaf value: record row ‖ leaf digest ‖ creating batch (the head row's name and creating batch). */
function fullLeafValue(leaves: Database<Buffer, Buffer>, key: number, delta: Uint8Array): Buffer {
  const head = Buffer.from(unseal(2, be8(key), leaves.get(be8(key))!, "leaf"));
  const name = head.subarray(3, 3 + head.readUInt16LE(1));
  const row = recordRowOfDelta(delta, name, "kept leaf");
  const record = decodeRecord(row);
  const digest = hashLeaf(
    record.state === RecordState.Deleted ? TOMBSTONE : recordLeaf(record.name, record.value, 31),
    31,
  );
  const words = Buffer.alloc(32);
  digest.forEach((w, i) => words.writeUInt32LE(w, 4 * i));
  return Buffer.concat([row, words, head.subarray(head.length - 4)]);
}

/**
 * Rewrites a format-4 registry into the format-3 layout: each kept value a `versions` row under
 * table tag ‖ row key ‖ batch (tag 5), each batch's superseded rows listed in `pruning` chunks
 * (tag 6), the change log in `meta` under `changes:<batch>[:<part>]`, JSON history rows, no
 * `kept`, `kept-index` or `changes` table.
 */
function toFormat3(dir: string): number {
  const env = rawEnv(dir);
  const meta = env.openDB<Buffer, Buffer>({ name: "meta", encoding: "binary", keyEncoding: "binary" });
  const kept = env.openDB<Buffer, Buffer>({ name: "kept", encoding: "binary", keyEncoding: "binary" });
  const index = env.openDB<Buffer, Buffer>({
    name: "kept-index",
    encoding: "binary",
    keyEncoding: "binary",
    dupSort: true,
    dupFixed: true,
  } as never);
  const versions = env.openDB<Buffer, Buffer>({ name: "versions", encoding: "binary", keyEncoding: "binary" });
  const pruning = env.openDB<Buffer, Buffer>({ name: "pruning", encoding: "binary", keyEncoding: "binary" });
  const leaves = env.openDB<Buffer, Buffer>({ name: "leaves", encoding: "binary", keyEncoding: "binary" });
  let n = 0;
  env.transactionSync(() => {
    for (const { key, value } of [...kept.getRange({})].map((r) => ({
      key: Buffer.from(r.key),
      value: Buffer.from(r.value),
    }))) {
      const { batch } = keptKeyParts(key);
      const list: Buffer[] = [];
      for (const row of keptRows(unseal(7, key, value, "kept"), "kept")) {
        const rowKey =
          row.height === 0
            ? Buffer.concat([Buffer.of(2), be8(row.prefix)])
            : Buffer.concat([Buffer.of(3, row.height), be8(row.prefix)]);
        const bb = Buffer.alloc(4);
        bb.writeUInt32BE(batch);
        const vk = Buffer.concat([rowKey, bb]);
        versions.putSync(vk, seal(5, vk, row.height === 0 ? fullLeafValue(leaves, row.prefix, row.value) : row.value));
        list.push(rowKey);
        n++;
      }
      const pk = Buffer.from(key);
      pruning.putSync(pk, seal(6, pk, Buffer.concat(list)));
    }
    const changes = env.openDB<Buffer, Buffer>({ name: "changes", encoding: "binary", keyEncoding: "binary" });
    for (const { key, value } of [...changes.getRange({})]) {
      const k = Buffer.from(key);
      const digits = (x: number, w: number) => String(x).padStart(w, "0");
      const mk = Buffer.from(
        `changes:${digits(k.readUInt32BE(0), 10)}${k.length === 8 ? `:${digits(k.readUInt32BE(4), 6)}` : ""}`,
        "latin1",
      );
      meta.putSync(mk, seal(1, mk, unseal(8, k, value, "change-log row")));
    }
    changes.dropSync();
    historyToJson(env.openDB<Buffer, Buffer>({ name: "history", encoding: "binary", keyEncoding: "binary" }));
    kept.dropSync();
    index.dropSync();
    const config = Buffer.from(unseal(1, Buffer.from("config"), meta.get(Buffer.from("config"))!, "config"));
    meta.putSync(
      Buffer.from("config"),
      seal(1, Buffer.from("config"), Buffer.from(JSON.stringify({ ...JSON.parse(config.toString()), version: 3 }))),
    );
  });
  void env.close();
  return n;
}

test("registry upgrade of a format-3 registry: opens refuse it until then; every root of its window stays provable and later commits prune", async () => {
  const dir = join(tempDir(), "db");
  const { store: s0, roots } = historyRegistry(dir);
  const held = roots.map((root) => ["a", "b", "c", "bg-3"].map((n) => heldAt(s0, n, root)));
  const history = s0.history();
  const last = s0.head().batch;
  const logged = [s0.changeHeader(last), s0.changePart(last, 0)];
  await s0.close();
  const rows = toFormat3(dir);
  assert.ok(rows > 20, `the format-3 layout keeps the values (${rows} rows)`);
  assert.throws(() => NameStore.open(dir), code("DB_OUTDATED"));
  const r = await runCli("registry", "upgrade", "--db", dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /from format 3 to 4: /);
  assert.equal(upgradeRegistry(dir).fromVersion, 4, "a second upgrade writes nothing");
  const store = NameStore.open(dir);
  try {
    assert.equal(store.check().records, 15);
    assert.deepEqual([store.changeHeader(last), store.changePart(last, 0)], logged, "the change log moved");
    assert.deepEqual(store.history(), history, "the history rows read the same");
    roots.forEach((root, i) =>
      assert.deepEqual(
        ["a", "b", "c", "bg-3"].map((n) => heldAt(store, n, root)),
        held[i],
        `at root ${i} after the upgrade`,
      ),
    );
    const m = proveNameStatement(store, "membership", "a", undefined, undefined, roots[1]);
    const claim = { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields };
    assert.equal(
      verifyRecordProof({ trustedRoot: roots[1]!, name: "a", value: "a1", ...claim }, m.request, m.proof).ok,
      true,
    );
    store.setRetention({ commits: 2 });
    update(store, "replace", "c", "c2");
    update(store, "replace", "c", "c3");
    assert.equal(store.window().oldestBatch, store.head().batch - 2);
    assert.throws(() => store.nameStateAt("a", roots[3]!), code("ROOT_NOT_PROVABLE"));
    store.check();
  } finally {
    store.closeSync();
  }
  const c = await runCli("registry", "check", "--db", dir);
  assert.equal(c.code, 0, c.err);
});

test("registry check of the kept rows: a kept row its index does not name, an index entry without its row, and a damaged chunk are DB_CORRUPT", async () => {
  const damage: ((kept: Database<Buffer, Buffer>, index: Database<Buffer, Buffer>) => void)[] = [
    (kept, index) => {
      const { key } = [...kept.getRange({ limit: 1 })][0]!;
      const row = [...keptRows(unseal(7, key, kept.get(key)!, "kept"), "kept")][0]!;
      const ik = keptIndexKey(row.height, row.prefix);
      index.removeSync(ik, Buffer.from(key));
    },
    (_kept, index) => {
      const k = keptIndexKey(5, 7);
      const v = Buffer.alloc(6);
      v.writeUInt32BE(3);
      index.putSync(k, v);
    },
    (kept) => {
      const { key, value } = [...kept.getRange({ limit: 1 })][0]!;
      const bad = Buffer.from(value);
      bad[3] = bad[3]! ^ 1;
      kept.putSync(Buffer.from(key), bad);
    },
  ];
  for (const [i, hurt] of damage.entries()) {
    const dir = join(tempDir(), `db${i}`);
    const { store } = historyRegistry(dir);
    await store.close();
    const env = rawEnv(dir);
    const kept = env.openDB<Buffer, Buffer>({ name: "kept", encoding: "binary", keyEncoding: "binary" });
    const index = env.openDB<Buffer, Buffer>({
      name: "kept-index",
      encoding: "binary",
      keyEncoding: "binary",
      dupSort: true,
      dupFixed: true,
    } as never);
    env.transactionSync(() => hurt(kept, index));
    await env.close();
    const s = NameStore.open(dir);
    try {
      assert.throws(() => s.check(), code("DB_CORRUPT"), `damage ${i}`);
    } finally {
      s.closeSync();
    }
    const c = await runCli("registry", "check", "--db", dir);
    assert.notEqual(c.code, 0, `registry check fails on damage ${i}`);
    assert.match(c.err, /DB_CORRUPT/);
  }
});

const child = fileURLToPath(new URL("./support/writer-child.js", import.meta.url));

/** Runs the child's name updates and SIGKILLs it once it has printed `after` batches. */
function killAfter(dir: string, after: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, "name-updates", dir, "400"], { stdio: ["ignore", "pipe", "inherit"] });
    let seen = 0;
    const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    proc.stdout.on("data", (c: Buffer) => {
      seen += (c.toString().match(/batch /g) ?? []).length;
      if (seen >= after) proc.kill("SIGKILL");
    });
    proc.on("error", reject);
    proc.on("exit", () => {
      clearTimeout(timer);
      resolve(seen);
    });
  });
}

test("writers SIGKILLed during commits with history and pruning leave registries that open, check and prove in their window", async () => {
  const dir = join(tempDir(), "db");
  for (const after of [3, 11, 26]) {
    await killAfter(dir, after);
    const store = NameStore.open(dir);
    try {
      store.check();
      const w = store.window();
      assert.ok(store.head().batch - w.oldestBatch <= 5, "the window keeps 5 earlier roots");
      for (let i = 0; i < 7; i++) heldAt(store, `n${i}`, w.oldestRoot as Digest);
      const c = await runCli("registry", "check", "--db", dir);
      assert.equal(c.code, 0, c.err);
    } finally {
      store.closeSync();
    }
  }
});
