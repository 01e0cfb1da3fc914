/**
 * How the `ssgkr registry` subcommands print what they share: digests (64 hex characters),
 * durations, record values and leaves as JSON, and the notice of a name not in Unicode NFC.
 */
import { formatRoot } from "../../../registry/root.js";
import { nameNotice } from "../../../registry/name-form.js";
import type { RecordValue } from "../../../registry/mapping.js";
import { LeafTag, type Leaf } from "../../../smt/leaf.js";

/** A digest as the CLI prints it: its 32 bytes in hex (`formatRoot`). */
export const digestText = formatRoot;

/** A duration in milliseconds as seconds with one decimal, e.g. `1.5 s`. */
export function ms(x: number): string {
  return `${(x / 1000).toFixed(1)} s`;
}

/** A record value as JSON: the text, null, or `{ fields }`. */
export function valueJson(v: RecordValue): unknown {
  return v === null || typeof v === "string" ? v : { fields: v.fields };
}

/** A leaf as JSON: tag, payload and identity in hex (zeros for an Empty or Tombstone leaf). */
export function leafJson(leaf: Leaf): unknown {
  if (leaf.tag !== LeafTag.Occupied) return { tag: leaf.tag, payload: [], identity: "00".repeat(32) };
  return { tag: leaf.tag, payload: Array.from(leaf.payload), identity: Buffer.from(leaf.identity).toString("hex") };
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
