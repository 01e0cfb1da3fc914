import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, writeFileSync } from "node:fs";
import { crc32 as zlibCrc32 } from "node:zlib";
import { join } from "node:path";
import { open } from "lmdb";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { RegistryError } from "../../src/registry/errors.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { upgradeRegistry } from "../../src/registry/store/upgrade.js";
import { checkRegistry } from "../../src/registry/store/check.js";
import { importRecords } from "../../src/registry/import/import.js";
import { fileSource } from "../../src/registry/import/dataset.js";
import { deleteRecord, insertRecord, replaceRecord, restoreRecord } from "../../src/registry/operations.js";
import { proveStatement } from "../../src/registry/prove.js";
import { slotKey } from "../../src/registry/store/record-codec.js";
import { crc32Range, openRow, sealRow, tryOpenRow } from "../../src/registry/store/row-checksum.js";
import { locate, tileKey } from "../../src/registry/store/tiles.js";
import { tempDir } from "./support/tmp.js";
import { formatRoot } from "../../src/registry/root.js";
import { runCli } from "./support/run-cli.js";

const arr = (d: ArrayLike<number>) => Array.from(d);

const run = runCli;

const corrupt = (pattern: RegExp) => (e: unknown) =>
  e instanceof RegistryError && e.code === "DB_CORRUPT" && pattern.test(e.message);

test("row checksums: CRC-32 of key ‖ payload, equal to zlib's; any flipped bit or a moved row fails", () => {
  assert.equal(crc32Range(Buffer.from("123456789"), 0, 9), 0xcbf43926);
  const long = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37) & 0xff));
  for (const [s, e] of [
    [0, 1000],
    [0, 150],
    [3, 700],
    [999, 1000],
  ] as const)
    assert.equal(crc32Range(long, s, e), zlibCrc32(long.subarray(s, e)), `${s}..${e}`);
  // the TypeScript path (slicing by 8, rows up to 128 bytes) against zlib, every length and a running CRC
  for (let n = 0; n <= 136; n++) {
    assert.equal(crc32Range(long, 7, 7 + n), zlibCrc32(long.subarray(7, 7 + n)), `length ${n}`);
    assert.equal(
      crc32Range(long, 7, 7 + n, 0x12345678),
      zlibCrc32(long.subarray(7, 7 + n), 0x12345678),
      `length ${n}, running`,
    );
  }
  assert.equal(crc32Range(long, 500, 1000, crc32Range(long, 0, 500)), crc32Range(long, 0, 1000));
  assert.equal(crc32Range(long, 100, 200, crc32Range(long, 0, 100)), crc32Range(long, 0, 200));
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 1, maxLength: 40 }),
      fc.uint8Array({ maxLength: 400 }),
      fc.nat(),
      (key, payload, pick) => {
        const row = sealRow(key, payload);
        assert.deepEqual(arr(openRow(key, row, "row")), arr(payload));
        const bit = pick % (8 * row.length);
        const bad = Buffer.from(row);
        bad[bit >> 3]! ^= 1 << (bit & 7);
        assert.equal(tryOpenRow(key, bad), undefined);
        const otherKey = Buffer.concat([Buffer.from(key), Buffer.of(0)]);
        assert.equal(tryOpenRow(otherKey, row), undefined);
        assert.throws(() => openRow(key, bad, "record row of slot 7"), corrupt(/^record row of slot 7 is damaged/));
      },
    ),
    { numRuns: 300 },
  );
});

const DEPTH = 10;

/** A registry with imports, inserts, replaces, deletes and restores. */
async function sample(): Promise<{ dir: string; root: number[] }> {
  const base = tempDir();
  const file = join(base, "in.ndjson");
  writeFileSync(
    file,
    Array.from({ length: 60 }, (_, i) =>
      JSON.stringify(
        i % 5 === 0 ? { name: `r${i}`, fields: [i, 2 * i] } : { name: `r${i}`, value: `https://gitlab.com/r/${i}` },
      ),
    ).join("\n"),
  );
  const dir = join(base, "db");
  const store = RegistryStore.openOrCreate(dir, { depth: DEPTH });
  await importRecords(store, () => fileSource(file), { threads: 0, batchSize: 25 });
  insertRecord(store, "extra", null);
  replaceRecord(store, { name: "r3" }, "https://github.com/x/y");
  deleteRecord(store, { name: "r4" });
  deleteRecord(store, { slot: 9 });
  restoreRecord(store, { slot: 9 }, "back");
  const root = arr(store.head().root);
  await store.close();
  return { dir, root };
}

