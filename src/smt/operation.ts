/**
 * Operations, witnesses and requests of the sparse-Merkle frontend (compat-v1 §6.4).
 *
 * A request is (operation, witness = {leaf, siblings}, public inputs). Update covers insert
 * (Empty → Occupied), replace, delete (→ Tombstone) and restore (Tombstone → Occupied).
 */
import type { Digest } from "../hash/digest.js";
import { OpKind, type PublicInputs } from "../statement/types.js";
import type { Leaf, OccupiedLeaf } from "./leaf.js";

/** Membership{key, payload}: the slot holds this Occupied leaf. value_digest = h_leaf(leaf). */
export interface MembershipOp {
  readonly kind: OpKind.Membership;
  /** u64 slot index. */
  readonly key: bigint;
  readonly leaf: OccupiedLeaf;
}

/** NonMembership{key}: the slot is Empty or a Tombstone. */
export interface NonMembershipOp {
  readonly kind: OpKind.NonMembership;
  readonly key: bigint;
}

/** Update{key, old_leaf, new_leaf}: old_root holds old_leaf, new_root holds new_leaf at the same path. */
export interface UpdateOp {
  readonly kind: OpKind.Update;
  readonly key: bigint;
  readonly oldLeaf: Leaf;
  readonly newLeaf: Leaf;
}

/** A statement about the tree (compat-v1 §6.3): membership of a leaf, non-membership of a key, or an update from an old leaf to a new one. */
export type Operation = MembershipOp | NonMembershipOp | UpdateOp;

/** The prover's private witness: the leaf at the key and its path (siblings[0] leaf-adjacent). */
export interface Witness {
  readonly leaf: Leaf;
  /** `depth` digests of 8 canonical elements, leaf level first. */
  readonly siblings: readonly Digest[];
}

/** One request: what is claimed (operation, public inputs) and how (witness). */
export interface OpRequest {
  readonly operation: Operation;
  readonly witness: Witness;
  readonly publicInputs: PublicInputs;
}

/** Primary leaf of §9.2: the witness leaf, except for Update where it is the operation's old_leaf. */
export function primaryLeaf(request: OpRequest): Leaf {
  return request.operation.kind === OpKind.Update ? request.operation.oldLeaf : request.witness.leaf;
}
