/**
 * `ssgkr registry insert|replace|delete|restore --db DIR (--name N | --slot S) [--value V | --null | --fields LIST] [--json]`:
 * one update of a record committed as one batch (insert: Empty → Occupied; replace: Occupied →
 * Occupied; delete: Occupied → Tombstone; restore: Tombstone → Occupied), printing the leaves and
 * roots before and after. The four are one command shape, registered once per kind.
 */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { CliError } from "../../errors.js";
import { RegistryStore } from "../../../registry/store/store.js";
import { NameStore } from "../../../registry/store/name-store.js";
import { registryMapping } from "../../../registry/store/open-any.js";
import { deleteRecord, insertRecord, replaceRecord, restoreRecord, type UpdateResult } from "../../../registry/operations.js";
import type { RecordValue } from "../../../registry/mapping.js";
import { planNameUpdate, type NameUpdateKind } from "../../../registry/name-operations.js";
import { formatRoot } from "../../../registry/root.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { describeLeaf } from "../../../smt/leaf.js";
import { nameOnly, targetOf, valueOf } from "./options.js";
import { digestText, leafJson } from "./output.js";

/** An update subcommand: the kind of its one update. */
export type UpdateCommand = "insert" | "replace" | "delete" | "restore";

/** The update subcommands, in the order `ssgkr registry --help` lists them, with their descriptions. */
export const UPDATE_COMMANDS: readonly (readonly [UpdateCommand, string])[] = [
  ["insert", "register a new record at the next free slot (Empty → Occupied)"],
  ["replace", "change the value of a live record (Occupied → Occupied)"],
  ["delete", "delete a live record (Occupied → Tombstone; the slot keeps the name)"],
  ["restore", "bring a deleted record back, with a new value or its last one (Tombstone → Occupied)"],
];

/** Registers the update subcommand `kind` (`insert`, `replace`, `delete` or `restore`). */
export function registerUpdate(registry: Command, kind: UpdateCommand, description: string, setExit: (code: number) => void): void {
  const cmd = registry.command(kind).description(description).requiredOption("--db <dir>", "registry database directory").option("--name <name>", "record name");
  if (kind !== "insert") cmd.option("--slot <s>", "slot number");
  if (kind !== "delete") cmd.option("--value <text>", "text value (e.g. a URL)").option("--null", "the null value").option("--fields <list>", "comma-separated field elements");
  cmd.option("--json", "print JSON");
  cmd.action(async (opts: { db: string; name?: string; slot?: string; value?: string; null?: boolean; fields?: string; json?: boolean }) => {
    const value = valueOf(kind, opts);
    if (kind === "insert" && opts.name === undefined) throw new CliError("MISSING_OPTION", "registry insert: --name is required");
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
      process.stdout.write(JSON.stringify({ kind: r.kind, slot: r.slot, name: r.name, oldLeaf: leafJson(r.oldLeaf), newLeaf: leafJson(r.newLeaf), oldRoot: formatRoot(r.oldRoot), newRoot: formatRoot(r.newRoot), batch: r.entry.batch }) + "\n");
    } else {
      process.stdout.write(`${r.kind} ${JSON.stringify(r.name)} at slot ${r.slot} (batch ${r.entry.batch})\n${describeLeaf(r.oldLeaf)} → ${describeLeaf(r.newLeaf)}\nold root ${digestText(r.oldRoot)}\nnew root ${digestText(r.newRoot)}\n`);
    }
    setExit(EXIT_OK);
  });
}

/** An update of a name-keyed registry, committed; prints its key, leaves and roots. */
function nameUpdate(store: NameStore, kind: NameUpdateKind, name: string, value: RecordValue | undefined, json: boolean): void {
  const p = planNameUpdate(store, kind, name, value);
  const entry = p.commit();
  if (json) {
    process.stdout.write(JSON.stringify({ kind, name, key: p.key, oldLeafTag: p.oldLeaf.tag, newLeafTag: p.newLeaf.tag, oldRoot: formatRoot(p.oldRoot), newRoot: formatRoot(p.newRoot), batch: entry.batch }) + "\n");
    return;
  }
  process.stdout.write(`${kind} ${JSON.stringify(name)} at key ${p.key} (batch ${entry.batch})\n${describeLeaf(p.oldLeaf)} → ${describeLeaf(p.newLeaf)}\nold root ${digestText(p.oldRoot)}\nnew root ${digestText(p.newRoot)}\n`);
}