/** A copy of the registry with one row edited (undefined: removed) through LMDB directly. */
async function damaged(
  src: string,
  table: string,
  key: Buffer,
  edit: (row: Buffer) => Buffer | undefined,
): Promise<string> {
  const dir = join(tempDir(), "damaged");
  cpSync(src, dir, { recursive: true });
  const env = open({ path: dir, maxDbs: 8 });
  const db = env.openDB({ name: table, encoding: "binary", keyEncoding: "binary" });
  const row = db.get(key) as Buffer | undefined;
  assert.ok(row !== undefined, `${table} row ${key.toString("hex")} exists`);
  const next = edit(Buffer.from(row));
  if (next === undefined) await db.remove(key);
  else await db.put(key, next);
  await env.close();
  return dir;
}

const flip = (at: number) => (row: Buffer) => {
  row[at]! ^= 0x10;
  return row;
};

/** Re-seals a row after editing its payload: the checksum holds, the content is wrong. */
const resealed = (key: Buffer, edit: (payload: Buffer) => void) => (row: Buffer) => {
  const payload = Buffer.from(row.subarray(0, row.length - 4));
  edit(payload);
  return sealRow(key, payload);
};

test("a sound registry passes `registry check` (exit 0, one summary line) and checkRegistry agrees with the head", async () => {
  const { dir, root } = await sample();
  const r = await run("registry", "check", "--db", dir, "--threads", "0");
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trimEnd().split("\n").length, 1);
  assert.match(
    r.out,
    /^ok: \d+ rows checked, 61 slots \(60 live, 1 deleted\), \d+ tiles, 9 batches; every path recomputes root/,
  );
  const store = RegistryStore.open(dir, { readOnly: true });
  const phases = new Set<string>();
  const report = await checkRegistry(store, { threads: 1, chunkSlots: 16, onProgress: (p) => phases.add(p.phase) });
  assert.deepEqual(arr(report.root), root);
  assert.equal(report.names, 61);
  assert.deepEqual([...phases].sort(), ["history", "names", "records", "tiles"]);
  await store.close();
});

test("a damaged row is DB_CORRUPT naming it from get, prove and `registry check` (exit 1), never PROOF_FAILED", async () => {
  const { dir } = await sample();
  const slot = 21;
  const where = locate(DEPTH, 0, slot);
  const tk = tileKey(where.layer, where.tile);
  const cases: {
    what: string;
    table: string;
    key: Buffer;
    edit: (row: Buffer) => Buffer | undefined;
    name: RegExp;
    target: string[];
  }[] = [
    {
      what: "tile byte",
      table: "tiles",
      key: tk,
      edit: flip(40),
      name: /tile \(layer 0, index 1\) is damaged/,
      target: ["--slot", String(slot)],
    },
    {
      what: "record byte",
      table: "records",
      key: slotKey(slot),
      edit: flip(3),
      name: /record row of slot 21 is damaged/,
      target: ["--slot", String(slot)],
    },
    {
      what: "name-index byte",
      table: "names",
      key: Buffer.from("r21"),
      edit: flip(7),
      name: /name-index row of "r21" is damaged/,
      target: ["--name", "r21"],
    },
    {
      what: "truncated tile",
      table: "tiles",
      key: tk,
      edit: (row) => row.subarray(0, 3),
      name: /tile \(layer 0, index 1\) is damaged: 3 bytes/,
      target: ["--slot", String(slot)],
    },
  ];
  for (const c of cases) {
    const bad = await damaged(dir, c.table, c.key, c.edit);
    const store = RegistryStore.open(bad, { readOnly: true });
    const target = c.target[0] === "--slot" ? { slot } : { name: "r21" };
    if ("slot" in target) assert.throws(() => store.slotState(slot), corrupt(c.name), c.what);
    assert.throws(() => proveStatement(store, "membership", target), corrupt(c.name), `prove, ${c.what}`);
    await store.close();
    const get = await run("registry", "get", "--db", bad, ...c.target);
    assert.equal(get.code, 2, c.what);
    assert.match(get.err, new RegExp(`^error DB_CORRUPT: ${c.name.source}`), c.what);
    const check = await run("registry", "check", "--db", bad, "--threads", "0");
    assert.equal(check.code, 1, `${c.what}: ${check.out}`);
    assert.equal(check.err.trimEnd().split("\n").length, 1);
    assert.match(check.err, new RegExp(`^error DB_CORRUPT: ${c.name.source}`), c.what);
  }
  const history = await damaged(dir, "history", Buffer.from([0, 0, 0, 3]), flip(10));
  assert.match(
    (await run("registry", "history", "--db", history)).err,
    /^error DB_CORRUPT: history row of batch 3 is damaged/,
  );
  assert.match(
    (await run("registry", "check", "--db", history)).err,
    /^error DB_CORRUPT: history row of batch 3 is damaged/,
  );
});

