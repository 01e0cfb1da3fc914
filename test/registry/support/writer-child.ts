/**
 * Child process for the crash and concurrency tests. Does nothing without arguments.
 *
 *   node writer-child.js import DIR COUNT BATCH   import the first COUNT npm-subset records in batches
 *   node writer-child.js inserts DIR COUNT         COUNT single-record inserts
 *   node writer-child.js name-updates DIR COUNT    COUNT single-record updates of a name-keyed registry keeping 5 earlier roots
 *
 * Prints `batch N` after every committed batch.
 */
import { RegistryStore } from "../../../src/registry/store/store.js";
import { importRecords } from "../../../src/registry/import/import.js";
import { npmReposSource } from "../../../src/registry/import/dataset.js";
import { insertRecord } from "../../../src/registry/operations.js";
import { RecordState } from "../../../src/registry/store/record-codec.js";
import { NameStore } from "../../../src/registry/store/name-store.js";
import { planNameUpdate } from "../../../src/registry/name-operations.js";

const [mode, dir, count, batch] = process.argv.slice(2);
if (mode === "import") {
  const store = RegistryStore.openOrCreate(dir!);
  await importRecords(store, () => npmReposSource(Number(count)), {
    threads: 1,
    batchSize: Number(batch),
    onError: "skip",
    onProgress: (p) => {
      process.stdout.write(`batch ${p.batches}\n`);
      // slow enough that the parent can kill it mid-way on a busy machine
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    },
  });
  await store.close();
} else if (mode === "inserts") {
  const store = RegistryStore.openOrCreate(dir!);
  for (let i = 0; i < Number(count); i++) {
    const r = insertRecord(store, `w${i}`, `https://github.com/w/${i}`);
    process.stdout.write(`batch ${r.entry.batch}\n`);
  }
  await store.close();
} else if (mode === "name-updates") {
  const store = NameStore.openOrCreate(dir!, { depth: 20, retention: { commits: 5 } });
  for (let i = 0; i < Number(count); i++) {
    const name = `n${i % 7}`;
    const held = store.lookup(name).record;
    const kind =
      held === undefined
        ? "insert"
        : held.state === RecordState.Deleted
          ? "restore"
          : i % 3 === 0
            ? "delete"
            : "replace";
    const entry = planNameUpdate(store, kind, name, kind === "delete" ? undefined : `v${i}`).commit();
    process.stdout.write(`batch ${entry.batch}\n`);
  }
  await store.close();
}
