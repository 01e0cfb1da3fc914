/**
 * Statement-level types shared by the sync API and the inner-proof-v1 codec (compat-v1 §6.5, §13.3).
 */
import type { Digest } from "../hash/digest.js";

/** Operation kind tags (compat-v1 §6.4). */
export const enum OpKind {
  Membership = 0,
  NonMembership = 1,
  Update = 2,
}

export type OpKindName = "membership" | "nonmembership" | "update";

export const OP_KIND_NAMES: readonly OpKindName[] = ["membership", "nonmembership", "update"];

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
