/**
 * The `ssgkr registry` commands on name-keyed registries (mapping record-leaf-v2): look-up,
 * update and proof output, and the `ssgkr registry verify` command line of a proof.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliExit, EXIT_VERDICT } from "../exit.js";
import { describeValue, type RecordValue } from "../../registry/mapping.js";
import { RecordState } from "../../registry/store/record-codec.js";
import { RegistryError } from "../../registry/errors.js";
import type { NameStore } from "../../registry/store/name-store.js";
import { commitNameUpdate, type NameUpdateKind } from "../../registry/name-operations.js";
import { proveNameStatement, type NameProof, type NameProofProfile } from "../../registry/name-prove.js";
import type { RegistryStatement } from "../../registry/prove.js";
import { formatRoot } from "../../registry/root.js";
import type { NameSide } from "../../registry/verify-record.js";
import { DEFAULT_NAME_DEPTH } from "../../registry/name-key.js";
import { nameNotice } from "../../registry/name-form.js";
import { requestToJson } from "../../sync/request.js";
import { describeLeaf, hashLeaf } from "../../smt/leaf.js";
import { computeRoot } from "../../smt/path.js";
import { digestEquals } from "../../hash/digest.js";

const rootText = formatRoot;
const rootCompact = formatRoot;

/** A shell word: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The value options of `registry verify` for a value, absence or (old side of a v3 update) a record. */
export function valueFlags(side: NameSide, prefix = ""): string {
  if ("absent" in side) return `--${prefix}absent`;
  if ("record" in side) return `--${prefix}record`;
  const v = side.value;
  if (v === null) return `--${prefix}null`;
  if (typeof v === "string") return `--${prefix}value ${shellWord(v)}`;
  return `--${prefix}fields ${v.fields.join(",")}`;
}

/** The `ssgkr registry verify` command line that checks a proof about a name. */
export function verifyCommand(
  o: { name: string; request?: string; proof: string; depth: number; leafMaxFields: number } & (
    | { side: NameSide; root: ArrayLike<number> }
    | { old: NameSide; new: NameSide; oldRoot: ArrayLike<number>; newRoot: ArrayLike<number> }
  ),
): string {
  const cfg = `${o.depth !== DEFAULT_NAME_DEPTH ? ` --depth ${o.depth}` : ""}${o.leafMaxFields !== 31 ? ` --leaf-max-fields ${o.leafMaxFields}` : ""}`;
  const files = `${o.request !== undefined ? `--request ${shellWord(o.request)} ` : ""}--proof ${shellWord(o.proof)}`;
  if ("side" in o)
    return `ssgkr registry verify --name ${shellWord(o.name)} ${valueFlags(o.side)} --root ${formatRoot(o.root)}${cfg} ${files}`;
  return `ssgkr registry verify --name ${shellWord(o.name)} ${valueFlags(o.old, "old-")} ${valueFlags(o.new, "new-")} --old-root ${formatRoot(o.oldRoot)} --new-root ${formatRoot(o.newRoot)}${cfg} ${files}`;
}

/** The `notice: …` line of an answer about a name that is not in Unicode NFC ("" for an NFC name). */
export function nameNoticeLine(name: string): string {
  const n = nameNotice(name);
  return n === undefined ? "" : `notice: ${n.notice}\n`;
}

/** `nfcName` and `nameNotice` of a JSON answer about a name that is not in Unicode NFC. */
export function nameNoticeJson(name: string): { nfcName?: string; nameNotice?: string } {
  const n = nameNotice(name);
  return n === undefined ? {} : { nfcName: n.nfc, nameNotice: n.notice };
}

export function nameGet(store: NameStore, name: string, json: boolean): void {
  const s = store.nameState(name);
  const B = store.config.leafMaxFields;
  const leafDigest = hashLeaf(s.leaf, B);
  const verified = digestEquals(
    computeRoot(s.leaf, BigInt(s.key), s.path.siblings, store.config.depth, B),
    s.head.root,
  );
  const status = s.other
    ? `key held by another name (${JSON.stringify(s.other.name)})`
    : s.record === undefined
      ? "never registered"
      : s.record.state === RecordState.Live
        ? "live"
        : "deleted";
  if (json) {
    process.stdout.write(
      JSON.stringify({
        name,
        key: s.key,
        status,
        value: s.record && s.record.state === RecordState.Live ? valueOut(s.record.value) : null,
        ...(s.other ? { other: s.other.name } : {}),
        leafTag: s.leaf.tag,
        leafDigest: Array.from(leafDigest),
        siblings: s.path.siblings.map((x) => Array.from(x)),
        root: formatRoot(s.head.root),
        batch: s.head.batch,
        pathVerified: verified,
        ...nameNoticeJson(name),
      }) + "\n",
    );
    return;
  }
  const lines = [
    `name ${JSON.stringify(name)}: ${status}`,
    `key ${s.key} (first ${store.config.depth} bits of Keccak-256 of the name)`,
  ];
  if (s.record)
    lines.push(
      `value ${describeValue(s.record.value)}${s.record.state === RecordState.Deleted ? " (last value; Tombstone leaf)" : ""}`,
    );
  lines.push(
    `leaf ${describeLeaf(s.leaf)}`,
    `leaf digest ${rootText(leafDigest)}`,
    `root ${rootText(s.head.root)} (batch ${s.head.batch})`,
    `path ${verified ? "recomputes the root" : "DOES NOT recompute the root"}`,
  );
  process.stdout.write(lines.join("\n") + "\n" + nameNoticeLine(name));
}

