/**
 * Child process for the crash and concurrency tests. Does nothing without arguments.
 *
 *   node writer-child.js import DIR COUNT BATCH   import the first COUNT npm-subset records in batches
 *   node writer-child.js inserts DIR COUNT         COUNT single-record inserts
 *
 * Prints `batch N` after every committed batch.
 */
import { RegistryStore } from "../../../src/registry/store/store.js";
import { importRecords } from "../../../src/registry/import/import.js";
import { npmReposSource } from "../../../src/registry/import/dataset.js";
import { insertRecord } from "../../../src/registry/operations.js";

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
}
