/** `ssgkr registry root --db DIR [--json]`: the current root, batch and counts, and the registry's configuration. */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { openRegistry } from "../../../registry/store/open-any.js";
import { formatRoot } from "../../../registry/root.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { digestText } from "./output.js";

/** Registers `registry root`. */
export function registerRoot(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("root")
    .description("show the current root and counts")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--json", "print JSON")
    .action(async (opts: { db: string; json?: boolean }) => {
      const any = openRegistry(opts.db, { readOnly: true });
      if (any.mapping === NAME_MAPPING_ID) {
        try {
          const h = any.store.head();
          const c = any.store.config;
          if (opts.json) process.stdout.write(JSON.stringify({ root: formatRoot(h.root), batch: h.batch, records: h.records, live: h.live, deleted: h.deleted, mapping: NAME_MAPPING_ID, depth: c.depth, leafMaxFields: c.leafMaxFields }) + "\n");
          else process.stdout.write(`root ${digestText(h.root)}\nbatch ${h.batch}, ${h.live} live, ${h.deleted} deleted, mapping ${NAME_MAPPING_ID} (name-keyed), depth ${c.depth}, leaf bound ${c.leafMaxFields}\n`);
        } finally {
          await any.store.close();
        }
        setExit(EXIT_OK);
        return;
      }
      const store = any.store;
      try {
        const h = store.head();
        const c = store.config;
        if (opts.json) process.stdout.write(JSON.stringify({ root: formatRoot(h.root), batch: h.batch, nextSlot: h.nextSlot, live: h.live, deleted: h.deleted, depth: c.depth, leafMaxFields: c.leafMaxFields }) + "\n");
        else process.stdout.write(`root ${digestText(h.root)}\nbatch ${h.batch}, ${h.live} live, ${h.deleted} deleted, next slot ${h.nextSlot}, depth ${c.depth}, leaf bound ${c.leafMaxFields}\n`);
      } finally {
        await store.close();
      }
      setExit(EXIT_OK);
    });
}
