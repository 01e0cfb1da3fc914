/**
 * `ssgkr registry prove <membership|nonmembership|insert|replace|delete|restore> --db DIR (--name N | --slot S) [--value V | --null | --fields LIST] [--root R] [--profile v1|v3] --out DIR`:
 * proves a registry statement (updates are committed) and writes request.json, proof.bin and
 * statement.json (profile v3: proof.bin and statement.json only), then prints the
 * `registry verify` line that checks it. A false membership or non-membership exits 1 (`FALSE CODE: …`).
 */
import type { Command } from "commander";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliExit, EXIT_OK, EXIT_VERDICT } from "../../exit.js";
import { CliError } from "../../errors.js";
import { proveStatement, REGISTRY_STATEMENTS, type RegistryProof, type RegistryStatement } from "../../../registry/prove.js";
import { proveNameStatement, type NameProof, type NameProofProfile } from "../../../registry/name-prove.js";
import { requestToJson } from "../../../sync/request.js";
import { RegistryStore } from "../../../registry/store/store.js";
import { NameStore } from "../../../registry/store/name-store.js";
import { registryMapping } from "../../../registry/store/open-any.js";
import { parseRoot, formatRoot } from "../../../registry/root.js";
import type { RecordValue } from "../../../registry/mapping.js";
import type { NameSide } from "../../../registry/verify-record.js";
import { RegistryError } from "../../../registry/errors.js";
import { NAME_MAPPING_ID, SLOT_MAPPING_ID } from "../../../registry/name-key.js";
import { nameOnly, targetOf, valueOf } from "./options.js";
import { digestText, nameNoticeLine } from "./output.js";
import { verifyCommand } from "./verify-command.js";

/** Registers `registry prove`. */
export function registerProve(registry: Command, setExit: (code: number) => void): void {
  registry
    .command("prove")
    .description("prove a registry statement; insert/replace/delete/restore also commit the update (writes request.json, proof.bin and statement.json)")
    .argument("<statement>", "membership | nonmembership | insert | replace | delete | restore")
    .requiredOption("--db <dir>", "registry database directory")
    .option("--name <name>", "record name")
    .option("--slot <s>", "slot number")
    .option("--value <text>", "new text value (insert, replace, restore)")
    .option("--null", "the null value")
    .option("--fields <list>", "comma-separated field elements")
    .option("--root <digest>", "membership/nonmembership of a name-keyed registry: prove at this earlier root of the retention window (default: the head)")
    .option("--profile <p>", "name-keyed: v1 (compat-v1, checked with request.json; the default) or v3 (checked from statement.json alone: no request.json is written)", "v1")
    .requiredOption("--out <dir>", "output directory (request.json, proof.bin, statement.json)")
    .action(async (statement: string, opts: { db: string; name?: string; slot?: string; value?: string; null?: boolean; fields?: string; root?: string; profile: string; out: string }) => {
      if (!(REGISTRY_STATEMENTS as readonly string[]).includes(statement)) {
        throw new CliError("BAD_ARGUMENT", `registry prove: unknown statement ${JSON.stringify(statement)} (${REGISTRY_STATEMENTS.join(", ")})`);
      }
      const st = statement as RegistryStatement;
      const isUpdate = st !== "membership" && st !== "nonmembership";
      const value = isUpdate ? valueOf(st === "insert" || st === "replace" ? "insert" : st === "restore" ? "restore" : "delete", opts) : undefined;
      if (!isUpdate && (opts.value !== undefined || opts.null || opts.fields !== undefined)) throw new CliError("USAGE", `registry prove ${st}: takes no value`);
      if (st === "insert" && opts.name === undefined) throw new CliError("MISSING_OPTION", "registry prove insert: --name is required");
      if (opts.profile !== "v1" && opts.profile !== "v3") throw new CliError("BAD_OPTION", `--profile must be v1 or v3, got ${JSON.stringify(opts.profile)}`, undefined, { option: "--profile" });
      const root = opts.root === undefined ? undefined : parseRoot(opts.root, "--root");
      if (root !== undefined && isUpdate) throw new CliError("USAGE", `registry prove ${st}: --root applies to membership and nonmembership (an update starts at the head)`);
      if (registryMapping(opts.db) === NAME_MAPPING_ID) {
        const name = nameOnly(`prove ${st}`, opts);
        const named = NameStore.open(opts.db, { readOnly: !isUpdate });
        try {
          nameProve(named, st, name, value, opts.out, root, opts.profile);
        } finally {
          await named.close();
        }
        setExit(EXIT_OK);
        return;
      }
      if (root !== undefined) throw new CliError("USAGE", `registry prove ${st}: --root applies to name-keyed registries (a slot-v1 registry proves at its head)`);
      if (opts.profile !== "v1") throw new CliError("USAGE", `registry prove ${st}: --profile ${opts.profile} applies to name-keyed registries (a slot-v1 registry proves in compat-v1)`);
      const target = st === "insert" ? { name: opts.name! } : targetOf(`prove ${st}`, opts);
      const store = RegistryStore.open(opts.db, { readOnly: !isUpdate });
      let p: RegistryProof;
      try {
        p = proveStatement(store, st, target, value);
      } catch (e) {
        if (e instanceof RegistryError && ((st === "membership" && e.code === "RECORD_ABSENT") || (st === "nonmembership" && e.code === "RECORD_LIVE"))) {
          throw new CliExit(EXIT_VERDICT, `FALSE ${e.code}: ${e.message}`);
        }
        throw e;
      } finally {
        await store.close();
      }
      mkdirSync(opts.out, { recursive: true });
      writeFileSync(join(opts.out, "request.json"), JSON.stringify(requestToJson(p.request), null, 2) + "\n");
      writeFileSync(join(opts.out, "proof.bin"), p.proof);
      const slotStatement = p.update
        ? { registry_mapping: SLOT_MAPPING_ID, update: st, slot: p.slot, name: p.name ?? null, old_root: formatRoot(p.request.oldRoot), new_root: formatRoot(p.request.newRoot) }
        : { registry_mapping: SLOT_MAPPING_ID, statement: st, slot: p.slot, name: p.name ?? null, root: formatRoot(p.request.oldRoot), note: "a slot-v1 proof is about one slot: it does not show that the name holds no other slot" };
      writeFileSync(join(opts.out, "statement.json"), JSON.stringify(slotStatement, null, 2) + "\n");
      const roots = p.update ? `old_root=${digestText(p.request.oldRoot)} new_root=${digestText(p.request.newRoot)} batch=${p.update.entry.batch}` : `root=${digestText(p.request.oldRoot)}`;
      process.stdout.write(`${st} slot=${p.slot}${p.name !== undefined ? ` name=${JSON.stringify(p.name)}` : ""} kind=${p.request.kind} depth=${p.request.depth} bytes=${p.proof.length} prove_ms=${p.proveMs.toFixed(1)} ${roots}\n${"name" in target ? nameNoticeLine(target.name) : ""}`);
      setExit(EXIT_OK);
    });
}

