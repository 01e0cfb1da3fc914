/**
 * Memory of the GKR prover: sparse (production, Libra two-phase) versus dense (textbook, test-only)
 * layer oracle on generic two-layer circuits.
 *
 *   npm run bench -- memory [--families mixed,linear,product,cube] [--min-bits 2]
 *     [--sparse-max-bits 16] [--dense-max-bits 12] [--setup-max-bits 14] [--extent-max-bits 23]
 *     [--repeats 3] [--time-cap-s 60] [--extent-time-cap-s 600] [--rss-cap-mib 4096]
 *     [--extent-rss-limit-mib 3072]
 *
 * Families (every layer and the input have 2^bits wires; per output wire o, inputs at affine
 * permutations of o): mixed = Lin + Mul, linear = Lin + Lin, product = Mul, cube = Pow3 + Lin
 * plus a constant.
 *
 * Every point runs in its own child process (bench/children/memory-point.ts), `repeats` times;
 * the child reports its peak RSS (getrusage maxRSS, right after proving) and the oracle's own
 * allocated bytes (largest layer), then verifies its proof. The parent polls each child's RSS and
 * kills it above `rss-cap-mib` ("OOM (RSS cap)") or after the time cap ("time cap"); an
 * ArrayBuffer allocation failure inside the child is "allocation error".
 *
 * Phases:
 *  1. sweep: widths 2^min-bits … 2^sparse-max-bits with the sparse oracle and up to
 *     2^dense-max-bits with the dense oracle, until the dense oracle fails (then no larger dense
 *     widths for that family); proofs of both oracles are compared (SHA-256 of the proof bytes);
 *  2. dense setup: from the width where dense proving failed up to 2^setup-max-bits, only the
 *     dense tables of the output layer are built (no rounds), until that fails too;
 *  3. extent: the mixed family with the sparse oracle at 2^(sparse-max-bits+1) … 2^extent-max-bits,
 *     one process each, while peak RSS stays below `extent-rss-limit-mib` (3 GiB).
 *
 * Writes bench/results/memory.json, prints a table, and ends with one JSON line of headline numbers.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { conditions, conditionsLine, fmt, printHeadline, progress, writeResults } from "./lib/index.js";
import { choices, int, num, parseOptions } from "./lib/options.js";
import { FAMILIES, type Family } from "./children/memory-families.js";
import type { PointResult } from "./children/memory-point.js";

const args = parseOptions(
  {
    families: choices(FAMILIES),
    "min-bits": int(1, 30),
    "sparse-max-bits": int(1, 30),
    "dense-max-bits": int(1, 30),
    "setup-max-bits": int(1, 30),
    "extent-max-bits": int(1, 30),
    repeats: int(1, 1000),
    "time-cap-s": num(0.001, 86_400),
    "extent-time-cap-s": num(0.001, 86_400),
    "rss-cap-mib": int(1, 1 << 20),
    "extent-rss-limit-mib": int(1, 1 << 20),
  },
  {
    smoke: {
      families: "mixed",
      "min-bits": "2",
      "sparse-max-bits": "3",
      "dense-max-bits": "3",
      "setup-max-bits": "3",
      "extent-max-bits": "4",
      repeats: "1",
    },
  },
);
const families = (args.get("families") ?? FAMILIES.join(",")).split(",") as Family[];
const minBits = Number(args.get("min-bits") ?? 2);
const sparseMaxBits = Number(args.get("sparse-max-bits") ?? 16);
const denseMaxBits = Number(args.get("dense-max-bits") ?? 12);
const setupMaxBits = Number(args.get("setup-max-bits") ?? 14);
const extentMaxBits = Number(args.get("extent-max-bits") ?? 23);
const repeats = Number(args.get("repeats") ?? 3);
const timeCapS = Number(args.get("time-cap-s") ?? 60);
const extentTimeCapS = Number(args.get("extent-time-cap-s") ?? 600);
const rssCapMiB = Number(args.get("rss-cap-mib") ?? 4096);
const extentRssLimitMiB = Number(args.get("extent-rss-limit-mib") ?? 3072);
for (const f of families)
  if (!FAMILIES.includes(f)) throw new Error(`unknown family ${f} (known: ${FAMILIES.join(", ")})`);

const childScript = join(dirname(fileURLToPath(import.meta.url)), "children", "memory-point.js");

type OracleMode = PointResult["oracle"];

/** One child process: its report, or how it failed. */
interface Run {
  family: Family;
  widthBits: number;
  oracle: OracleMode;
  ok: boolean;
  /** "time cap", "OOM (RSS cap)", "OOM (killed by signal …)", "allocation error", "exception", "no report". */
  failure?: string;
  message?: string;
  /** Highest RSS the parent saw while polling (MiB); for killed children the best estimate of the peak. */
  polledPeakRssMiB: number;
  wallMs: number;
  report?: PointResult;
}