test("rows with valid checksums but wrong content are found by `registry check` (every path against the head root)", async () => {
  const { dir } = await sample();
  const slot = 21;
  const where = locate(DEPTH, 0, slot);
  const tk = tileKey(where.layer, where.tile);
  const bump = (payload: Buffer, at: number) => payload.writeUInt32LE((payload.readUInt32LE(at) + 1) % P, at);
  const upper = locate(DEPTH, 5, 0);
  const cases: [string, string, Buffer, (row: Buffer) => Buffer | undefined, RegExp][] = [
    [
      "leaf digest",
      "tiles",
      tk,
      resealed(tk, (p) => bump(p, 4)),
      /^tile \(layer 0, index 1\): the leaf digest of slot 16 is not h_leaf of its record row/,
    ],
    [
      "inner node",
      "tiles",
      tileKey(upper.layer, upper.tile),
      resealed(tileKey(upper.layer, upper.tile), (p) => bump(p, p.length - 8)),
      /^tile \(layer 1, index 0\): node \(level \d, index \d+\) is not h_node of its two children/,
    ],
    [
      "record value",
      "records",
      slotKey(slot),
      resealed(slotKey(slot), (p) => (p[p.length - 1] = 0x41)),
      /^tile \(layer 0, index 1\): the leaf digest of slot 21 is not h_leaf of its record row/,
    ],
    [
      "record removed",
      "records",
      slotKey(slot),
      () => undefined,
      /^slot 21 is below the next slot 61 but has no record row/,
    ],
    [
      "name removed",
      "names",
      Buffer.from("r21"),
      () => undefined,
      /^record row of slot 21 holds the name "r21", which the name index does not hold/,
    ],
    [
      "name moved",
      "names",
      Buffer.from("r21"),
      () => sealRow(Buffer.from("r21"), slotKey(22)),
      /^record row of slot 21 holds the name "r21", which the name index maps to slot 22/,
    ],
  ];
  for (const [what, table, key, edit, pattern] of cases) {
    const bad = await damaged(dir, table, key, edit);
    const check = await run("registry", "check", "--db", bad, "--threads", "0");
    assert.equal(check.code, 1, `${what}: ${check.out}`);
    assert.match(check.err.replace(/^error DB_CORRUPT: /, ""), pattern, what);
  }
});

