/**
 * The implementation of `ssgkr registry history`, defined in registry-history.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { formatRoot } from "../../registry/root.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { digestText } from "./registry-print.js";
import { readOnlyRegistry } from "./registry-read.js";

/** The action of `ssgkr registry history`, with what commander parsed (defined in registry-history.ts). */
export async function runHistoryCommand(
  setExit: (code: number) => void,
  opts: { db: string; json?: boolean },
): Promise<void> {
  await readOnlyRegistry(opts.db, (any) => {
    if (any.mapping === NAME_MAPPING_ID) {
      for (const e of any.store.history()) {
        if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
        else
          process.stdout.write(
            `batch ${e.batch} ${e.committedAt} ${e.kind}${e.name !== undefined ? ` name ${JSON.stringify(e.name)}` : ""} records ${e.written} live ${e.live} deleted ${e.deleted} root ${digestText(e.root)}\n`,
          );
      }
      return;
    }
    for (const e of any.store.history()) {
      if (opts.json) process.stdout.write(JSON.stringify({ ...e, root: formatRoot(e.root) }) + "\n");
      else
        process.stdout.write(
          `batch ${e.batch} ${e.committedAt} ${e.kind}${e.slot !== undefined ? ` slot ${e.slot}` : ""} records ${e.records} live ${e.live} deleted ${e.deleted} next ${e.nextSlot} root ${digestText(e.root)}\n`,
        );
    }
  });
  setExit(EXIT_OK);
}
