import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { computeRoot } from "../../src/smt/path.js";
import { RegistryStore } from "../../src/registry/store/store.js";
import { importRecords } from "../../src/registry/import/import.js";
import { npmReposSource } from "../../src/registry/import/dataset.js";
import { insertRecord } from "../../src/registry/operations.js";
import { tempDir } from "./support/tmp.js";

const child = fileURLToPath(new URL("./support/writer-child.js", import.meta.url));
const arr = (d: ArrayLike<number>) => Array.from(d);

function pathRecomputesRoot(store: RegistryStore, slot: number): { ok: boolean; root: string } {
  const s = store.slotState(slot);
  const root = computeRoot(s.leaf, BigInt(slot), s.siblings, store.config.depth);
  return { ok: arr(root).join() === arr(s.head.root).join(), root: arr(s.head.root).join() };
}

test("an import killed mid-way (SIGKILL) leaves the last committed batch intact and readable", async () => {
  const dir = join(tempDir(), "db");
  const proc = spawn(process.execPath, [child, "import", dir, "30000", "400"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let seen = 0;
  await new Promise<void>((resolve) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      seen += chunk
        .toString()
        .split("\n")
        .filter((l) => l.startsWith("batch")).length;
      if (seen >= 4 && proc.exitCode === null && !proc.killed) {
        proc.kill("SIGKILL");
      }
    });
    proc.on("exit", () => resolve());
  });
  assert.equal(proc.signalCode, "SIGKILL", "the child was killed before finishing");
  const store = RegistryStore.open(dir);
  const head = store.head();
  assert.ok(head.batch >= 4 && head.batch < 75, `committed batches: ${head.batch}`);
  assert.equal(head.nextSlot, 400 * head.batch);
  const history = store.history();
  assert.equal(history.length, head.batch + 1);
  assert.deepEqual(arr(history.at(-1)!.root), arr(head.root));
  for (const slot of [0, head.nextSlot - 1, head.nextSlot, 12345])
    assert.ok(pathRecomputesRoot(store, slot).ok, `slot ${slot}`);
  // the same records imported in one go give the same root
  const fresh = RegistryStore.openOrCreate(join(tempDir(), "fresh"));
  const r = await importRecords(fresh, () => npmReposSource(head.nextSlot), { threads: 0 });
  assert.deepEqual(arr(r.root), arr(head.root));
  await fresh.close();
  // and the interrupted registry can continue
  insertRecord(store, "after-crash", null);
  assert.equal(store.slotOf("after-crash"), head.nextSlot);
  await store.close();
});

test("a concurrent reader sees the old or the new root with matching nodes, never a mix", async () => {
  const dir = join(tempDir(), "db");
  const setup = RegistryStore.openOrCreate(dir);
  for (let i = 0; i < 8; i++) insertRecord(setup, `seed${i}`, null);
  await setup.close();
  const proc = spawn(process.execPath, [child, "inserts", dir, "150"], { stdio: ["ignore", "ignore", "inherit"] });
  let done = false;
  proc.on("exit", () => (done = true));
  const reader = RegistryStore.open(dir, { readOnly: true });
  const roots = new Set<string>();
  let reads = 0;
  while (!done) {
    const next = reader.head().nextSlot;
    for (const slot of [0, next - 1, next, Math.floor(next / 2)]) {
      const r = pathRecomputesRoot(reader, slot);
      assert.ok(r.ok, `inconsistent snapshot at slot ${slot}`);
      roots.add(r.root);
      reads++;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(proc.exitCode, 0);
  assert.ok(roots.size >= 2, `the reader saw ${roots.size} distinct roots in ${reads} reads`);
  const final = reader.head();
  assert.equal(final.nextSlot, 158);
  assert.ok(pathRecomputesRoot(reader, 157).ok);
  await reader.close();
});
