/**
 * Registry import benchmark: the npm package → repository map (all-the-package-repos@2.0.3148,
 * 4,483,635 records) imported into a fresh registry of each mapping, in the same run: the slot
 * mapping (slot-v1, depth 24) and the name-keyed mapping (record-leaf-v2, depth 48, compact
 * storage). Each import runs in its own child process, so peak RSS is per mapping.
 *
 *   npm run bench -- registry [--limit all|N] [--mapping both|slot-v1|record-leaf-v2] [--threads T]
 *                             [--batch-size B] [--requests 1000] [--dir DIR] [--keep]
 *
 * Batches default to each importer's own: 100,000 records per batch for slot-v1; record-leaf-v2
 * into an empty registry is one bulk batch (name-bulk.ts) with leaf-hashing jobs of 100,000.
 *
 * --limit above 100,000 (default: all) needs the full dataset: `node scripts/npm-repos-fetch.mjs`.
 * Per mapping: wall time, records/s, peak RSS (workers included), bytes on disk, where the time
 * went, and the time to build a membership and a non-membership request (median, min, max over
 * `--requests` random names, warm: each name's request is built twice and the second is timed).
 * Afterwards the database is reopened and paths are checked against the root. The name-keyed
 * figures are compared with the slot mapping's as same-run ratios against the targets (import
 * wall ≤ 2.5×, bytes on disk ≤ 1.5×, peak RSS ≤ 2 GiB, request ≤ 5 ms).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { choice, flag, int, text, parseOptions } from "./lib/options.js";
import { RegistryStore } from "../src/registry/store/store.js";
import { importRecords } from "../src/registry/import/import.js";
import { NameStore } from "../src/registry/store/name-store.js";
import { importNames } from "../src/registry/import/name-import.js";
import { nameReadRequest } from "../src/registry/name-prove.js";
import {
  npmReposFullPath,
  npmReposSource,
  NPM_REPOS_RECORDS,
  NPM_REPOS_SUBSET_RECORDS,
  NPM_REPOS_VERSION,
} from "../src/registry/import/dataset.js";
import { computeRoot, computeRootFromDigest } from "../src/smt/path.js";
import { digestEquals } from "../src/hash/digest.js";
import { readOnlyRequest } from "../src/registry/requests.js";
import { OpKind } from "../src/statement/types.js";

const args = parseOptions(
  {
    limit: text(/^(all|[1-9]\d*)$/, "a positive integer or all"),
    threads: int(1, 64),
    "batch-size": int(1, 10_000_000),
    dir: text(),
    keep: flag,
    mapping: choice(["both", "slot-v1", "record-leaf-v2"]),
    requests: int(1, 100_000),
    child: choice(["slot-v1", "record-leaf-v2"]),
    "child-dir": text(),
  },
  {
    smoke: { limit: "200", requests: "5", threads: "1" },
  },
);
const limitArg = args.get("limit") ?? "all";
const limit = limitArg === "all" ? ("all" as const) : Number(limitArg);
const threads = args.has("threads") ? Number(args.get("threads")) : undefined;
const batchSize = args.has("batch-size") ? Number(args.get("batch-size")) : undefined;
const requests = Number(args.get("requests") ?? 1000);
const expected = limit === "all" ? NPM_REPOS_RECORDS : limit;

interface ChildResult {
  mapping: string;
  depth: number;
  imported: number;
  malformed: number;
  batches: number;
  threads: number;
  timings: Record<string, number>;
  peakRssMiB: number;
  bytesOnDisk: number;
  root: number[];
  reopenedRootEqual: boolean;
  pathsRecomputeRoot: boolean;
  membershipMs: { median: number; min: number; max: number };
  nonmembershipMs: { median: number; min: number; max: number };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
};

/** A tiny deterministic generator (xorshift) for the sample of names. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

async function child(mapping: string, dir: string): Promise<void> {
  const onMalformed = (i: { line: number; code: string; message: string }) =>
    progress(`line ${i.line}: ${i.code}: ${i.message}`);
  let lastNote = 0;
  const onProgress = (p: { imported: number; batches: number }) => {
    const now = performance.now();
    if (now - lastNote > 5000) {
      lastNote = now;
      progress(`${mapping}: ${p.imported} records committed, ${p.batches} batches`);
    }
  };
  const options = {
    onError: "skip" as const,
    ...(batchSize !== undefined ? { batchSize } : {}),
    ...(threads !== undefined ? { threads } : {}),
    onMalformed,
    onProgress,
  };
  const random = rng(12345);
  let out: ChildResult;
  if (mapping === "slot-v1") {
    const store = RegistryStore.openOrCreate(dir, { depth: 24 });
    const report = await importRecords(store, () => npmReposSource(limit), options);
    const rss = process.resourceUsage().maxRSS / 1024;
    await store.close();
    const again = RegistryStore.open(dir, { readOnly: true });
    const head = again.head();
    let pathsOk = true;
    for (const slot of [0, 1, Math.floor(report.imported / 2), report.imported - 1, report.imported]) {
      const s = again.slotState(slot);
      pathsOk &&= digestEquals(computeRoot(s.leaf, BigInt(slot), s.siblings, again.config.depth), s.head.root);
    }
    const time = (slot: number, kind: OpKind.Membership | OpKind.NonMembership) => {
      let ms = 0;
      for (let rep = 0; rep < 2; rep++) {
        const t = performance.now();
        const s = again.slotState(slot);
        readOnlyRequest(kind, slot, s.leaf, s.siblings, s.head.root, again.config.leafMaxFields);
        ms = performance.now() - t;
      }
      return ms;
    };
    const mem: number[] = [];
    const non: number[] = [];
    for (let i = 0; i < requests; i++) {
      mem.push(time(Math.floor(random() * report.imported), OpKind.Membership));
      non.push(time(report.imported + Math.floor(random() * (2 ** 24 - report.imported)), OpKind.NonMembership));
    }
    out = {
      mapping,
      depth: 24,
      imported: report.imported,
      malformed: report.malformed,
      batches: report.batches,
      threads: report.threads,
      timings: { ...report.timings },
      peakRssMiB: rss,
      bytesOnDisk: again.bytesOnDisk(),
      root: Array.from(report.root),
      reopenedRootEqual: digestEquals(head.root, report.root),
      pathsRecomputeRoot: pathsOk,
      membershipMs: stats(mem),
      nonmembershipMs: stats(non),
    };
    await again.close();
  } else {
    const store = NameStore.openOrCreate(dir, { depth: 48 });
    const report = await importNames(store, () => npmReposSource(limit), options);
    const rss = process.resourceUsage().maxRSS / 1024;
    await store.close();
    const again = NameStore.open(dir, { readOnly: true });
    const head = again.head();
    const src = again.source();
    const present: string[] = [];
    while (present.length < requests) {
      const k = src.firstKeyIn(Math.floor(random() * 2 ** 48), 2 ** 48) ?? src.firstKeyIn(0, 2 ** 48)!;
      present.push(again.leafRow(k)!.record.name);
    }
    const absent = Array.from({ length: requests }, (_, i) => `ssgkr-bench-absent-${i}-${Math.floor(random() * 1e9)}`);
    let pathsOk = true;
    for (const name of [...present.slice(0, 3), ...absent.slice(0, 2)]) {
      const s = again.nameState(name);
      pathsOk &&= digestEquals(computeRoot(s.leaf, BigInt(s.key), s.path.siblings, again.config.depth), s.head.root);
    }
    const time = (name: string, kind: "membership" | "nonmembership") => {
      let ms = 0;
      for (let rep = 0; rep < 2; rep++) {
        const t = performance.now();
        const r = nameReadRequest(again, kind, name);
        ms = performance.now() - t;
        if (rep === 1)
          pathsOk &&= digestEquals(
            computeRootFromDigest(
              r.request.publicInputs.valueDigest,
              r.request.operation.key,
              r.request.witness.siblings,
            ),
            r.root,
          );
      }
      return ms;
    };
    const mem = present.map((n) => time(n, "membership"));
    const non = absent.map((n) => time(n, "nonmembership"));
    out = {
      mapping,
      depth: 48,
      imported: report.imported,
      malformed: report.malformed,
      batches: report.batches,
      threads: report.threads,
      timings: { ...report.timings },
      peakRssMiB: rss,
      bytesOnDisk: again.bytesOnDisk(),
      root: Array.from(report.root),
      reopenedRootEqual: digestEquals(head.root, report.root),
      pathsRecomputeRoot: pathsOk,
      membershipMs: stats(mem),
      nonmembershipMs: stats(non),
    };
    await again.close();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

if (args.has("child")) {
  await child(args.get("child")!, args.get("child-dir")!);
} else {
  if ((limit === "all" || limit > NPM_REPOS_SUBSET_RECORDS) && npmReposFullPath() === undefined) {
    process.stderr.write(
      `registry bench: the full all-the-package-repos@${NPM_REPOS_VERSION} dataset is not installed; run \`node scripts/npm-repos-fetch.mjs\` (or use --limit ≤ ${NPM_REPOS_SUBSET_RECORDS})\n`,
    );
    process.exit(2);
  }
  const which = args.get("mapping") ?? "both";
  const mappings = which === "both" ? ["slot-v1", "record-leaf-v2"] : [which];
  if (!mappings.every((m) => m === "slot-v1" || m === "record-leaf-v2")) {
    process.stderr.write(
      `registry bench: --mapping must be both, slot-v1 or record-leaf-v2, got ${JSON.stringify(which)}\n`,
    );
    process.exit(2);
  }
  const c = conditions();
  const loadStart = Math.round(loadavg()[0]! * 100) / 100;
  process.stdout.write(conditionsLine(c) + "\n");
  const base = args.get("dir") ?? mkdtempSync(join(tmpdir(), "registry-bench-"));
  const results: ChildResult[] = [];
  for (const m of mappings) {
    const dir = join(base, m);
    rmSync(dir, { recursive: true, force: true });
    progress(
      `${m}: importing ${expected} records into ${dir} (${m === "slot-v1" ? `batches of ${batchSize ?? 100_000}` : `one bulk batch, hash jobs of ${batchSize ?? 100_000}`})`,
    );
    const pass = process.argv.slice(2).filter((a, i, all) => !(a === "--mapping" || all[i - 1] === "--mapping"));
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...pass, "--child", m, "--child-dir", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 1 << 24,
    });
    if (r.status !== 0) {
      process.stderr.write(`registry bench: the ${m} run failed (exit ${r.status})\n`);
      process.exit(1);
    }
    results.push(JSON.parse(r.stdout.trim().split("\n").pop()!) as ChildResult);
    if (!args.has("keep") && !args.has("dir")) rmSync(dir, { recursive: true, force: true });
  }
  if (!args.has("keep") && !args.has("dir")) rmSync(base, { recursive: true, force: true });
  const row = (k: string, f: (r: ChildResult) => string) =>
    process.stdout.write(`${k.padEnd(42)} ${results.map((r) => f(r).padStart(22)).join(" ")}\n`);
  row("mapping", (r) => `${r.mapping} d${r.depth}`);
  row("records imported", (r) => String(r.imported));
  row("malformed (skipped)", (r) => String(r.malformed));
  row("batches", (r) => String(r.batches));
  row("hash threads", (r) => String(r.threads));
  row("wall", (r) => `${fmt(r.timings["wallMs"]! / 1000)} s`);
  row("records/s", (r) => fmt(r.imported / (r.timings["wallMs"]! / 1000), 0));
  row("peak RSS", (r) => `${fmt(r.peakRssMiB, 0)} MiB`);
  row("bytes on disk", (r) => `${r.bytesOnDisk} (${fmt(r.bytesOnDisk / 2 ** 20, 0)} MiB)`);
  row("parse + validate (main thread)", (r) => `${fmt(r.timings["parseMs"]! / 1000)} s`);
  row("hashing (leaves; v2: + tree; thread sum)", (r) => `${fmt(r.timings["hashMs"]! / 1000)} s`);
  row("waiting for workers (main thread)", (r) => `${fmt(r.timings["waitMs"]! / 1000)} s`);
  row("sort by key + duplicates (v2, main)", (r) => `${fmt((r.timings["sortMs"] ?? 0) / 1000)} s`);
  row("tree (slot: main; v2: phase wall − writes)", (r) => `${fmt(r.timings["treeMs"]! / 1000)} s`);
  row("database writes + commits (main thread)", (r) => `${fmt(r.timings["writeMs"]! / 1000)} s`);
  row(
    `membership request ms (med/min/max, ${requests})`,
    (r) => `${r.membershipMs.median.toFixed(2)}/${r.membershipMs.min.toFixed(2)}/${r.membershipMs.max.toFixed(1)}`,
  );
  row(
    `non-membership request ms (med/min/max)`,
    (r) =>
      `${r.nonmembershipMs.median.toFixed(2)}/${r.nonmembershipMs.min.toFixed(2)}/${r.nonmembershipMs.max.toFixed(1)}`,
  );
  row("reopened root equal", (r) => String(r.reopenedRootEqual));
  row("paths recompute the root", (r) => String(r.pathsRecomputeRoot));
  const slot = results.find((r) => r.mapping === "slot-v1");
  const name = results.find((r) => r.mapping === "record-leaf-v2");
  const ratios =
    slot && name
      ? { wall: name.timings["wallMs"]! / slot.timings["wallMs"]!, disk: name.bytesOnDisk / slot.bytesOnDisk }
      : undefined;
  if (ratios && name) {
    process.stdout.write(
      `\nname-keyed / slot (same run): import wall ${ratios.wall.toFixed(2)}× (target ≤ 2.5×), bytes on disk ${ratios.disk.toFixed(2)}× (target ≤ 1.5×); name-keyed peak RSS ${fmt(name.peakRssMiB, 0)} MiB (target ≤ 2048), request median ${Math.max(name.membershipMs.median, name.nonmembershipMs.median).toFixed(2)} ms (target ≤ 5)\n`,
    );
  }
  writeResults("registry", {
    benchmark: "registry",
    conditions: c,
    settings: {
      dataset: `all-the-package-repos@${NPM_REPOS_VERSION}`,
      limit: limitArg,
      mappings,
      leafMaxFields: 31,
      batchSize:
        batchSize ??
        "importer default (slot-v1: 100,000 per batch; record-leaf-v2 into an empty registry: one bulk batch, hash jobs of 100,000)",
      requests,
      database: "lmdb",
    },
    units: "times in ms, sizes in bytes, rss in MiB",
    results,
    ratios,
    // the last mapping's import, in the shape of the report section
    report: results[results.length - 1]!,
    recordsPerSecond: results[results.length - 1]!.imported / (results[results.length - 1]!.timings["wallMs"]! / 1000),
  });
  const h: Record<string, number> = {};
  for (const r of results) {
    const p = r.mapping === "slot-v1" ? "slot" : "name";
    h[`${p}_records`] = r.imported;
    h[`${p}_wall_s`] = Math.round(r.timings["wallMs"]!) / 1000;
    h[`${p}_peak_rss_mib`] = Math.round(r.peakRssMiB);
    h[`${p}_bytes_on_disk`] = r.bytesOnDisk;
    h[`${p}_membership_request_ms`] = Math.round(r.membershipMs.median * 1000) / 1000;
    h[`${p}_nonmembership_request_ms`] = Math.round(r.nonmembershipMs.median * 1000) / 1000;
  }
  h["load_1m_start"] = loadStart;
  h["load_1m_end"] = Math.round(loadavg()[0]! * 100) / 100;
  if (ratios) {
    h["wall_ratio"] = Math.round(ratios.wall * 1000) / 1000;
    h["disk_ratio"] = Math.round(ratios.disk * 1000) / 1000;
  }
  printHeadline(h);
  if (results.some((r) => !r.reopenedRootEqual || !r.pathsRecomputeRoot)) process.exitCode = 1;
}
