/**
 * Registry import benchmark: the npm package → repository map (all-the-package-repos@2.0.3148,
 * 4,483,635 records) imported into a fresh depth-24 registry on LMDB.
 *
 *   npm run bench -- registry [--limit all|N] [--threads T] [--batch-size B] [--dir DIR] [--keep]
 *
 * --limit above 100,000 (default: all) needs the full dataset: `node scripts/npm-repos-fetch.mjs`.
 * Reports wall time, records/s, peak RSS (the whole process, workers included), bytes on disk
 * and where the time went: parsing and validation, leaf hashing (summed over the worker
 * threads), tree recomputation, database writes. Afterwards the database is reopened and a few
 * paths are checked against the root.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { conditions, conditionsLine, fmt, parseArgs, printHeadline, progress, writeResults } from "./lib/index.js";
import { flag, int, text, parseOptions } from "./lib/options.js";
import { RegistryStore } from "../src/registry/store.js";
import { importRecords } from "../src/registry/import.js";
import { npmReposFullPath, npmReposSource, NPM_REPOS_RECORDS, NPM_REPOS_SUBSET_RECORDS, NPM_REPOS_VERSION } from "../src/registry/dataset.js";
import { computeRoot } from "../src/smt/path.js";
import { digestEquals } from "../src/hash/digest.js";

const args = parseOptions({ limit: text(/^(all|[1-9]\d*)$/, "a positive integer or all"), threads: int(1, 64), "batch-size": int(1, 10_000_000), dir: text(), keep: flag });
const limitArg = args.get("limit") ?? "all";
const limit = limitArg === "all" ? ("all" as const) : Number(limitArg);
const threads = args.has("threads") ? Number(args.get("threads")) : undefined;
const batchSize = Number(args.get("batch-size") ?? 100_000);
const expected = limit === "all" ? NPM_REPOS_RECORDS : limit;

if ((limit === "all" || limit > NPM_REPOS_SUBSET_RECORDS) && npmReposFullPath() === undefined) {
  process.stderr.write(`registry bench: the full all-the-package-repos@${NPM_REPOS_VERSION} dataset is not installed; run \`node scripts/npm-repos-fetch.mjs\` (or use --limit ≤ ${NPM_REPOS_SUBSET_RECORDS})\n`);
  process.exit(2);
}

const c = conditions();
process.stdout.write(conditionsLine(c) + "\n");
const base = args.get("dir") ?? mkdtempSync(join(tmpdir(), "registry-bench-"));
const dir = join(base, "db");
rmSync(dir, { recursive: true, force: true });

progress(`importing ${expected} records into ${dir} (batches of ${batchSize})`);
const store = RegistryStore.openOrCreate(dir);
let lastNote = 0;
const report = await importRecords(store, () => npmReposSource(limit), {
  onError: "skip",
  batchSize,
  ...(threads !== undefined ? { threads } : {}),
  onMalformed: (i) => progress(`line ${i.line}: ${i.code}: ${i.message}`),
  onProgress: (p) => {
    const now = performance.now();
    if (now - lastNote > 5000) {
      lastNote = now;
      progress(`${p.imported} records committed, ${p.batches} batches`);
    }
  },
});
const rssMiB = process.resourceUsage().maxRSS / 1024;
await store.close();

// Reopen: same root, and paths of a few slots recompute it.
const again = RegistryStore.open(dir, { readOnly: true });
const head = again.head();
const sameRoot = digestEquals(head.root, report.root);
let pathsOk = true;
for (const slot of [0, 1, Math.floor(report.imported / 2), report.imported - 1, report.imported]) {
  const s = again.slotState(slot);
  pathsOk &&= digestEquals(computeRoot(s.leaf, BigInt(slot), s.siblings, again.config.depth), s.head.root);
}
const bytesOnDisk = again.bytesOnDisk();
await again.close();
if (!args.has("keep") && !args.has("dir")) rmSync(base, { recursive: true, force: true });

const t = report.timings;
const recordsPerSecond = report.imported / (t.wallMs / 1000);
const rows = [
  ["records imported", String(report.imported)],
  ["malformed (skipped)", String(report.malformed)],
  ["batches", String(report.batches)],
  ["hash threads", String(report.threads)],
  ["wall", `${fmt(t.wallMs / 1000)} s`],
  ["records/s", fmt(recordsPerSecond, 0)],
  ["peak RSS", `${fmt(rssMiB, 0)} MiB`],
  ["bytes on disk", `${bytesOnDisk} (${fmt(bytesOnDisk / 2 ** 20, 0)} MiB)`],
  ["parse + validate (main thread)", `${fmt(t.parseMs / 1000)} s`],
  ["leaf hashing (sum over workers)", `${fmt(t.hashMs / 1000)} s`],
  ["waiting for workers (main thread)", `${fmt(t.waitMs / 1000)} s`],
  ["tree recomputation (main thread)", `${fmt(t.treeMs / 1000)} s`],
  ["database writes + commits (main thread)", `${fmt(t.writeMs / 1000)} s`],
  ["reopened root equal", String(sameRoot)],
  ["paths recompute the root", String(pathsOk)],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(42)} ${v}\n`);
const results = {
  benchmark: "registry",
  conditions: c,
  settings: { dataset: `all-the-package-repos@${NPM_REPOS_VERSION}`, limit: limitArg, depth: 24, leafMaxFields: 31, batchSize, threads: report.threads, database: "lmdb" },
  units: "times in ms, sizes in bytes, rss in MiB",
  report: { ...report, root: Array.from(report.root) },
  recordsPerSecond,
  peakRssMiB: rssMiB,
  bytesOnDisk,
  reopenedRootEqual: sameRoot,
  pathsRecomputeRoot: pathsOk,
};
writeResults("registry", results);
printHeadline({ records: report.imported, wall_s: Math.round(t.wallMs) / 1000, records_per_s: Math.round(recordsPerSecond), peak_rss_mib: Math.round(rssMiB), bytes_on_disk: bytesOnDisk, parse_s: Math.round(t.parseMs) / 1000, hash_s: Math.round(t.hashMs) / 1000, tree_s: Math.round(t.treeMs) / 1000, write_s: Math.round(t.writeMs) / 1000 });
if (!sameRoot || !pathsOk) process.exitCode = 1;
