import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { open } from "lmdb";
import { RegistryError } from "../../src/registry/errors.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { NameStore } from "../../src/registry/store/name-store.js";
import { computeRoot } from "../../src/smt/path.js";
import { tempDir } from "./support/tmp.js";
import { runCli } from "./support/run-cli.js";

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "ssgkr.js");
const arr = (d: ArrayLike<number>) => Array.from(d);

const run = runCli;

function ndjson(dir: string, count: number): string {
  const path = join(dir, "in.ndjson");
  let s = "";
  for (let i = 0; i < count; i++)
    s +=
      JSON.stringify(
        i % 7 === 3 ? { name: `pkg-${i}`, value: null } : { name: `pkg-${i}`, value: `https://github.com/o/r${i}` },
      ) + "\n";
  writeFileSync(path, s);
  return path;
}

const RECORDS = 3000;
const BATCH = "250";
const importArgs = (db: string, file: string) => [
  "registry",
  "import",
  "--db",
  db,
  "--mapping",
  "slot-v1",
  "--file",
  file,
  "--batch-size",
  BATCH,
  "--threads",
  "0",
  "--no-progress",
  "--json",
];
/** A name-keyed import (default mapping): into an empty registry, one bulk batch. */
const nameImportArgs = (db: string, file: string) => [
  "registry",
  "import",
  "--db",
  db,
  "--file",
  file,
  "--batch-size",
  BATCH,
  "--threads",
  "1",
  "--no-progress",
  "--json",
];

/** The root of an uninterrupted import of the file. */
async function referenceRoot(file: string): Promise<number[]> {
  const r = await run(...importArgs(join(tempDir(), "ref"), file));
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out).root;
}

/** Nothing of an interrupted creation may stay beside the registry once a later one finishes. */
function hiddenSiblings(db: string): string[] {
  return readdirSync(dirname(db)).filter((e) => e.startsWith(`.${basename(db)}.creating-`));
}

/** Whatever a kill left, a reader gets a registry or a typed "not there / not ready" error. */
function readAfterKill(db: string): "missing" | number {
  try {
    const store = RegistryStore.open(db, { readOnly: true });
    try {
      const head = store.head();
      for (const slot of [0, Math.max(0, head.nextSlot - 1), head.nextSlot]) {
        const s = store.slotState(slot);
        assert.deepEqual(
          arr(computeRoot(s.leaf, BigInt(slot), s.siblings, store.config.depth)),
          arr(head.root),
          `slot ${slot}`,
        );
      }
      return head.batch;
    } finally {
      store.closeSync();
    }
  } catch (e) {
    assert.ok(
      e instanceof RegistryError && (e.code === "DB_MISSING" || e.code === "DB_NOT_READY"),
      `after a kill: ${String(e)}`,
    );
    return "missing";
  }
}

/** Spawns the real CLI import and SIGKILLs it `delayMs` after `trigger()` first holds (polled every ms). */
function killImport(
  db: string,
  file: string,
  trigger: () => boolean,
  delayMs: number,
  args = importArgs,
): Promise<{ killed: boolean; afterTriggerMs: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [bin, ...args(db, file)], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    let triggered = Infinity;
    proc.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const poll = setInterval(() => {
      if (!trigger()) return;
      clearInterval(poll);
      triggered = performance.now();
      if (Number.isFinite(delayMs)) setTimeout(() => proc.kill("SIGKILL"), delayMs);
    }, 1);
    proc.on("error", reject);
    proc.on("exit", (code, signal) => {
      clearInterval(poll);
      if (signal === null && code !== 0) reject(new Error(`import exited with ${code}: ${err}`));
      else resolve({ killed: signal === "SIGKILL", afterTriggerMs: performance.now() - triggered });
    });
  });
}

test("an import SIGKILLed as soon as its data file exists leaves no bricked registry: readers get DB_MISSING/DB_NOT_READY, the rerun finishes", async () => {
  const base = tempDir();
  const file = ndjson(base, RECORDS);
  const expected = await referenceRoot(file);
  const db = join(base, "db");
  const dataFileExists = () =>
    existsSync(join(db, "data.mdb")) || hiddenSiblings(db).some((h) => existsSync(join(base, h, "data.mdb")));
  const { killed } = await killImport(db, file, dataFileExists, 0);
  assert.ok(killed, "the import was killed before it finished");
  for (const cmd of ["root", "get"]) {
    const r = await run("registry", cmd, "--db", db, ...(cmd === "get" ? ["--slot", "0"] : []));
    assert.equal(r.code, 2);
    assert.match(r.err, /^error (DB_MISSING|DB_NOT_READY): /, `${cmd}: ${r.err}`);
  }
  const again = await run(...importArgs(db, file));
  assert.equal(again.code, 0, again.err);
  assert.deepEqual(JSON.parse(again.out).root, expected);
  assert.deepEqual(hiddenSiblings(db), []);
});

