/**
 * The implementation of `ssgkr registry update` (insert, replace, delete, restore), defined in registry-update.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { CliError } from "../errors.js";
import { RegistryStore } from "../../registry/store/store.js";
import {
  deleteRecord,
  insertRecord,
  replaceRecord,
  restoreRecord,
  type UpdateResult,
} from "../../registry/operations.js";
import { formatRoot } from "../../registry/root.js";
import { describeLeaf } from "../../smt/leaf.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { nameUpdate } from "./registry-names.js";
import { nameOnly, targetOf, valueOf } from "./registry-args.js";
import { digestText, leafJson } from "./registry-print.js";

/** The action of `ssgkr registry insert|replace|delete|restore` (`kind`), with what commander parsed (defined in registry-update.ts). */
export async function runUpdateCommand(
  setExit: (code: number) => void,
  kind: "insert" | "replace" | "delete" | "restore",
  opts: { db: string; name?: string; slot?: string; value?: string; null?: boolean; fields?: string; json?: boolean },
): Promise<void> {
  const value = valueOf(kind, opts);
  if (kind === "insert" && opts.name === undefined)
    throw new CliError("MISSING_OPTION", "registry insert: --name is required");
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    const name = nameOnly(kind, opts);
    const named = NameStore.open(opts.db);
    try {
      nameUpdate(named, kind, name, value, opts.json === true);
    } finally {
      await named.close();
    }
    setExit(EXIT_OK);
    return;
  }
  const target = kind === "insert" ? { name: opts.name! } : targetOf(kind, opts);
  const store = RegistryStore.open(opts.db);
  let r: UpdateResult;
  try {
    if (kind === "insert") r = insertRecord(store, opts.name!, value!);
    else if (kind === "replace") r = replaceRecord(store, target, value!);
    else if (kind === "delete") r = deleteRecord(store, target);
    else r = restoreRecord(store, target, value);
  } finally {
    await store.close();
  }
  if (opts.json) {
    process.stdout.write(
      JSON.stringify({
        kind: r.kind,
        slot: r.slot,
        name: r.name,
        oldLeaf: leafJson(r.oldLeaf),
        newLeaf: leafJson(r.newLeaf),
        oldRoot: formatRoot(r.oldRoot),
        newRoot: formatRoot(r.newRoot),
        batch: r.entry.batch,
      }) + "\n",
    );
  } else {
    process.stdout.write(
      `${r.kind} ${JSON.stringify(r.name)} at slot ${r.slot} (batch ${r.entry.batch})\n${describeLeaf(r.oldLeaf)} → ${describeLeaf(r.newLeaf)}\nold root ${digestText(r.oldRoot)}\nnew root ${digestText(r.newRoot)}\n`,
    );
  }
  setExit(EXIT_OK);
}
