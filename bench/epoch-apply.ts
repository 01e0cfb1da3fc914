/**
 * The epoch apply of a name-keyed registry (registry/sequencer/epoch.ts `applyEpoch`: the batch a
 * server's epoch writer thread commits, and the apply of a mirror's catch-up): the bulk import of
 * the npm map's first `--records` records at `--depth`, then `--epochs` epochs of `--writes`
 * puts of new random names each, applied in this process one after another as the writer thread
 * applies them (the names checked and hashed to keys first, as the serving thread does).
 *
 *   npm run bench -- epoch-apply [--records 100000] [--depth 48] [--epochs 10] [--writes 3000]
 *
 * Reports the CPU of this process (user + system, `process.cpuUsage`) per write of each epoch:
 * the first epoch (the key index loaded, the code compiled) and the median of the others, the
 * headline `epoch_apply_cpu_us`. Compare builds by running each in fresh processes, alternating.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { int, parseOptions } from "./lib/options.js";
import { stat } from "./lib/cpu.js";
import { NameStore } from "../src/registry/store/name-store.js";
import { importNames } from "../src/registry/import/name-import.js";
import { npmReposSource } from "../src/registry/import/dataset.js";
import { applyEpoch, checkEpochWrite, type EpochWrite, type KeyIndex } from "../src/registry/sequencer/epoch.js";
import { formatRoot } from "../src/registry/root.js";

const args = parseOptions(
  { records: int(10, 100_000), depth: int(16, 48), epochs: int(2, 1000), writes: int(1, 100_000) },
  { smoke: { records: "300", depth: "24", epochs: "3", writes: "50" } },
);
const records = Number(args.get("records") ?? 100_000);
const depth = Number(args.get("depth") ?? 48);
const epochs = Number(args.get("epochs") ?? 10);
const writes = Number(args.get("writes") ?? 3000);

const c = conditions();
process.stdout.write(conditionsLine(c) + "\n");
const loadStart = Math.round(loadavg()[0]! * 100) / 100;
const base = mkdtempSync(join(tmpdir(), "ssgkr-epoch-apply-"));
try {
  const store = NameStore.openOrCreate(join(base, "db"), { depth });
  progress(`importing ${records} npm records at depth ${depth}`);
  await importNames(store, () => npmReposSource(records), { onError: "skip" });
  const index: KeyIndex = { batch: -1, keys: new Float64Array(0) };
  let seed = 12345;
  const next = (): string => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed.toString(36);
  };
  progress(`${epochs} epochs of ${writes} puts of new names`);
  const usPerWrite: number[] = [];
  let root = "";
  for (let e = 0; e < epochs; e++) {
    const epoch: EpochWrite[] = [];
    for (let i = 0; i < writes; i++) {
      const name = `bench-${e}-${next()}${next()}`;
      const w: EpochWrite = { op: "put", name, value: `https://example.com/${name}` };
      epoch.push({ ...w, key: checkEpochWrite(store, w) });
    }
    const cpu0 = process.cpuUsage();
    const o = applyEpoch(store, index, epoch);
    const cpu = process.cpuUsage(cpu0);
    if (o.entry === undefined || o.results.some((r) => !r.ok)) throw new Error(`epoch ${e} did not apply every write`);
    usPerWrite.push((cpu.user + cpu.system) / writes);
    root = formatRoot(o.entry.root);
  }
  await store.close();
  const warm = stat(usPerWrite.slice(1)).median;
  const row = (k: string, v: string) => process.stdout.write(`${k.padEnd(44)} ${v}\n`);
  row(`records (depth ${depth})`, String(records));
  row("first epoch, CPU per write", `${fmt(usPerWrite[0]!, 1)} µs`);
  row(
    `epochs 2..${epochs}, CPU per write (median)`,
    `${fmt(warm, 1)} µs (min ${fmt(Math.min(...usPerWrite.slice(1)), 1)}, max ${fmt(Math.max(...usPerWrite.slice(1)), 1)})`,
  );
  row("root after the epochs", root);
  writeResults("epoch-apply", {
    benchmark: "epoch-apply",
    conditions: c,
    settings: { records, depth, epochs, writes },
    units: "CPU µs per write",
    usPerWrite,
    root,
  });
  printHeadline({
    records,
    depth,
    epoch_writes: writes,
    epoch_apply_cpu_us: Math.round(warm * 10) / 10,
    epoch_apply_first_cpu_us: Math.round(usPerWrite[0]! * 10) / 10,
    load_1m_start: loadStart,
    load_1m_end: Math.round(loadavg()[0]! * 100) / 100,
  });
} finally {
  rmSync(base, { recursive: true, force: true });
}