test("SIGKILL at 20 random points of creation and of the first batches; every rerun finishes with the root of an uninterrupted import", async (t) => {
  const base = tempDir();
  const file = ndjson(base, RECORDS);
  const expected = await referenceRoot(file);
  // how long an uninterrupted import runs once its registry is in place (check pass and batches)
  const registryInPlace = (db: string) => () => existsSync(join(db, "data.mdb"));
  const calibration = await killImport(
    join(base, "calibration"),
    file,
    registryInPlace(join(base, "calibration")),
    Infinity,
  );
  const batchPhaseMs = Math.max(20, calibration.afterTriggerMs);
  let kills = 0;
  let attempts = 0;
  const seen = { missing: 0, created: 0, batches: 0 };
  while (kills < 20 && attempts < 50) {
    attempts++;
    const db = join(base, `db${attempts}`);
    // even attempts: within creation (from the moment the hidden build directory appears);
    // odd attempts: within the check pass and the batches (from the moment the registry is in place)
    const inCreation = attempts % 2 === 0;
    const trigger = inCreation ? () => hiddenSiblings(db).length > 0 || existsSync(db) : registryInPlace(db);
    const delay = Math.floor(Math.random() * (inCreation ? 25 : 0.9 * batchPhaseMs));
    const { killed } = await killImport(db, file, trigger, delay);
    if (!killed) continue;
    kills++;
    const state = readAfterKill(db);
    if (state === "missing") seen.missing++;
    else if (state === 0) seen.created++;
    else seen.batches++;
    const rerun = await run(...importArgs(db, file));
    assert.equal(
      rerun.code,
      0,
      `rerun after a kill ${delay} ms in (${inCreation ? "creation" : "batches"}): ${rerun.err}`,
    );
    assert.deepEqual(JSON.parse(rerun.out).root, expected, `root after a kill ${delay} ms in`);
    assert.deepEqual(hiddenSiblings(db), []);
    if (kills % 5 === 0) {
      const check = await run("registry", "check", "--db", db, "--threads", "0");
      assert.equal(check.code, 0, check.err);
    }
  }
  t.diagnostic(
    `${kills} kills in ${attempts} attempts (batch phase ${batchPhaseMs.toFixed(0)} ms); registry state after the kill: ${JSON.stringify(seen)}`,
  );
  assert.ok(kills >= 20, `only ${kills} of ${attempts} imports were killed before they finished`);
  assert.ok(seen.missing > 0, `kill points: ${JSON.stringify(seen)}`);
});

