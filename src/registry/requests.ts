/**
 * compat-v1 requests of registry statements: read-only requests at a slot and Update requests of
 * planned registry updates (shared by `registry prove` and the demo).
 */
import { hashLeaf, type Leaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import type { Digest } from "../hash/digest.js";
import { OpKind, opKindTag } from "../statement/types.js";
import type { PlannedUpdate } from "./operations.js";

/** A read-only request (Membership or NonMembership) for `leaf` at `slot` under `root`. */
export function readOnlyRequest(
  kind: OpKind.Membership | OpKind.NonMembership,
  slot: number,
  leaf: Leaf,
  siblings: readonly Digest[],
  root: Digest,
  leafMaxFields: number,
): OpRequest {
  const key = BigInt(slot);
  const operation = kind === OpKind.Membership ? { kind, key, leaf } : { kind, key };
  return {
    operation: operation as OpRequest["operation"],
    witness: { leaf, siblings: siblings.slice() },
    publicInputs: {
      oldRoot: root,
      newRoot: root,
      opKindTag: opKindTag(kind),
      assetId: key,
      valueDigest: hashLeaf(leaf, leafMaxFields),
    },
  };
}

/** The Update request of a planned registry update (old leaf → new leaf on the shared path). */
export function updateRequest(p: PlannedUpdate, leafMaxFields: number): OpRequest {
  const key = BigInt(p.slot);
  return {
    operation: { kind: OpKind.Update, key, oldLeaf: p.oldLeaf, newLeaf: p.newLeaf },
    witness: { leaf: p.oldLeaf, siblings: p.siblings },
    publicInputs: {
      oldRoot: p.oldRoot,
      newRoot: p.newRoot,
      opKindTag: opKindTag(OpKind.Update),
      assetId: key,
      valueDigest: hashLeaf(p.newLeaf, leafMaxFields),
    },
  };
}
