#!/usr/bin/env node
// Storage-engine comparison for the registry tree store (docs/registry.md, "Choice of database").
//
//   node scripts/registry-db-compare.mjs PACKAGES_JSON [--records N] [--batch B] [--dir DIR] [--layouts tiles,nodes] [--engines lmdb,lmdb-async,sqlite]
//
// PACKAGES_JSON is data/packages.json of all-the-package-repos@2.0.3148 (scripts/npm-repos-fetch.mjs
// puts it in data/cache). The script writes the first N records (default 1,000,000) of the real
// name → repository map, in batches of B records per transaction (default 100,000), with the row
// shapes of the registry store, into LMDB (`lmdb`: synchronous transactions, and asynchronous
// batches written by lmdb's own write thread) and into SQLite (`better-sqlite3` 12, WAL,
// synchronous = NORMAL), once per node layout:
//   - "tiles": nodes packed in height-4 subtree tiles (about N/15 rows of ≤ 964 bytes);
//   - "nodes": one row per non-default node (about 2N rows of 32 bytes).
// Every layout also writes one record row per slot and one name-index row per name. Hashing is
// not part of the measurement (fixed random bytes stand in for digests and identities). Prints wall time, main-thread
// CPU time and bytes on disk for each engine and layout, and one JSON line at the end.
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const opt = (k, d) => {
  const i = args.indexOf(`--${k}`);
  return i >= 0 ? args[i + 1] : d;
};
if (!file) {
  console.error("usage: node scripts/registry-db-compare.mjs PACKAGES_JSON [--records N] [--batch B] [--dir DIR]");
  process.exit(2);
}
const N = Number(opt("records", "1000000"));
const B = Number(opt("batch", "100000"));
const base = opt("dir", join(tmpdir(), `registry-db-compare-${process.pid}`));

// Real records: the first N lines `  "name": "url"|null,` (JSON.parse of each line's pair).
const text = readFileSync(file, "utf8");
const names = [];
const values = [];
let pos = text.indexOf("\n") + 1;
while (names.length < N) {
  const end = text.indexOf("\n", pos);
  if (end < 0) break;
  const line = text.slice(pos, end).trim().replace(/,$/, "");
  pos = end + 1;
  if (line === "}" || line === "") break;
  const obj = JSON.parse(`{${line}}`);
  const [k, v] = Object.entries(obj)[0];
  names.push(Buffer.from(k, "utf8"));
  values.push(v === null ? null : Buffer.from(v, "utf8"));
}
console.error(`… ${names.length} records loaded`);

function recordValue(i) {
  const name = names[i];
  const value = values[i];
  const vlen = value ? value.length : 0;
  const out = Buffer.allocUnsafe(1 + 40 + 32 + 32 + 2 + name.length + 2 + vlen);
  let o = 0;
  out[o++] = 1;
  FILLER.copy(out, o);
  o += 104;
  out.writeUInt16LE(name.length, o);
  o += 2;
  name.copy(out, o);
  o += name.length;
  out.writeUInt16LE(value ? vlen : 0xffff, o);
  o += 2;
  if (value) value.copy(out, o);
  return out;
}
function slotKey(i) {
  const k = Buffer.allocUnsafe(8);
  k.writeBigUInt64BE(BigInt(i));
  return k;
}
function nodeKey(level, index) {
  const k = Buffer.allocUnsafe(9);
  k[0] = level;
  k.writeBigUInt64BE(BigInt(index), 1);
  return k;
}
const FILLER = randomBytes(104);
const DIGEST = randomBytes(32);
const TILE = randomBytes(4 + 30 * 32);

// Rows of one batch [a, b) in a given layout (depth 24).
function nodeRows(layout, a, b, emit) {
  if (layout === "nodes") {
    let lo = a,
      hi = b - 1;
    for (let l = 0; l <= 24; l++) {
      for (let i = lo; i <= hi; i++) emit(nodeKey(l, i), DIGEST);
      lo >>= 1;
      hi >>= 1;
    }
  } else {
    let lo = a,
      hi = b - 1;
    for (let t = 0; t < 6; t++) {
      lo >>= 4;
      hi >>= 4;
      for (let j = lo; j <= hi; j++) emit(nodeKey(t, j), TILE);
    }
  }
}

