/**
 * The dummy operation that pads a partial aggregate to a power of two (docs/profile-v2.md §10.2):
 * key 0, all siblings zero digests; Membership of Occupied{sync [], identity 32 × 0x00};
 * NonMembership of Empty; Update Empty → Occupied{sync [], identity 32 × 0x00}. Roots by
 * compute_root, value_digest = h_leaf of the (new) leaf. Its encoding has 10 fields, so it fits
 * every leaf bound B ≥ 10.
 */
import { OpKind, opKindTag } from "../../statement/types.js";
import type { SyncConfig } from "../config.js";
import { EMPTY, hashLeaf, occupied } from "../leaf.js";
import type { OpRequest } from "../operation.js";
import { computeRoot } from "../path.js";

/** The dummy request of a kind and configuration (deterministic). */
export function dummyRequest(kind: OpKind, config: SyncConfig): OpRequest {
  const siblings = Array.from({ length: config.depth }, () => new Uint32Array(8));
  const full = occupied([], new Uint8Array(32));
  const B = config.leafMaxFields;
  const d = config.depth;
  if (kind === OpKind.Membership) {
    const root = computeRoot(full, 0n, siblings, d, B);
    return {
      operation: { kind, key: 0n, leaf: full },
      witness: { leaf: full, siblings },
      publicInputs: {
        oldRoot: root,
        newRoot: root.slice(),
        opKindTag: opKindTag(kind),
        assetId: 0n,
        valueDigest: hashLeaf(full, B),
      },
    };
  }
  if (kind === OpKind.NonMembership) {
    const root = computeRoot(EMPTY, 0n, siblings, d, B);
    return {
      operation: { kind, key: 0n },
      witness: { leaf: EMPTY, siblings },
      publicInputs: {
        oldRoot: root,
        newRoot: root.slice(),
        opKindTag: opKindTag(kind),
        assetId: 0n,
        valueDigest: hashLeaf(EMPTY, B),
      },
    };
  }
  const oldRoot = computeRoot(EMPTY, 0n, siblings, d, B);
  const newRoot = computeRoot(full, 0n, siblings, d, B);
  return {
    operation: { kind: OpKind.Update, key: 0n, oldLeaf: EMPTY, newLeaf: full },
    witness: { leaf: EMPTY, siblings },
    publicInputs: { oldRoot, newRoot, opKindTag: opKindTag(kind), assetId: 0n, valueDigest: hashLeaf(full, B) },
  };
}
