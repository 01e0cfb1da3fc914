/**
 * The implementation of `ssgkr registry get`, defined in registry-get.ts, which imports this file only when the command runs.
 */
import { EXIT_OK } from "../exit.js";
import { RegistryStore } from "../../registry/store/store.js";
import { resolveTarget } from "../../registry/operations.js";
import { describeValue } from "../../registry/mapping.js";
import { RecordState } from "../../registry/store/record-codec.js";
import { formatRoot } from "../../registry/root.js";
import { describeLeaf, hashLeaf, LeafTag } from "../../smt/leaf.js";
import { computeRoot } from "../../smt/path.js";
import { digestEquals } from "../../hash/digest.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID } from "../../registry/name-key.js";
import { nameGet, nameNoticeJson, nameNoticeLine } from "./registry-names.js";
import { nameOnly, targetOf } from "./registry-args.js";
import { digestText, valueJson, leafJson } from "./registry-print.js";

/** The action of `ssgkr registry get`, with what commander parsed (defined in registry-get.ts). */
export async function runGetCommand(
  setExit: (code: number) => void,
  opts: { db: string; name?: string; slot?: string; json?: boolean },
): Promise<void> {
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
    const verified = digestEquals(
      computeRoot(state.leaf, BigInt(slot), state.siblings, store.config.depth, store.config.leafMaxFields),
      state.head.root,
    );
    const status =
      state.leaf.tag === LeafTag.Occupied ? "live" : state.leaf.tag === LeafTag.Tombstone ? "deleted" : "never used";
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
      const lines = [
        `slot ${slot}: ${status}${state.record?.state === RecordState.Deleted ? " (Tombstone leaf)" : ""}`,
      ];
      if (state.record)
        lines.push(`name ${JSON.stringify(state.record.name)}`, `value ${describeValue(state.record.value)}`);
      lines.push(
        `leaf ${describeLeaf(state.leaf)}`,
        `leaf digest ${digestText(leafDigest)}`,
        `root ${digestText(state.head.root)} (batch ${state.head.batch})`,
        `path ${verified ? "recomputes the root" : "DOES NOT recompute the root"}`,
      );
      process.stdout.write(lines.join("\n") + "\n" + ("name" in target ? nameNoticeLine(target.name) : ""));
    }
  } finally {
    await store.close();
  }
  setExit(EXIT_OK);
}
