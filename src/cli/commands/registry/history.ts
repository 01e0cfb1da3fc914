/** `ssgkr registry history --db DIR [--json]`: the committed batches with their roots, one a line. */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { openRegistry } from "../../../registry/store/open-any.js";
import { formatRoot } from "../../../registry/root.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { digestText } from "./output.js";

/** Registers `registry history`. */
export function registerHistory(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("history")
    .description("list the committed batches with their roots")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print one JSON object per line")
    .action(async (opts: { db: string; json?: boolean }) => {
      const any = openRegistry(opts.db, { readOnly: true });
      if (any.mapping === NAME_MAPPING_ID) {
        try {
          for (const e of any.store.history()) {
            if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
            else process.stdout.write(`batch ${e.batch} ${e.committedAt} ${e.kind}${e.name !== undefined ? ` name ${JSON.stringify(e.name)}` : ""} records ${e.written} live ${e.live} deleted ${e.deleted} root ${digestText(e.root)}\n`);
          }
        } finally {
          await any.store.close();
        }
        setExit(EXIT_OK);
        return;
      }
      const store = any.store;
      try {
        for (const e of store.history()) {
          if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
          else process.stdout.write(`batch ${e.batch} ${e.committedAt} ${e.kind}${e.slot !== undefined ? ` slot ${e.slot}` : ""} records ${e.records} live ${e.live} deleted ${e.deleted} next ${e.nextSlot} root ${digestText(e.root)}\n`);
        }
      } finally {
        await store.close();
      }
      setExit(EXIT_OK);
    });
}
