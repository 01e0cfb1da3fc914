/**
 * The implementation of `ssgkr registry prove`, defined in registry-prove.ts, which imports this file only when the command runs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../exit.js";
import { prepareOutDir, removeCreated } from "../io.js";
import { CliError } from "../errors.js";
import {
  proveStatement,
  REGISTRY_STATEMENTS,
  type RegistryProof,
  type RegistryStatement,
} from "../../registry/prove.js";
import { requestToJson } from "../../sync/request.js";
import { RegistryStore } from "../../registry/store/store.js";
import { parseRoot } from "../../registry/root.js";
import { RegistryError } from "../../registry/errors.js";
import { formatRoot } from "../../registry/root.js";
import { NameStore } from "../../registry/store/name-store.js";
import { registryMapping } from "../../registry/store/open-any.js";
import { NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../registry/name-key.js";
import { nameNoticeLine, nameProve } from "./registry-names.js";
import { nameOnly, targetOf, valueOf } from "./registry-args.js";
import { digestText } from "./registry-print.js";

/** The action of `ssgkr registry prove`, with what commander parsed (defined in registry-prove.ts). */
export async function runProveCommand(
  setExit: (code: number) => void,
  statement: string,
  opts: {
    db: string;
    name?: string;
    slot?: string;
    value?: string;
    null?: boolean;
    fields?: string;
    root?: string;
    profile?: string;
    zk?: boolean;
    out: string;
  },
): Promise<void> {
  if (!(REGISTRY_STATEMENTS as readonly string[]).includes(statement)) {
    throw new CliError(
      "BAD_ARGUMENT",
      `registry prove: unknown statement ${JSON.stringify(statement)} (${REGISTRY_STATEMENTS.join(", ")})`,
    );
  }
  const st = statement as RegistryStatement;
  const isUpdate = st !== "membership" && st !== "nonmembership";
  const value = isUpdate
    ? valueOf(st === "insert" || st === "replace" ? "insert" : st === "restore" ? "restore" : "delete", opts)
    : undefined;
  if (!isUpdate && (opts.value !== undefined || opts.null || opts.fields !== undefined))
    throw new CliError("USAGE", `registry prove ${st}: takes no value`);
  if (st === "insert" && opts.name === undefined)
    throw new CliError("MISSING_OPTION", "registry prove insert: --name is required");
  const zk = opts.zk === true;
  const profile = opts.profile ?? (zk ? "v3" : "v1");
  if (profile !== "v1" && profile !== "v3")
    throw new CliError("BAD_OPTION", `--profile must be v1 or v3, got ${JSON.stringify(opts.profile)}`, undefined, {
      option: "--profile",
    });
  if (zk && profile !== "v3")
    throw new CliError(
      "BAD_OPTION",
      `--zk: a zero-knowledge proof is a profile v3 proof (v3-zk); it cannot be made with --profile ${profile}`,
      undefined,
      { option: "--zk" },
    );
  const root = opts.root === undefined ? undefined : parseRoot(opts.root, "--root");
  if (root !== undefined && isUpdate)
    throw new CliError(
      "USAGE",
      `registry prove ${st}: --root applies to membership and nonmembership (an update starts at the head)`,
    );
  if (registryMapping(opts.db) === NAME_MAPPING_ID) {
    const name = nameOnly(`prove ${st}`, opts);
    const named = NameStore.open(opts.db, { readOnly: !isUpdate });
    let created: string[] = [];
    try {
      created = prepareOutDir(opts.out);
      nameProve(named, st, name, value, opts.out, root, profile, zk);
    } catch (e) {
      removeCreated(created);
      throw e;
    } finally {
      await named.close();
    }
    setExit(EXIT_OK);
    return;
  }
  if (root !== undefined)
    throw new CliError(
      "USAGE",
      `registry prove ${st}: --root applies to name-keyed registries (a slot-v1 registry proves at its head)`,
    );
  if (profile !== "v1" || zk)
    throw new CliError(
      "USAGE",
      `registry prove ${st}: ${zk ? "--zk" : `--profile ${profile}`} applies to name-keyed registries (a slot-v1 registry proves in compat-v1)`,
    );
  const target = st === "insert" ? { name: opts.name! } : targetOf(`prove ${st}`, opts);
  const store = RegistryStore.open(opts.db, { readOnly: !isUpdate });
  let p: RegistryProof;
  let created: string[] = [];
  try {
    created = prepareOutDir(opts.out);
    p = proveStatement(store, st, target, value);
  } catch (e) {
    removeCreated(created);
    if (
      e instanceof RegistryError &&
      ((st === "membership" && e.code === "RECORD_ABSENT") || (st === "nonmembership" && e.code === "RECORD_LIVE"))
    ) {
      throw new CliExit(EXIT_VERDICT, `FALSE ${e.code}: ${e.message}`);
    }
    throw e;
  } finally {
    await store.close();
  }
  writeFileSync(join(opts.out, "request.json"), JSON.stringify(requestToJson(p.request), null, 2) + "\n");
  writeFileSync(join(opts.out, "proof.bin"), p.proof);
  const slotStatement = p.update
    ? {
        registry_mapping: SLOT_MAPPING_ID,
        update: st,
        slot: p.slot,
        name: p.name ?? null,
        old_root: formatRoot(p.request.oldRoot),
        new_root: formatRoot(p.request.newRoot),
      }
    : {
        registry_mapping: SLOT_MAPPING_ID,
        statement: st,
        slot: p.slot,
        name: p.name ?? null,
        root: formatRoot(p.request.oldRoot),
        note: "a slot-v1 proof is about one slot: it does not show that the name holds no other slot",
      };
  writeFileSync(join(opts.out, "statement.json"), JSON.stringify(slotStatement, null, 2) + "\n");
  const roots = p.update
    ? `old_root=${digestText(p.request.oldRoot)} new_root=${digestText(p.request.newRoot)} batch=${p.update.entry.batch}`
    : `root=${digestText(p.request.oldRoot)}`;
  process.stdout.write(
    `${st} slot=${p.slot}${p.name !== undefined ? ` name=${JSON.stringify(p.name)}` : ""} kind=${p.request.kind} depth=${p.request.depth} bytes=${p.proof.length} prove_ms=${p.proveMs.toFixed(1)} ${roots}\n${"name" in target ? nameNoticeLine(target.name) : ""}`,
  );
  setExit(EXIT_OK);
}
