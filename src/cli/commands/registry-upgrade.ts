/**
 * `ssgkr registry upgrade --db DIR [--keep-commits N] [--keep-days D]`: converts a registry to the current format in place, keeping its root and history.
 */
import type { Command } from "commander";

/** Registers `registry upgrade`. */
export function registerRegistryUpgrade(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("upgrade")
    .description(
      "convert a registry to the current format in place (slot-v1: format 1 → 2, row checksums; name-keyed: format 2 or 3 → 4, proofs at every root of the retention window); root and history are kept",
    )
    .requiredOption("--db <dir>", "registry database directory")
    .option("--keep-commits <n>", "name-keyed: earlier roots stay provable for the last N batches (default 1000)")
    .option(
      "--keep-days <d>",
      "name-keyed: earlier roots stay provable for D days after they were replaced (default 30)",
    )
    .action(async (opts) => (await import("./registry-upgrade-run.js")).runUpgradeCommand(setExit, opts));
}
