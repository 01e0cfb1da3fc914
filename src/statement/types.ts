/**
 * Statement-level types shared by the sync API and the inner-proof-v1 codec (compat-v1 §6.5, §13.3).
 */
import type { Digest } from "../hash/digest.js";
import { SyncError } from "./errors.js";

/**
 * Operation kinds by name: `OpKind.Membership === "membership"`. Their wire tags (compat-v1 §6.4:
 * 0, 1, 2) come from `opKindTag(kind)`; a plain string works wherever a kind is taken.
 */
export const OpKind = Object.freeze({
  Membership: "membership",
  NonMembership: "nonmembership",
  Update: "update",
} as const);
/** `"membership" | "nonmembership" | "update"`. */
export type OpKind = (typeof OpKind)[keyof typeof OpKind];
export declare namespace OpKind {
  type Membership = typeof OpKind.Membership;
  type NonMembership = typeof OpKind.NonMembership;
  type Update = typeof OpKind.Update;
}

/** Another name of `OpKind`. */
export type OpKindName = OpKind;

/** Kind names in tag order: `OP_KIND_NAMES[tag]` is the kind with that §6.4 tag. */
export const OP_KIND_NAMES: readonly OpKind[] = Object.freeze([OpKind.Membership, OpKind.NonMembership, OpKind.Update]);

/** The compat-v1 §6.4 tag of a kind: 0 membership, 1 non-membership, 2 update. */
export type OpKindTag = 0 | 1 | 2;

/** The §6.4 tag of `kind` (0, 1 or 2). */
export function opKindTag(kind: OpKind): OpKindTag {
  return kind === OpKind.Membership ? 0 : kind === OpKind.NonMembership ? 1 : 2;
}

/**
 * Operation kind from a name ("membership" | "nonmembership" | "update") or a compat-v1 §6.4
 * tag (0, 1, 2).
 * @throws SyncError `BAD_KIND` for anything else.
 */
export function opKindOf(kind: OpKind | OpKindTag): OpKind {
  if (typeof kind === "string") {
    if (!OP_KIND_NAMES.includes(kind))
      throw new SyncError(
        "BAD_KIND",
        `kind must be "membership", "nonmembership" or "update", got ${JSON.stringify(kind)}`,
      );
    return kind;
  }
  const named = Number.isInteger(kind) ? OP_KIND_NAMES[kind] : undefined;
  if (named === undefined) throw new SyncError("BAD_KIND", `kind tag must be 0, 1 or 2, got ${String(kind)}`);
  return named;
}

/** Public inputs in their frozen order: old_root, new_root, op_kind_tag, asset_id, value_digest. */
export interface PublicInputs {
  readonly oldRoot: Digest;
  readonly newRoot: Digest;
  /** 0 membership, 1 non-membership, 2 update. */
  readonly opKindTag: number;
  /** u64 slot index. */
  readonly assetId: bigint;
  readonly valueDigest: Digest;
}

/** circuit_identity(prepared): what an encoded proof claims about the circuit it was made for. */
export interface CircuitIdentity {
  readonly opKindTag: number;
  readonly depth: number;
  /** Always 1 in compat-v1. */
  readonly circuitVersion: number;
  /** Always 1 in compat-v1. */
  readonly leafEncodingVersion: number;
  /** u16. */
  readonly leafMaxFields: number;
  /** 0 = strategy A. */
  readonly strategyId: number;
  /** Full circuit commitment (§12), 8 elements. */
  readonly commitment: Digest;
}
