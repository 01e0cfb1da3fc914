/**
 * The `ssgkr registry verify` command line that checks a proof about a name, as `registry prove`
 * and the demo print it (shell words quoted where needed).
 */
import { formatRoot } from "../../../registry/root.js";
import { DEFAULT_NAME_DEPTH } from "../../../registry/name-key.js";
import type { NameSide } from "../../../registry/verify-record.js";

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
export function verifyCommand(o: { name: string; request?: string; proof: string; depth: number; leafMaxFields: number } & ({ side: NameSide; root: ArrayLike<number> } | { old: NameSide; new: NameSide; oldRoot: ArrayLike<number>; newRoot: ArrayLike<number> })): string {
  const cfg = `${o.depth !== DEFAULT_NAME_DEPTH ? ` --depth ${o.depth}` : ""}${o.leafMaxFields !== 31 ? ` --leaf-max-fields ${o.leafMaxFields}` : ""}`;
  const files = `${o.request !== undefined ? `--request ${shellWord(o.request)} ` : ""}--proof ${shellWord(o.proof)}`;
  if ("side" in o) return `ssgkr registry verify --name ${shellWord(o.name)} ${valueFlags(o.side)} --root ${formatRoot(o.root)}${cfg} ${files}`;
  return `ssgkr registry verify --name ${shellWord(o.name)} ${valueFlags(o.old, "old-")} ${valueFlags(o.new, "new-")} --old-root ${formatRoot(o.oldRoot)} --new-root ${formatRoot(o.newRoot)}${cfg} ${files}`;
}