test("a concurrent reader while a registry is created gets DB_MISSING or DB_NOT_READY from open, and no error once open", async () => {
  const base = tempDir();
  const file = ndjson(base, 12_000);
  const db = join(base, "db");
  const proc = spawn(
    process.execPath,
    [
      bin,
      "registry",
      "import",
      "--db",
      db,
      "--mapping",
      "slot-v1",
      "--file",
      file,
      "--batch-size",
      "500",
      "--threads",
      "0",
      "--no-progress",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  let exited = false;
  const done = new Promise<void>((resolve) => proc.on("exit", () => ((exited = true), resolve())));
  let refusals = 0;
  let reader: RegistryStore | undefined;
  while (reader === undefined && !exited) {
    try {
      reader = RegistryStore.open(db, { readOnly: true });
    } catch (e) {
      assert.ok(
        e instanceof RegistryError && (e.code === "DB_MISSING" || e.code === "DB_NOT_READY"),
        `open during creation: ${String(e)}`,
      );
      refusals++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  assert.ok(reader !== undefined, "the reader opened the registry before the import finished");
  assert.ok(refusals > 0);
  const store: RegistryStore = reader;
  const roots = new Set<string>();
  while (!exited) {
    const next: number = store.head().nextSlot;
    for (const slot of [0, Math.max(0, next - 1), next]) {
      const s = store.slotState(slot);
      assert.deepEqual(arr(computeRoot(s.leaf, BigInt(slot), s.siblings, store.config.depth)), arr(s.head.root));
      roots.add(arr(s.head.root).join());
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await done;
  assert.equal(proc.exitCode, 0);
  assert.equal(store.head().nextSlot, 12_000);
  assert.ok(roots.size >= 1);
  await store.close();
});

test("directories left by an interrupted creation of an earlier version count as not created: typed errors on read, import creates them", async () => {
  const base = tempDir();
  const file = ndjson(base, 40);
  const expected = await referenceRoot(file);
  // a 0-byte data.mdb beside its lock file
  const zero = join(base, "zero");
  mkdirSync(zero);
  writeFileSync(join(zero, "data.mdb"), "");
  writeFileSync(join(zero, "lock.mdb"), "");
  // an LMDB environment with empty tables and no configuration
  const bare = join(base, "bare");
  const env = open({ path: bare, maxDbs: 8 });
  env.openDB({ name: "meta", encoding: "binary" });
  await env.close();
  for (const db of [zero, bare]) {
    for (const readOnly of [true, false]) {
      assert.throws(
        () => RegistryStore.open(db, { readOnly }),
        (e: unknown) =>
          e instanceof RegistryError && e.code === "DB_NOT_READY" && /creation did not finish/.test(e.message),
        db,
      );
    }
    const r = await run(...importArgs(db, file));
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).root, expected);
  }
  // missing parents are created; a name with a dot is a directory too
  for (const db of [join(base, "x", "y", "z"), join(base, "reg.v2")]) {
    const r = await run(...importArgs(db, file));
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).root, expected);
    assert.deepEqual(hiddenSiblings(db), []);
  }
  // an environment with rows but no configuration is not ours to replace
  const foreign = join(base, "foreign");
  const env2 = open({ path: foreign, maxDbs: 8 });
  await env2.openDB({ name: "records", encoding: "binary" }).put("k", Buffer.from("v"));
  await env2.close();
  assert.throws(
    () => RegistryStore.openOrCreate(foreign),
    (e: unknown) => e instanceof RegistryError && e.code === "DB_CORRUPT",
  );
});

test("name-keyed bulk import SIGKILLed at 10 random points: the registry is missing, empty or complete, never partial; every rerun ends at the root of an uninterrupted import", async (t) => {
  const base = tempDir();
  const file = ndjson(base, RECORDS);
  const ref = await run(...nameImportArgs(join(base, "ref"), file));
  assert.equal(ref.code, 0, ref.err);
  const expected = JSON.parse(ref.out).root;
  const registryInPlace = (db: string) => () => existsSync(join(db, "data.mdb"));
  const calibration = await killImport(
    join(base, "calibration"),
    file,
    registryInPlace(join(base, "calibration")),
    Infinity,
    nameImportArgs,
  );
  const importMs = Math.max(20, calibration.afterTriggerMs);
  let kills = 0;
  let attempts = 0;
  const seen = { missing: 0, empty: 0, complete: 0 };
  while (kills < 10 && attempts < 30) {
    attempts++;
    const db = join(base, `db${attempts}`);
    const delay = Math.floor(Math.random() * 0.95 * importMs);
    const { killed } = await killImport(db, file, registryInPlace(db), delay, nameImportArgs);
    if (!killed) continue;
    kills++;
    try {
      const store = NameStore.open(db, { readOnly: true });
      const head = store.head();
      assert.ok(head.records === 0 || head.records === RECORDS, `after a kill ${delay} ms in: ${head.records} records`);
      if (head.records === 0) seen.empty++;
      else seen.complete++;
      store.closeSync();
    } catch (e) {
      assert.ok(
        e instanceof RegistryError && (e.code === "DB_MISSING" || e.code === "DB_NOT_READY"),
        `after a kill: ${String(e)}`,
      );
      seen.missing++;
    }
    const rerun = await run(...nameImportArgs(db, file));
    assert.equal(rerun.code, 0, `rerun after a kill ${delay} ms in: ${rerun.err}`);
    assert.deepEqual(JSON.parse(rerun.out).root, expected, `root after a kill ${delay} ms in`);
    if (kills % 5 === 0) {
      const check = await run("registry", "check", "--db", db, "--threads", "0");
      assert.equal(check.code, 0, check.err);
    }
  }
  t.diagnostic(
    `${kills} kills in ${attempts} attempts (import ${importMs.toFixed(0)} ms once the registry is in place); state after the kill: ${JSON.stringify(seen)}`,
  );
  assert.ok(kills >= 10, `only ${kills} of ${attempts} imports were killed before they finished`);
});
