/**
 * `ssgkr registry get --db DIR (--name N | --slot S) [--json]`: the record, leaf and path status
 * of a name (name-keyed registries: by name only) or slot, and whether the path recomputes the root.
 */
import type { Command } from "commander";
import { EXIT_OK } from "../../exit.js";
import { RegistryStore } from "../../../registry/store/store.js";
import { NameStore } from "../../../registry/store/name-store.js";
import { registryMapping } from "../../../registry/store/open-any.js";
import { RecordState } from "../../../registry/store/record-codec.js";
import { resolveTarget } from "../../../registry/operations.js";
import { describeValue } from "../../../registry/mapping.js";
import { formatRoot } from "../../../registry/root.js";
import { NAME_MAPPING_ID } from "../../../registry/name-key.js";
import { describeLeaf, hashLeaf, LeafTag } from "../../../smt/leaf.js";
import { computeRoot } from "../../../smt/path.js";
import { digestEquals } from "../../../hash/digest.js";
import { nameOnly, targetOf } from "./options.js";
import { digestText, leafJson, nameNoticeJson, nameNoticeLine, valueJson } from "./output.js";

/** Registers `registry get`. */
export function registerGet(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("get")
    .description("show the record, leaf and path status of a name or slot")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--name <name>", "record name")
    .option("--slot <s>", "slot number")
    .option("--json", "print JSON")
    .action(async (opts: { db: string; name?: string; slot?: string; json?: boolean }) => {
      if (registryMapping(opts.db) === NAME_MAPPING_ID) {
        const name = nameOnly("get", opts);
        const named = NameStore.open(opts.db, { readOnly: true });
        try {
          nameGet(named, name, opts.json === true);
        } finally {
          await named.close();
        }
        setExit(EXIT_OK);
        return;
      }
      const target = targetOf("get", opts);
      const store = RegistryStore.open(opts.db, { readOnly: true });
      try {
        const slot = resolveTarget(store, target).slot;
        const state = store.slotState(slot);
        const leafDigest = hashLeaf(state.leaf, store.config.leafMaxFields);
        const verified = digestEquals(computeRoot(state.leaf, BigInt(slot), state.siblings, store.config.depth, store.config.leafMaxFields), state.head.root);
        const status = state.leaf.tag === LeafTag.Occupied ? "live" : state.leaf.tag === LeafTag.Tombstone ? "deleted" : "never used";
        if (opts.json) {
          process.stdout.write(
            JSON.stringify({
              slot,
              status,
              name: state.record?.name ?? null,
              value: state.record ? valueJson(state.record.value) : null,
              leaf: leafJson(state.leaf),
              leafDigest: Array.from(leafDigest),
              siblings: state.siblings.map((s) => Array.from(s)),
              root: formatRoot(state.head.root),
              batch: state.head.batch,
              pathVerified: verified,
              ...("name" in target ? nameNoticeJson(target.name) : {}),
            }) + "\n",
          );
        } else {
          const lines = [`slot ${slot}: ${status}${state.record?.state === RecordState.Deleted ? " (Tombstone leaf)" : ""}`];
          if (state.record) lines.push(`name ${JSON.stringify(state.record.name)}`, `value ${describeValue(state.record.value)}`);
          lines.push(`leaf ${describeLeaf(state.leaf)}`, `leaf digest ${digestText(leafDigest)}`, `root ${digestText(state.head.root)} (batch ${state.head.batch})`, `path ${verified ? "recomputes the root" : "DOES NOT recompute the root"}`);
          process.stdout.write(lines.join("\n") + "\n" + ("name" in target ? nameNoticeLine(target.name) : ""));
        }
      } finally {
        await store.close();
      }
      setExit(EXIT_OK);
    });
}

/** `registry get` of a name-keyed registry: the name's key, record, leaf and path. */
function nameGet(store: NameStore, name: string, json: boolean): void {
  const s = store.nameState(name);
  const B = store.config.leafMaxFields;
  const leafDigest = hashLeaf(s.leaf, B);
  const verified = digestEquals(computeRoot(s.leaf, BigInt(s.key), s.path.siblings, store.config.depth, B), s.head.root);
  const status = s.other ? `key held by another name (${JSON.stringify(s.other.name)})` : s.record === undefined ? "never registered" : s.record.state === RecordState.Live ? "live" : "deleted";
  if (json) {
    process.stdout.write(JSON.stringify({ name, key: s.key, status, value: s.record && s.record.state === RecordState.Live ? valueJson(s.record.value) : null, ...(s.other ? { other: s.other.name } : {}), leafTag: s.leaf.tag, leafDigest: Array.from(leafDigest), siblings: s.path.siblings.map((x) => Array.from(x)), root: formatRoot(s.head.root), batch: s.head.batch, pathVerified: verified, ...nameNoticeJson(name) }) + "\n");
    return;
  }
  const lines = [`name ${JSON.stringify(name)}: ${status}`, `key ${s.key} (first ${store.config.depth} bits of Keccak-256 of the name)`];
  if (s.record) lines.push(`value ${describeValue(s.record.value)}${s.record.state === RecordState.Deleted ? " (last value; Tombstone leaf)" : ""}`);
  lines.push(`leaf ${describeLeaf(s.leaf)}`, `leaf digest ${digestText(leafDigest)}`, `root ${digestText(s.head.root)} (batch ${s.head.batch})`, `path ${verified ? "recomputes the root" : "DOES NOT recompute the root"}`);
  process.stdout.write(lines.join("\n") + "\n" + nameNoticeLine(name));
}
