/**
 * Output conventions of every benchmark: progress on stderr, a human-readable table on stdout,
 * full results in bench/results/<name>.json, and the LAST stdout line is one JSON object of
 * headline medians (what scripts and CI read).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** bench/results in the repository (this file runs from dist/bench/lib); BENCH_RESULTS_DIR overrides. */
export function resultsDir(): string {
  return (
    process.env["BENCH_RESULTS_DIR"] ??
    join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bench", "results")
  );
}

/** A progress note on stderr. */
export function progress(message: string): void {
  process.stderr.write(`… ${message}\n`);
}

/** Writes bench/results/<name>.json (pretty-printed) and returns its path. */
export function writeResults(name: string, data: unknown): string {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(data, null, 2) + "\n");
  return path;
}

/** Prints the headline object as the final stdout line. Call last. */
export function printHeadline(headline: Record<string, number | string | null>): void {
  process.stdout.write(JSON.stringify(headline) + "\n");
}

/** Formats a number with `digits` significant decimals for tables. */
export function fmt(x: number, digits = 1): string {
  return x >= 100 ? x.toFixed(0) : x.toFixed(digits);
}

/** Minimal command-line options: `--key value` pairs and `--flag`. */
export function parseArgs(argv: readonly string[] = process.argv.slice(2)): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) continue;
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith("--")) {
      out.set(a.slice(2), next);
      i++;
    } else {
      out.set(a.slice(2), "true");
    }
  }
  return out;
}
