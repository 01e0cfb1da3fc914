/**
 * Earlier-root benchmark of a name-keyed registry (depth 48): the bulk import of the npm map's
 * first `--records` records, then `--commits` single-record commits (replaces of random
 * imported names), then the proof latency at the head and at the root `--commits` batches back.
 *
 *   npm run bench -- history [--records 100000] [--commits 1000] [--proofs 5] [--dir DIR] [--keep]
 *
 * Reports: import wall; the growth of the LMDB file per single-record commit (bytes on disk
 * after the commits minus before, over the commits; the retention keeps every one of them); the
 * time to read a name's state and path (median of 50 names) and to prove membership (median of
 * `--proofs` names, circuit prepared first) at the head and at the earlier root, and their ratios
 * (target ≤ 1.2×; growth target ≤ 2 KB). Then `--commits` more commits, each moving the window
 * forward and pruning what left it: the growth per commit once the window is full.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { flag, int, text, parseOptions } from "./lib/options.js";
import { NameStore } from "../src/registry/store/name-store.js";
import { importNames } from "../src/registry/import/name-import.js";
import { planNameUpdate } from "../src/registry/name-operations.js";
import { proveNameStatement } from "../src/registry/name-prove.js";
import { npmReposSource } from "../src/registry/import/dataset.js";
import { RecordState } from "../src/registry/store/record-codec.js";
import type { Digest } from "../src/hash/digest.js";

const args = parseOptions(
  { records: int(10, 4_500_000), commits: int(1, 100_000), proofs: int(1, 100), dir: text(), keep: flag },
  { smoke: { records: "300", commits: "20", proofs: "1" } },
);
const records = Number(args.get("records") ?? 100_000);
const commits = Number(args.get("commits") ?? 1000);
const proofs = Number(args.get("proofs") ?? 5);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const c = conditions();
process.stdout.write(conditionsLine(c) + "\n");
const loadStart = Math.round(loadavg()[0]! * 100) / 100;
const base = args.get("dir") ?? mkdtempSync(join(tmpdir(), "ssgkr-history-"));
const dir = join(base, "db");
rmSync(dir, { recursive: true, force: true });
const store = NameStore.openOrCreate(dir, { depth: 48, retention: { commits: Math.max(1000, commits) } });
progress(`importing ${records} npm records into ${dir}`);
const t0 = performance.now();
await importNames(store, () => npmReposSource(records), { onError: "skip", threads: 1 });
const importMs = performance.now() - t0;
const names: string[] = [];
store.read((txn) => {
  for (const row of store.leafRows(txn)) if (row.record.state === RecordState.Live) names.push(row.record.name);
});
let seed = 12345;
const pick = (): string => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return names[seed % names.length]!;
};
const before = store.bytesOnDisk();
const oldRoot: Digest = store.head().root;
progress(`${commits} single-record commits`);
const t1 = performance.now();
for (let i = 0; i < commits; i++) planNameUpdate(store, "replace", pick(), `https://example.com/r/${i}`).commit();
const commitMs = (performance.now() - t1) / commits;
const growth = (store.bytesOnDisk() - before) / commits;
const headRoot: Digest = store.head().root;

/** Median ms of reading the state and path of 50 names at a root (each read twice, the second timed). */
const stateMs = (root: Digest): number => {
  const xs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const n = pick();
    store.nameStateAt(n, root);
    const s = performance.now();
    store.nameStateAt(n, root);
    xs.push(performance.now() - s);
  }
  return median(xs);
};
/** Median ms of a membership proof at a root (state, request, proof and its check). */
const proveMs = (root: Digest): number => {
  const xs: number[] = [];
  for (let i = 0; i < proofs; i++) {
    const n = pick();
    const s = performance.now();
    proveNameStatement(store, "membership", n, undefined, undefined, root);
    xs.push(performance.now() - s);
  }
  return median(xs);
};
progress("preparing the circuit and timing reads and proofs at the head and the earlier root");
proveNameStatement(store, "membership", pick(), undefined, undefined, headRoot);
const stateHead = stateMs(headRoot);
const stateOld = stateMs(oldRoot);
const proveHead = proveMs(headRoot);
const proveOld = proveMs(oldRoot);
progress(`${commits} more commits with a full window (each prunes the batch that leaves it)`);
const before2 = store.bytesOnDisk();
for (let i = 0; i < commits; i++) planNameUpdate(store, "replace", pick(), `https://example.com/s/${i}`).commit();
const steadyGrowth = (store.bytesOnDisk() - before2) / commits;
const checked = store.check().records;
await store.close();
if (!args.has("keep") && !args.has("dir")) rmSync(base, { recursive: true, force: true });

const row = (k: string, v: string) => process.stdout.write(`${k.padEnd(48)} ${v}\n`);
row("records (depth 48)", String(checked));
row("import wall", `${fmt(importMs / 1000, 2)} s`);
row("single-record commit (replace)", `${fmt(commitMs, 2)} ms`);
row("LMDB growth per single-record commit", `${fmt(growth, 0)} bytes (target ≤ 2048)`);
row("LMDB growth per commit, window full (pruning)", `${fmt(steadyGrowth, 0)} bytes`);
row(
  `state + path read, head / ${commits} back (median)`,
  `${fmt(stateHead, 3)} / ${fmt(stateOld, 3)} ms (${fmt(stateOld / stateHead, 2)}×)`,
);
row(
  `membership proof, head / ${commits} back (median)`,
  `${fmt(proveHead, 1)} / ${fmt(proveOld, 1)} ms (${fmt(proveOld / proveHead, 2)}×, target ≤ 1.2×)`,
);
writeResults("history", {
  benchmark: "history",
  conditions: c,
  settings: { records, commits, proofs, depth: 48 },
  units: "times in ms, sizes in bytes",
  importMs,
  commitMs,
  growthBytesPerCommit: growth,
  steadyGrowthBytesPerCommit: steadyGrowth,
  stateMs: { head: stateHead, back: stateOld },
  proveMs: { head: proveHead, back: proveOld },
});
printHeadline({
  records: checked,
  commits,
  import_s: Math.round(importMs) / 1000,
  growth_bytes_per_commit: Math.round(growth),
  steady_growth_bytes_per_commit: Math.round(steadyGrowth),
  state_ratio: Math.round((stateOld / stateHead) * 1000) / 1000,
  prove_head_ms: Math.round(proveHead * 10) / 10,
  prove_back_ms: Math.round(proveOld * 10) / 10,
  prove_ratio: Math.round((proveOld / proveHead) * 1000) / 1000,
  load_1m_start: loadStart,
  load_1m_end: Math.round(loadavg()[0]! * 100) / 100,
});
