/**
 * How the registry commands print digests, durations, values and leaves.
 */
import { type RecordValue } from "../../registry/mapping.js";
import { formatRoot } from "../../registry/root.js";
import { LeafTag, type Leaf } from "../../smt/leaf.js";

/** A digest as the CLI prints it: its 32 bytes in hex (`formatRoot`). */
export const digestText = formatRoot;

export function ms(x: number): string {
  return `${(x / 1000).toFixed(1)} s`;
}

export function valueJson(v: RecordValue): unknown {
  return v === null || typeof v === "string" ? v : { fields: v.fields };
}

export function leafJson(leaf: Leaf): unknown {
  if (leaf.tag !== LeafTag.Occupied) return { tag: leaf.tag, payload: [], identity: "00".repeat(32) };
  return { tag: leaf.tag, payload: Array.from(leaf.payload), identity: Buffer.from(leaf.identity).toString("hex") };
}
