/**
 * The bound on one profile v3 block proof at a depth with a WHIR parameter set (the commitment's
 * bound), and how a batch of more updates is cut into parts (docs/registry.md "Block proofs").
 */
import { DEFAULT_WHIR_SET, maxVariables, whirParameterSet } from "../pcs/params.js";
import { DEFAULT_LEAF_MAX_FIELDS } from "../smt/leaf.js";
import { v3Layout } from "../smt/v3/layout.js";
import { OpKind } from "../statement/types.js";
import { RegistryError } from "./errors.js";
import { MAX_BLOCK_UPDATES } from "./block-limits.js";

/**
 * The most updates one profile v3 block proof holds at `depth` with the WHIR parameter set `set`:
 * K updates commit to m = ⌈log2 K⌉ + s − 1 variables (s the input bits of the v3 update circuit
 * at this depth and leaf bound, docs/profile-v3.md §4), and a set commits to at most
 * `maxVariables(set)` (its first codeword fits KoalaBear's subgroup of order 2^24), so K ≤
 * 2^(maxVariables − s + 1), and never more than `MAX_BLOCK_UPDATES`. A batch of more updates is
 * proved in parts of at most this size (`blockParts`).
 *
 * | depth | `cb100-r4-s3` (the default, ρ = 1/4) | `cb100-r2-s3` (ρ = 1/2) |
 * |---|---|---|
 * | 1–37 | 4,096 | 4,096 |
 * | 38–64 (48, the name-keyed registry's default) | 2,048 | 4,096 |
 *
 * @param depth the registry's depth (1..64).
 * @param set a WHIR parameter set id (default `DEFAULT_WHIR_SET`, what the registry's provers use).
 * @param leafMaxFields the registry's leaf bound B (default `DEFAULT_LEAF_MAX_FIELDS`).
 * @returns an integer in [1, 4096].
 * @throws PcsError `PCS_UNKNOWN_SET`; RegistryError `BAD_BLOCK` when not even one update fits.
 * @example maxBlockUpdates(48) // 2048
 */
export function maxBlockUpdates(
  depth: number,
  set: string = DEFAULT_WHIR_SET,
  leafMaxFields: number = DEFAULT_LEAF_MAX_FIELDS,
): number {
  const key = `${depth}/${set}/${leafMaxFields}`;
  const known = limits.get(key);
  if (known !== undefined) return known;
  const s = v3Layout(OpKind.Update, depth, leafMaxFields).inputBits;
  const copyBits = maxVariables(whirParameterSet(set)) - (s - 1);
  if (copyBits < 0)
    throw new RegistryError(
      "BAD_BLOCK",
      `set ${set} commits to at most ${maxVariables(whirParameterSet(set))} variables; one update at depth ${depth} needs ${s - 1}`,
      { depth },
    );
  const k = Math.min(MAX_BLOCK_UPDATES, 2 ** Math.min(copyBits, 12));
  limits.set(key, k);
  return k;
}

const limits = new Map<string, number>();

/**
 * How a batch of `updates` updates is cut into block proofs of at most `perPart` updates each:
 * ⌈updates / perPart⌉ parts (0 for a batch that changed nothing), part p holding the updates
 * [p·perPart, min((p + 1)·perPart, updates)) of the batch's change log, in order.
 * @example blockParts(4200, 2048) // 3
 */
export function blockParts(updates: number, perPart: number): number {
  return Math.ceil(updates / perPart);
}
