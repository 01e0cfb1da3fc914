/**
 * `ssgkr registry insert|replace|delete|restore --db DIR (--name N | --slot S) [--value V | --null | --fields LIST] [--json]`: one committed update of one record.
 */
import type { Command } from "commander";

/** Registers `registry insert`, `registry replace`, `registry delete` and `registry restore`, in that order. */
export function registerRegistryUpdates(registry: Command, setExit: (code: number) => void): void {
  const update = (kind: "insert" | "replace" | "delete" | "restore", description: string) => {
    const cmd = registry
      .command(kind)
      .description(description)
      .requiredOption("--db <dir>", "registry database directory")
      .option("--name <name>", "record name");
    if (kind !== "insert") cmd.option("--slot <s>", "slot number");
    if (kind !== "delete")
      cmd
        .option("--value <text>", "text value (e.g. a URL)")
        .option("--null", "the null value")
        .option("--fields <list>", "comma-separated field elements");
    cmd.option("--json", "print JSON");
    cmd.action(async (opts) => (await import("./registry-update-run.js")).runUpdateCommand(setExit, kind, opts));
  };
  update("insert", "register a new record at the next free slot (Empty → Occupied)");
  update("replace", "change the value of a live record (Occupied → Occupied)");
  update("delete", "delete a live record (Occupied → Tombstone; the slot keeps the name)");
  update("restore", "bring a deleted record back, with a new value or its last one (Tombstone → Occupied)");
}
