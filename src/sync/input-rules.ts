/**
 * The leaf rules of a request (old_leaf, new_leaf) — the one function that the request files of
 * the CLI and library (`toOpRequest`) and the proof server's jobs (`requestFromInput`, compat-v1
 * §16.2 rule 3) apply:
 *
 * | kind | rule | JSON path |
 * |---|---|---|
 * | membership | old_leaf is Occupied (tag 1) | `$.old_leaf.tag` |
 * | nonmembership | old_leaf is Empty (0) or Tombstone (2) | `$.old_leaf.tag` |
 * | membership, nonmembership | new_leaf equals old_leaf (tag, payload, identity; a read-only operation repeats the witness leaf) | `$.new_leaf` |
 * | update | none (old_leaf → new_leaf is the update) | |
 *
 * Equality is structural on the parsed values (identity compared as bytes, whatever its JSON form).
 */
import type { OpKindName } from "../statement/types.js";

/** A leaf as a request or job carries it: tag 0 Empty, 1 Occupied, 2 Tombstone. */
export interface LeafFields {
  readonly tag: number;
  readonly payload: ArrayLike<number>;
  readonly identity: ArrayLike<number>;
}

/** Which rule failed. */
export type LeafRule = "membership-leaf-occupied" | "absence-leaf-absent" | "read-only-leaves-equal";

/** A failed rule: its name, the JSON path of the offending field and a message naming the rule. */
export interface LeafRuleViolation {
  readonly rule: LeafRule;
  readonly path: "$.old_leaf.tag" | "$.new_leaf";
  readonly message: string;
}

function sameValues(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Structural equality of two leaves (tag, payload values in order, identity bytes). */
export function leafFieldsEqual(a: LeafFields, b: LeafFields): boolean {
  return a.tag === b.tag && sameValues(a.payload, b.payload) && sameValues(a.identity, b.identity);
}

/**
 * Checks the leaf rules of the table above, in its order; null when they hold.
 * Never throws.
 */
export function checkLeafRules(kind: OpKindName, oldLeaf: LeafFields, newLeaf: LeafFields): LeafRuleViolation | null {
  if (kind === "update") return null;
  if (kind === "membership" && oldLeaf.tag !== 1) {
    return {
      rule: "membership-leaf-occupied",
      path: "$.old_leaf.tag",
      message: `a membership proves an Occupied leaf: old_leaf.tag must be 1, got ${String(oldLeaf.tag)}`,
    };
  }
  if (kind === "nonmembership" && oldLeaf.tag !== 0 && oldLeaf.tag !== 2) {
    return {
      rule: "absence-leaf-absent",
      path: "$.old_leaf.tag",
      message: `a non-membership proves an absent slot: old_leaf.tag must be 0 (Empty) or 2 (Tombstone), got ${String(oldLeaf.tag)}`,
    };
  }
  if (!leafFieldsEqual(oldLeaf, newLeaf)) {
    return {
      rule: "read-only-leaves-equal",
      path: "$.new_leaf",
      message: `a ${kind} changes nothing: new_leaf must equal old_leaf (same tag, payload and identity)`,
    };
  }
  return null;
}