function valueOut(v: RecordValue): unknown {
  return v === null || typeof v === "string" ? v : { fields: v.fields };
}

export function nameUpdate(
  store: NameStore,
  kind: NameUpdateKind,
  name: string,
  value: RecordValue | undefined,
  json: boolean,
): void {
  // planned inside the write transaction: a server's epoch committed meanwhile is seen, never a conflict
  const { planned: p, entry } = commitNameUpdate(store, kind, name, value);
  if (json) {
    process.stdout.write(
      JSON.stringify({
        kind,
        name,
        key: p.key,
        oldLeafTag: p.oldLeaf.tag,
        newLeafTag: p.newLeaf.tag,
        oldRoot: formatRoot(p.oldRoot),
        newRoot: formatRoot(p.newRoot),
        batch: entry.batch,
      }) + "\n",
    );
    return;
  }
  process.stdout.write(
    `${kind} ${JSON.stringify(name)} at key ${p.key} (batch ${entry.batch})\n${describeLeaf(p.oldLeaf)} → ${describeLeaf(p.newLeaf)}\nold root ${rootText(p.oldRoot)}\nnew root ${rootText(p.newRoot)}\n`,
  );
}

/**
 * `registry prove` on a name-keyed registry: request.json, proof.bin, statement.json; in profile
 * v3 (and its zero-knowledge mode, `zk`) proof.bin and statement.json only (the counterparty needs
 * no request, and no file holds a sibling).
 */
export function nameProve(
  store: NameStore,
  statement: RegistryStatement,
  name: string,
  value: RecordValue | undefined,
  out: string,
  root?: ArrayLike<number>,
  profile: NameProofProfile = "v1",
  zk = false,
): void {
  let p: NameProof;
  try {
    p = proveNameStatement(store, statement, name, value, undefined, root, { profile, zk });
  } catch (e) {
    if (
      e instanceof RegistryError &&
      ((statement === "membership" && e.code === "RECORD_ABSENT") ||
        (statement === "nonmembership" && e.code === "RECORD_LIVE"))
    ) {
      throw new CliExit(EXIT_VERDICT, `FALSE ${e.code}: ${e.message}`);
    }
    throw e;
  }
  const files = {
    ...(profile === "v1" ? { request: join(out, "request.json") } : {}),
    proof: join(out, "proof.bin"),
    statement: join(out, "statement.json"),
  };
  if (files.request !== undefined)
    writeFileSync(files.request, JSON.stringify(requestToJson(p.request), null, 2) + "\n");
  else rmSync(join(out, "request.json"), { force: true }); // a request.json of an earlier v1 proof would not belong to this one
  writeFileSync(files.proof, p.proof);
  writeFileSync(files.statement, JSON.stringify(p.statementJson, null, 2) + "\n");
  const { depth, leafMaxFields } = store.config;
  const sj = p.statementJson as Record<string, unknown>;
  const side = (o: Record<string, unknown>): NameSide =>
    o.absent === true ? { absent: true } : o.record === true ? { record: true } : { value: o.value as RecordValue };
  const check = p.entry
    ? verifyCommand({
        name,
        ...files,
        depth,
        leafMaxFields,
        old: side(sj.old as Record<string, unknown>),
        new: side(sj.new as Record<string, unknown>),
        oldRoot: p.request.oldRoot,
        newRoot: p.request.newRoot,
      })
    : verifyCommand({ name, ...files, depth, leafMaxFields, side: side(sj), root: p.request.oldRoot });
  const roots = p.entry
    ? `old_root=${rootCompact(p.request.oldRoot)} new_root=${rootCompact(p.request.newRoot)} batch=${p.entry.batch}`
    : `root=${rootCompact(p.request.oldRoot)}`;
  process.stdout.write(
    `${statement} name=${JSON.stringify(name)} key=${p.key} kind=${p.request.kind} profile=${zk ? "v3-zk" : profile} depth=${depth} bytes=${p.proof.length} prove_ms=${p.proveMs.toFixed(1)} ${roots}\ncheck: ${check}\n${nameNoticeLine(name)}`,
  );
}
