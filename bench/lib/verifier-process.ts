/**
 * Runs bench/children/verifier.ts on a job in a process of its own and returns its timings: the
 * verifier measured in a process that holds only the verifier's data (docs/benchmarks.md).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WhirVerifyOptions } from "../../src/pcs/index.js";
import { progress } from "./output.js";

/** What the verifier's process verifies. */
export type VerifierJob =
  | {
      readonly what: "aggregate";
      readonly kind: "membership" | "nonmembership";
      readonly depth: number;
      /** The `goldenFixture` seeds of the operations, as decimal strings. */
      readonly seeds: readonly string[];
      readonly proof: string;
      /** The verifier's acceptance of WHIR sets (`WhirVerifyOptions`). */
      readonly options: WhirVerifyOptions;
      readonly warmup: number;
      readonly calls: number;
    }
  | {
      readonly what: "block";
      readonly blockJson: string;
      readonly fromRoot: string;
      readonly toRoot: string;
      readonly proof: string;
      readonly warmup: number;
      readonly calls: number;
    }
  | {
      /** The native replay and the v2 check of a block, from requests.json (the v2 witness). */
      readonly what: "block-witness";
      readonly depth: number;
      readonly leafMaxFields: number;
      readonly fromRoot: string;
      readonly toRoot: string;
      readonly requests: string;
      readonly v2Proof: string;
      readonly warmup: number;
      readonly calls: number;
    };

/** Per verifier, the process CPU ms and wall ms of each measured call (after the warm-up calls). */
export interface VerifierTimes {
  readonly cpu: Record<string, number[]>;
  readonly wall: Record<string, number[]>;
  /** Per verifier, the process CPU ms of its first call (compilation included). */
  readonly first: Record<string, number>;
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "children", "verifier.js");

/** Files a job names, written to a temporary folder that lives for the call. */
export type JobFiles = Record<string, string | Uint8Array>;

/**
 * Writes `files` to a temporary folder, builds the job from their paths and runs it in a child.
 * With BENCH_KEEP_VERIFIER_JOB=1 the folder stays (its path on stderr), to profile the child alone.
 * @throws Error with the child's stderr when it fails.
 */
export function runVerifierProcess(
  files: JobFiles,
  job: (paths: Record<string, string>) => VerifierJob,
): VerifierTimes {
  const dir = mkdtempSync(join(tmpdir(), "ssgkr-bench-verifier-"));
  try {
    const paths: Record<string, string> = {};
    for (const [name, content] of Object.entries(files)) {
      paths[name] = join(dir, name);
      writeFileSync(paths[name], content);
    }
    const jobFile = join(dir, "job.json");
    writeFileSync(jobFile, JSON.stringify(job(paths)));
    const r = spawnSync(process.execPath, [CHILD, jobFile], { encoding: "utf8", maxBuffer: 16 << 20 });
    if (r.status !== 0) throw new Error(`the verifier's process failed (${r.status}): ${r.stderr.trim()}`);
    const lines = r.stdout.trim().split("\n");
    return JSON.parse(lines[lines.length - 1]!) as VerifierTimes;
  } finally {
    if (process.env["BENCH_KEEP_VERIFIER_JOB"] === "1")
      progress(`verifier's job kept in ${dir} (node ${CHILD} ${dir}/job.json)`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