function dirBytes(dir) {
  let total = 0;
  for (const f of readdirSync(dir)) total += statSync(join(dir, f)).size;
  return total;
}

// sync: transactionSync + putSync on the main thread. async: one `batch` per transaction, the
// B-tree work runs on lmdb's write thread; the main thread only queues (its time is returned).
async function runLmdb(layout, dir, mode) {
  const { open } = require("lmdb");
  const env = open({ path: dir, maxDbs: 8, mapSize: 64 * 2 ** 30 });
  const recs = env.openDB({ name: "records", encoding: "binary", keyEncoding: "binary" });
  const idx = env.openDB({ name: "names", encoding: "binary", keyEncoding: "binary" });
  const nodes = env.openDB({ name: "nodes", encoding: "binary", keyEncoding: "binary" });
  let queueMs = 0;
  let pending = Promise.resolve(true);
  for (let a = 0; a < names.length; a += B) {
    const b = Math.min(names.length, a + B);
    if (mode === "sync") {
      env.transactionSync(() => {
        for (let i = a; i < b; i++) {
          recs.putSync(slotKey(i), recordValue(i), { append: true });
          idx.putSync(names[i], slotKey(i));
        }
        nodeRows(layout, a, b, (k, v) => nodes.putSync(k, v));
      });
    } else {
      await pending;
      const q0 = performance.now();
      pending = env.batch(() => {
        for (let i = a; i < b; i++) {
          recs.put(slotKey(i), recordValue(i));
          idx.put(names[i], slotKey(i));
        }
        nodeRows(layout, a, b, (k, v) => nodes.put(k, v));
      });
      queueMs += performance.now() - q0;
    }
  }
  await pending;
  await env.close();
  return queueMs;
}

function runSqlite(layout, dir) {
  const Database = require("better-sqlite3");
  const db = new Database(join(dir, "registry.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE records (slot INTEGER PRIMARY KEY, v BLOB NOT NULL)");
  db.exec("CREATE TABLE names (name BLOB PRIMARY KEY, slot INTEGER NOT NULL) WITHOUT ROWID");
  db.exec("CREATE TABLE nodes (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID");
  const insRec = db.prepare("INSERT INTO records (slot, v) VALUES (?, ?)");
  const insName = db.prepare("INSERT INTO names (name, slot) VALUES (?, ?)");
  const insNode = db.prepare("INSERT OR REPLACE INTO nodes (k, v) VALUES (?, ?)");
  for (let a = 0; a < names.length; a += B) {
    const b = Math.min(names.length, a + B);
    db.transaction(() => {
      for (let i = a; i < b; i++) {
        insRec.run(i, recordValue(i));
        insName.run(names[i], i);
      }
      nodeRows(layout, a, b, (k, v) => insNode.run(k, v));
    })();
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}

const results = [];
for (const layout of opt("layouts", "tiles,nodes").split(",")) {
  for (const engine of opt("engines", "lmdb,lmdb-async,sqlite").split(",")) {
    const dir = join(base, `${engine}-${layout}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let mainMs;
    if (engine === "lmdb") await runLmdb(layout, dir, "sync");
    else if (engine === "lmdb-async") mainMs = await runLmdb(layout, dir, "async");
    else runSqlite(layout, dir);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const bytes = dirBytes(dir);
    const row = {
      engine,
      layout,
      records: names.length,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      recordsPerSecond: Math.round(names.length / (wallMs / 1000)),
      bytesOnDisk: bytes,
      ...(mainMs !== undefined ? { mainThreadQueueMs: Math.round(mainMs) } : {}),
    };
    results.push(row);
    console.log(
      `${engine.padEnd(10)} ${layout.padEnd(5)} ${String(row.wallMs).padStart(7)} ms wall ${String(row.cpuMs).padStart(7)} ms cpu ${String(row.recordsPerSecond).padStart(9)} rec/s ${(bytes / 2 ** 20).toFixed(0).padStart(6)} MiB${mainMs !== undefined ? `  (main thread busy ${Math.round(mainMs)} ms)` : ""}`,
    );
    rmSync(dir, { recursive: true, force: true });
  }
}
rmSync(base, { recursive: true, force: true });
console.log(JSON.stringify({ records: names.length, batch: B, results }));