test("format 1 registries (no row checksums) are refused with DB_OUTDATED until `registry upgrade` converts them in place", async () => {
  const { dir, root } = await sample();
  // the format-1 layout: the same rows without their checksums, configuration version 1
  const env = open({ path: dir, maxDbs: 8 });
  await env.transaction(() => {
    for (const name of ["meta", "records", "names", "tiles", "history"]) {
      const db = env.openDB({ name, encoding: "binary", keyEncoding: "binary" });
      for (const { key, value } of [...db.getRange({})].map((r) => ({
        key: Buffer.from(r.key as Buffer),
        value: Buffer.from(r.value as Buffer),
      }))) {
        const payload = value.subarray(0, value.length - 4);
        if (name === "meta" && key.toString() === "config") {
          const c = JSON.parse(payload.toString());
          delete c.rowChecksum;
          c.version = 1;
          void db.put(key, Buffer.from(JSON.stringify(c)));
        } else void db.put(key, payload);
      }
    }
  });
  await env.close();
  assert.throws(
    () => RegistryStore.open(dir, { readOnly: true }),
    (e: unknown) =>
      e instanceof RegistryError && e.code === "DB_OUTDATED" && /ssgkr registry upgrade --db/.test(e.message),
  );
  const refused = await run("registry", "root", "--db", dir);
  assert.equal(refused.code, 2);
  assert.match(refused.err, /^error DB_OUTDATED: /);
  const up = await run("registry", "upgrade", "--db", dir);
  assert.equal(up.code, 0, up.err);
  assert.match(up.out, /^upgraded .* from format 1 to 2: \d+ rows/);
  assert.equal(upgradeRegistry(dir).fromVersion, 2, "a second upgrade writes nothing");
  const check = await run("registry", "check", "--db", dir, "--json", "--threads", "0");
  assert.equal(check.code, 0, check.err);
  assert.equal(JSON.parse(check.out).root, formatRoot(Uint32Array.from(root)));
});

test("checkRegistry passes on registries of every tile geometry (depths 1..13) after random updates", async () => {
  const base = tempDir();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 13 }),
      fc.array(fc.constantFrom("insert", "insert", "delete", "restore"), { minLength: 0, maxLength: 12 }),
      fc.integer({ min: 1, max: 64 }),
      async (depth, ops, chunkSlots) => {
        const store = RegistryStore.openOrCreate(join(base, `d${n++}`), { depth });
        const names: string[] = [];
        const deleted: string[] = [];
        for (const op of ops) {
          if (op === "insert" && names.length + deleted.length < 2 ** depth)
            names.push(insertRecord(store, `n${names.length + deleted.length}`, `v${names.length}`).name);
          else if (op === "delete" && names.length > 0) deleted.push(deleteRecord(store, { name: names.pop()! }).name);
          else if (op === "restore" && deleted.length > 0)
            names.push(restoreRecord(store, { name: deleted.pop()! }).name);
        }
        const report = await checkRegistry(store, { threads: 0, chunkSlots });
        assert.deepEqual(arr(report.root), arr(store.head().root));
        assert.equal(report.live, names.length);
        assert.equal(report.deleted, deleted.length);
        await store.close();
      },
    ),
    { numRuns: 25 },
  );
});

test("a random bit flipped in a random row of any table is found by checkRegistry (DB_CORRUPT naming the row)", async () => {
  const { dir } = await sample();
  const env = open({ path: dir, maxDbs: 8, readOnly: true });
  const all: { table: string; key: Buffer; length: number }[] = [];
  for (const table of ["meta", "records", "names", "tiles", "history"]) {
    for (const { key, value } of env.openDB({ name: table, encoding: "binary", keyEncoding: "binary" }).getRange({}))
      all.push({ table, key: Buffer.from(key as Buffer), length: (value as Buffer).length });
  }
  await env.close();
  await fc.assert(
    fc.asyncProperty(fc.nat(all.length - 1), fc.nat(), async (pick, bitPick) => {
      const row = all[pick]!;
      const bit = bitPick % (8 * row.length);
      const bad = await damaged(dir, row.table, row.key, (r) => ((r[bit >> 3]! ^= 1 << (bit & 7)), r));
      let store: RegistryStore | undefined;
      try {
        store = RegistryStore.open(bad, { readOnly: true });
        await checkRegistry(store, { threads: 0 });
        assert.fail(`a flipped bit ${bit} in ${row.table} row ${row.key.toString("hex")} was not found`);
      } catch (e) {
        assert.ok(
          e instanceof RegistryError && e.code === "DB_CORRUPT" && typeof e.details["row"] === "string",
          `${row.table}: ${String(e)}`,
        );
      } finally {
        await store?.close();
      }
    }),
    { numRuns: 12 },
  );
});
