/**
 * `ssgkr registry check --db DIR [--threads T] [--no-progress] [--json]`: a full scan (row checksums, records against the name index and head, every path against the head root); exit 1 on damage.
 */
import type { Command } from "commander";

/** Registers `registry check`. */
export function registerRegistryCheck(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("check")
    .description(
      "scan the whole registry: every row's checksum, records against the name index and head, every path against the head root (exit 1 on damage)",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--threads <n>", "leaf-hashing worker threads (0 = the main thread)")
    .option("--no-progress", "no progress bar")
    .option("--json", "print the report as JSON")
    .action(async (opts) => (await import("./registry-check-run.js")).runCheckCommand(setExit, opts));
}
