/** What a block proof is made of (block-dir.ts, the block provers): its roots and its updates with their witnesses. */
import type { Digest } from "../hash/digest.js";
import type { UpdateRecord } from "../smt/tree.js";
import type { BlockUpdate } from "./name-block.js";

/**
 * A block to prove: its roots and, per update, the update as block.json lists it (a restore with
 * the value it restored) and the values its proof needs (old and new leaf, siblings, roots).
 */
export interface ProvableBlock {
  readonly fromRoot: Digest;
  readonly toRoot: Digest;
  readonly updates: readonly { readonly listed: BlockUpdate; readonly record: UpdateRecord }[];
}
