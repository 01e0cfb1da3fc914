/**
 * `ssgkr registry retention --db DIR [--keep-commits N] [--keep-days D] [--json]`: how long earlier roots of a name-keyed registry stay provable, and the oldest provable root.
 */
import type { Command } from "commander";

/** Registers `registry retention`. */
export function registerRegistryRetention(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("retention")
    .description(
      "name-keyed registries: show (or change) how long earlier roots stay provable, and the oldest provable root",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "earlier roots stay provable for the last N batches")
    .option("--keep-days <d>", "earlier roots stay provable for D days after they were replaced")
    .option("--json", "print JSON")
    .action(async (opts) => (await import("./registry-retention-run.js")).runRetentionCommand(setExit, opts));
}
