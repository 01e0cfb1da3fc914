/**
 * `ssgkr registry get --db DIR (--name N | --slot S) [--json]`: the record, leaf and path status of a name or slot.
 */
import type { Command } from "commander";

/** Registers `registry get`. */
export function registerRegistryGet(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("get")
    .description("show the record, leaf and path status of a name or slot")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--name <name>", "record name")
    .option("--slot <s>", "slot number")
    .option("--json", "print JSON")
    .action(async (opts) => (await import("./registry-get-run.js")).runGetCommand(setExit, opts));
}