function rssMiB(pid: number): { rss: number; hwm: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /VmRSS:\s+(\d+) kB/.exec(text);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(text);
    return { rss: rss ? Number(rss[1]) / 1024 : 0, hwm: hwm ? Number(hwm[1]) / 1024 : 0 };
  } catch {
    return null;
  }
}

function runPoint(family: Family, widthBits: number, oracle: OracleMode, capS: number): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [childScript, family, String(widthBits), oracle], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let killedFor: string | undefined;
    let polled = 0;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const poll = setInterval(() => {
      const m = child.pid === undefined ? null : rssMiB(child.pid);
      if (!m) return;
      polled = Math.max(polled, m.rss, m.hwm);
      if (m.rss > rssCapMiB && !killedFor) {
        killedFor = `OOM (RSS cap ${rssCapMiB} MiB)`;
        child.kill("SIGKILL");
      }
    }, 50);
    const timer = setTimeout(() => {
      if (!killedFor) {
        killedFor = `time cap (${capS} s)`;
        child.kill("SIGKILL");
      }
    }, capS * 1000);
    child.on("exit", (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const run: Run = {
        family,
        widthBits,
        oracle,
        ok: false,
        polledPeakRssMiB: polled,
        wallMs: performance.now() - t0,
      };
      const line = stdout.trim().split("\n").pop();
      if (killedFor) {
        run.failure = killedFor;
      } else if (signal) {
        run.failure = `OOM (killed by signal ${signal})`;
      } else if (line) {
        try {
          const report = JSON.parse(line) as PointResult;
          run.report = report;
          run.ok = report.ok && (oracle === "dense-setup" || report.verified === true);
          if (!report.ok) {
            run.failure = report.error === "allocation" ? "allocation error" : "exception";
            run.message = report.message;
          } else if (!run.ok) {
            run.failure = "proof did not verify";
          }
        } catch {
          run.failure = "no report";
          run.message = `exit code ${code}: ${stderr.slice(-300)}`;
        }
      } else {
        run.failure = "no report";
        run.message = `exit code ${code}: ${stderr.slice(-300)}`;
      }
      resolve(run);
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface PointSummary {
  family: Family;
  widthBits: number;
  width: number;
  oracle: OracleMode;
  runs: number;
  ok: boolean;
  failure?: string;
  peakRssMiB?: number;
  oracleBytes?: number;
  proveMs?: number;
  verified?: boolean;
  proofSha256?: string;
  /** All runs produced the same proof. */
  deterministic?: boolean;
}

function summarize(runs: Run[]): PointSummary {
  const r0 = runs[0]!;
  const okRuns = runs.filter((r) => r.ok && r.report);
  const s: PointSummary = {
    family: r0.family,
    widthBits: r0.widthBits,
    width: 2 ** r0.widthBits,
    oracle: r0.oracle,
    runs: runs.length,
    ok: okRuns.length === runs.length,
  };
  if (!s.ok) {
    const bad = runs.find((r) => !r.ok)!;
    s.failure = bad.failure;
    s.peakRssMiB = bad.polledPeakRssMiB;
    return s;
  }
  s.peakRssMiB = median(okRuns.map((r) => r.report!.peakRssMiB!));
  s.oracleBytes = median(okRuns.map((r) => r.report!.oracleBytes!));
  s.proveMs = median(okRuns.map((r) => r.report!.proveMs!));
  if (r0.oracle !== "dense-setup") {
    s.verified = okRuns.every((r) => r.report!.verified === true);
    s.proofSha256 = okRuns[0]!.report!.proofSha256;
    s.deterministic = okRuns.every((r) => r.report!.proofSha256 === s.proofSha256);
  }
  return s;
}

async function point(
  family: Family,
  bits: number,
  oracle: OracleMode,
  n: number,
  capS: number,
): Promise<{ summary: PointSummary; runs: Run[] }> {
  const runs: Run[] = [];
  for (let k = 0; k < n; k++) {
    progress(`${family} 2^${bits} ${oracle} run ${k + 1}/${n}`);
    const run = await runPoint(family, bits, oracle, capS);
    runs.push(run);
    if (!run.ok) break;
  }
  return { summary: summarize(runs), runs };
}

const cond = conditions();
console.log(conditionsLine(cond));
console.log(
  `# ${repeats} processes per point; time cap ${timeCapS} s, RSS cap ${rssCapMiB} MiB; extent: mixed family, time cap ${extentTimeCapS} s, limit ${extentRssLimitMiB} MiB`,
);

const allRuns: Run[] = [];
const sweep: PointSummary[] = [];
const setup: PointSummary[] = [];
const denseFailure = new Map<Family, PointSummary>();

for (const family of families) {
  let denseFailed = false;
  for (let bits = minBits; bits <= Math.max(sparseMaxBits, denseMaxBits); bits++) {
    if (bits <= sparseMaxBits) {
      const { summary, runs } = await point(family, bits, "sparse", repeats, timeCapS);
      sweep.push(summary);
      allRuns.push(...runs);
    }
    if (bits <= denseMaxBits && !denseFailed) {
      const { summary, runs } = await point(family, bits, "dense", repeats, timeCapS);
      sweep.push(summary);
      allRuns.push(...runs);
      if (!summary.ok) {
        denseFailed = true;
        denseFailure.set(family, summary);
      }
    }
  }
  // Phase 2: dense tables only, from the first failing (or first untried) width on.
  const failed = denseFailure.get(family);
  const from = failed ? failed.widthBits : denseMaxBits + 1;
  for (let bits = from; bits <= setupMaxBits; bits++) {
    const { summary, runs } = await point(family, bits, "dense-setup", 1, timeCapS);
    setup.push(summary);
    allRuns.push(...runs);
    if (!summary.ok) break;
  }
}

// Phase 3: how far the sparse prover goes below the RSS limit.
const extent: PointSummary[] = [];
for (let bits = sparseMaxBits + 1; bits <= extentMaxBits; bits++) {
  const { summary, runs } = await point("mixed", bits, "sparse", 1, extentTimeCapS);
  extent.push(summary);
  allRuns.push(...runs);
  if (!summary.ok || summary.peakRssMiB! >= extentRssLimitMiB) break;
}

// Comparison of the two oracles where both completed.
interface Comparison {
  family: Family;
  widthBits: number;
  sameProof: boolean;
  bothVerified: boolean;
}
const comparisons: Comparison[] = [];
for (const d of sweep.filter((p) => p.oracle === "dense" && p.ok)) {
  const s = sweep.find((p) => p.oracle === "sparse" && p.family === d.family && p.widthBits === d.widthBits && p.ok);
  if (s)
    comparisons.push({
      family: d.family,
      widthBits: d.widthBits,
      sameProof: s.proofSha256 === d.proofSha256 && !!s.deterministic && !!d.deterministic,
      bothVerified: !!s.verified && !!d.verified,
    });
}

// Table.
const cell = (p: PointSummary | undefined, what: "rss" | "bytes" | "ms"): string => {
  if (!p) return "—";
  if (!p.ok) return what === "rss" ? `✗ ${p.failure}` : "";
  if (what === "rss") return fmt(p.peakRssMiB!);
  if (what === "bytes") return fmt(p.oracleBytes! / 2 ** 10);
  return fmt(p.proveMs!);
};
console.log("");
console.log(
  "family   width    | sparse: RSS MiB  oracle KiB  prove ms | dense: RSS MiB  oracle KiB  prove ms | same proof, verified",
);
for (const family of families) {
  for (let bits = minBits; bits <= Math.max(sparseMaxBits, denseMaxBits); bits++) {
    const s = sweep.find((p) => p.family === family && p.widthBits === bits && p.oracle === "sparse");
    const d = sweep.find((p) => p.family === family && p.widthBits === bits && p.oracle === "dense");
    if (!s && !d) continue;
    const c = comparisons.find((x) => x.family === family && x.widthBits === bits);
    const same = c
      ? `${c.sameProof ? "same" : "DIFFERENT"}, ${c.bothVerified ? "ok" : "NOT VERIFIED"}`
      : s
        ? s.verified
          ? "—, ok"
          : "—, NOT VERIFIED"
        : "";
    console.log(
      `${family.padEnd(8)} ${String(2 ** bits).padStart(7)}  | ${cell(s, "rss").padStart(14)} ${cell(s, "bytes").padStart(11)} ${cell(s, "ms").padStart(9)} | ` +
        `${cell(d, "rss").padStart(13)} ${cell(d, "bytes").padStart(11)} ${cell(d, "ms").padStart(9)} | ${same}`,
    );
  }
}
console.log("");
console.log("dense tables only (output layer, no rounds):");
for (const p of setup)
  console.log(
    `  ${p.family.padEnd(8)} ${String(p.width).padStart(7)}  ${p.ok ? `RSS ${fmt(p.peakRssMiB!)} MiB, tables ${fmt(p.oracleBytes! / 2 ** 20)} MiB` : `✗ ${p.failure} (polled RSS ${fmt(p.peakRssMiB ?? 0)} MiB)`}`,
  );
console.log("sparse extent (mixed family, one process each):");
for (const p of extent)
  console.log(
    `  ${String(p.width).padStart(9)}  ${p.ok ? `RSS ${fmt(p.peakRssMiB!)} MiB, oracle ${fmt(p.oracleBytes! / 2 ** 20)} MiB, prove ${fmt(p.proveMs! / 1000, 1)} s, ${p.verified ? "verified" : "NOT VERIFIED"}` : `✗ ${p.failure}`}`,
  );

// Headline numbers.
const sparseOk = [...sweep, ...extent].filter((p) => p.oracle === "sparse" && p.ok && p.verified);
const fits = sparseOk.filter((p) => p.peakRssMiB! < extentRssLimitMiB);
const at65536 = sweep.filter((p) => p.oracle === "sparse" && p.widthBits === 16 && p.ok);
const denseOk = sweep.filter((p) => p.oracle === "dense" && p.ok);
const firstDenseFailure = [...denseFailure.values()].sort((a, b) => a.widthBits - b.widthBits)[0];
const firstSetupFailure = setup.filter((p) => !p.ok).sort((a, b) => a.widthBits - b.widthBits)[0];
const headline: Record<string, number | string> = {
  sparse_max_width_under_3gib: fits.length ? Math.max(...fits.map((p) => p.width)) : 0,
  sparse_peak_rss_mib_at_65536: at65536.length ? Math.round(Math.max(...at65536.map((p) => p.peakRssMiB!))) : -1,
  sparse_prove_ms_at_65536: at65536.length ? Math.round(median(at65536.map((p) => p.proveMs!))) : -1,
  dense_max_width: denseOk.length ? Math.max(...denseOk.map((p) => p.width)) : 0,
  dense_failure: firstDenseFailure ? `${firstDenseFailure.failure} at width ${firstDenseFailure.width}` : "none",
  dense_tables_failure: firstSetupFailure ? `${firstSetupFailure.failure} at width ${firstSetupFailure.width}` : "none",
  proofs_compared: comparisons.length,
  proofs_identical: comparisons.every((c) => c.sameProof) ? "yes" : "no",
  all_verified:
    sparseOk.length + denseOk.length === [...sweep, ...extent].filter((p) => p.ok && p.oracle !== "dense-setup").length
      ? "yes"
      : "no",
};
const path = writeResults("memory", {
  conditions: cond,
  parameters: {
    families,
    minBits,
    sparseMaxBits,
    denseMaxBits,
    setupMaxBits,
    extentMaxBits,
    repeats,
    timeCapS,
    extentTimeCapS,
    rssCapMiB,
    extentRssLimitMiB,
  },
  units: {
    peakRssMiB: "MiB (getrusage maxRSS of the child after proving; for failed runs the parent's polled maximum)",
    oracleBytes: "bytes of typed arrays allocated by the layer oracle (largest layer)",
    proveMs: "ms",
  },
  sweep,
  denseTablesOnly: setup,
  sparseExtent: extent,
  comparisons,
  runs: allRuns,
  headline,
});
console.log(`# results: ${path}`);
printHeadline(headline);
