/**
 * `ssgkr registry root --db DIR [--json | --hex]`: the current root and counts.
 */
import type { Command } from "commander";

/** Registers `registry root`. */
export function registerRegistryRoot(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("root")
    .description("show the current root and counts")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print JSON")
    .option("--hex", "print the root alone, as its 64 hex characters (e.g. into the file a verifier reads it from)")
    .action(async (opts) => (await import("./registry-root-run.js")).runRootCommand(setExit, opts));
}
