/**
 * The implementation of `ssgkr registry root`, defined in registry-root.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { CliError } from "../errors.js";
import { formatRoot } from "../../registry/root.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { digestText } from "./registry-print.js";
import { readOnlyRegistry } from "./registry-read.js";

/** The action of `ssgkr registry root`, with what commander parsed (defined in registry-root.ts). */
export async function runRootCommand(
  setExit: (code: number) => void,
  opts: { db: string; json?: boolean; hex?: boolean },
): Promise<void> {
  if (opts.json && opts.hex)
    throw new CliError("BAD_OPTION", "--json and --hex exclude each other", undefined, { option: "--hex" });
  await readOnlyRegistry(opts.db, (any) => {
    const h = any.store.head();
    const c = any.store.config;
    const named = any.mapping === NAME_MAPPING_ID;
    const nextSlot = "nextSlot" in h ? h.nextSlot : undefined;
    if (opts.hex) process.stdout.write(`${formatRoot(h.root)}\n`);
    else if (opts.json)
      process.stdout.write(
        JSON.stringify(
          named
            ? {
                root: formatRoot(h.root),
                batch: h.batch,
                records: (h as { records: number }).records,
                live: h.live,
                deleted: h.deleted,
                mapping: NAME_MAPPING_ID,
                depth: c.depth,
                leafMaxFields: c.leafMaxFields,
              }
            : {
                root: formatRoot(h.root),
                batch: h.batch,
                nextSlot,
                live: h.live,
                deleted: h.deleted,
                depth: c.depth,
                leafMaxFields: c.leafMaxFields,
              },
        ) + "\n",
      );
    else
      process.stdout.write(
        `root ${digestText(h.root)}\nbatch ${h.batch}, ${h.live} live, ${h.deleted} deleted, ${named ? `mapping ${NAME_MAPPING_ID} (name-keyed)` : `next slot ${nextSlot}`}, depth ${c.depth}, leaf bound ${c.leafMaxFields}\n`,
      );
  });
  setExit(EXIT_OK);
}