/**
 * `registry prove` on a name-keyed registry: request.json, proof.bin, statement.json; in profile
 * v3 proof.bin and statement.json only (the counterparty needs no request, and no file holds a
 * sibling).
 */
function nameProve(store: NameStore, statement: RegistryStatement, name: string, value: RecordValue | undefined, out: string, root?: ArrayLike<number>, profile: NameProofProfile = "v1"): void {
  let p: NameProof;
  try {
    p = proveNameStatement(store, statement, name, value, undefined, root, { profile });
  } catch (e) {
    if (e instanceof RegistryError && ((statement === "membership" && e.code === "RECORD_ABSENT") || (statement === "nonmembership" && e.code === "RECORD_LIVE"))) {
      throw new CliExit(EXIT_VERDICT, `FALSE ${e.code}: ${e.message}`);
    }
    throw e;
  }
  mkdirSync(out, { recursive: true });
  const files = { ...(profile === "v1" ? { request: join(out, "request.json") } : {}), proof: join(out, "proof.bin"), statement: join(out, "statement.json") };
  if (files.request !== undefined) writeFileSync(files.request, JSON.stringify(requestToJson(p.request), null, 2) + "\n");
  else rmSync(join(out, "request.json"), { force: true }); // a request.json of an earlier v1 proof would not belong to this one
  writeFileSync(files.proof, p.proof);
  writeFileSync(files.statement, JSON.stringify(p.statementJson, null, 2) + "\n");
  const { depth, leafMaxFields } = store.config;
  const sj = p.statementJson as Record<string, unknown>;
  const side = (o: Record<string, unknown>): NameSide => (o.absent === true ? { absent: true } : o.record === true ? { record: true } : { value: o.value as RecordValue });
  const check = p.entry
    ? verifyCommand({ name, ...files, depth, leafMaxFields, old: side(sj.old as Record<string, unknown>), new: side(sj.new as Record<string, unknown>), oldRoot: p.request.oldRoot, newRoot: p.request.newRoot })
    : verifyCommand({ name, ...files, depth, leafMaxFields, side: side(sj), root: p.request.oldRoot });
  const roots = p.entry ? `old_root=${digestText(p.request.oldRoot)} new_root=${digestText(p.request.newRoot)} batch=${p.entry.batch}` : `root=${digestText(p.request.oldRoot)}`;
  process.stdout.write(`${statement} name=${JSON.stringify(name)} key=${p.key} kind=${p.request.kind} profile=${profile} depth=${depth} bytes=${p.proof.length} prove_ms=${p.proveMs.toFixed(1)} ${roots}\ncheck: ${check}\n${nameNoticeLine(name)}`);
}
