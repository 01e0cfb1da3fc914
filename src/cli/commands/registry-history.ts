/**
 * `ssgkr registry history --db DIR [--json]`: the committed batches with their roots.
 */
import type { Command } from "commander";

/** Registers `registry history`. */
export function registerRegistryHistory(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("history")
    .description("list the committed batches with their roots")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print one JSON object per line")
    .action(async (opts) => (await import("./registry-history-run.js")).runHistoryCommand(setExit, opts));
}
