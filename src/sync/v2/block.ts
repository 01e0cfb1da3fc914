/**
 * Block proofs of profile v2 (docs/profile-v2.md §11): K updates that take a registry from root
 * R_A to root R_B, in order, as one aggregate of Update operations. Besides the aggregate's checks
 * the verifier checks the chain: the first update's old root is R_A, each update's new root is the
 * next one's old root, and the last new root is R_B.
 */
import type { Digest } from "../../hash/digest.js";
import { digestEquals } from "../../hash/digest.js";
import type { OpRequest } from "../../smt/operation.js";
import type { UpdateRecord } from "../../smt/tree.js";
import { hashLeaf } from "../../smt/leaf.js";
import type { SyncConfig } from "../../smt/config.js";
import { SyncError } from "../../statement/errors.js";
import { OpKind, opKindTag } from "../../statement/types.js";
import { type AggregateTimings, type AggregateVerdict, proveAggregate, verifyAggregate } from "./aggregate.js";
import { type PreparedV2, prepareV2 } from "./prepared.js";
import type { V2RejectCode } from "./verify.js";

/** The Update request of one tree mutation (`SparseMerkleTree.insert/replace/delete/restore`). */
export function updateRequestOf(record: UpdateRecord, leafMaxFields = 31): OpRequest {
  return {
    operation: { kind: OpKind.Update, key: record.key, oldLeaf: record.oldLeaf, newLeaf: record.newLeaf },
    witness: { leaf: record.oldLeaf, siblings: record.siblings },
    publicInputs: {
      oldRoot: record.oldRoot,
      newRoot: record.newRoot,
      opKindTag: opKindTag(OpKind.Update),
      assetId: record.key,
      valueDigest: hashLeaf(record.newLeaf, leafMaxFields),
    },
  };
}

/** The first break of the chain R_A → … → R_B, or null. */
function chainBreak(
  roots: { fromRoot: Digest; toRoot: Digest },
  updates: readonly OpRequest[],
): { code: V2RejectCode; reason: string; operation?: number } | null {
  if (!digestEquals(updates[0]!.publicInputs.oldRoot, roots.fromRoot))
    return {
      code: "FROM_ROOT_MISMATCH",
      reason: "the first update's old root is not the block's from-root",
      operation: 0,
    };
  for (let j = 0; j + 1 < updates.length; j++) {
    if (!digestEquals(updates[j]!.publicInputs.newRoot, updates[j + 1]!.publicInputs.oldRoot)) {
      return {
        code: "CHAIN_BROKEN",
        reason: `update ${j + 1}'s old root is not update ${j}'s new root`,
        operation: j + 1,
      };
    }
  }
  if (!digestEquals(updates[updates.length - 1]!.publicInputs.newRoot, roots.toRoot))
    return {
      code: "TO_ROOT_MISMATCH",
      reason: "the last update's new root is not the block's to-root",
      operation: updates.length - 1,
    };
  return null;
}

/**
 * Proves a block: `updates` (1..4096 Update requests, in order, chained) in one aggregate.
 * @param onTimings receives the time per phase (as `proveAggregate`).
 * @throws SyncError `BAD_BLOCK{operation}` when the updates are not chained or not all Updates; the errors of `proveAggregate`.
 */
export function proveBlock(
  prepared: PreparedV2,
  updates: readonly OpRequest[],
  onTimings?: (t: AggregateTimings) => void,
): Uint8Array {
  if (prepared.kind !== OpKind.Update)
    throw new SyncError("BAD_BLOCK", "a block is proved with a circuit prepared for updates");
  if (!Array.isArray(updates) || updates.length === 0)
    throw new SyncError("BAD_BLOCK", "a block holds at least one update");
  const bad = chainBreak(
    { fromRoot: updates[0]!.publicInputs.oldRoot, toRoot: updates[updates.length - 1]!.publicInputs.newRoot },
    updates,
  );
  if (bad) throw new SyncError("BAD_BLOCK", bad.reason, { operation: bad.operation });
  return proveAggregate(prepared, updates, onTimings);
}

/** Options of `verifyBlock`: the prepared update circuit, or the configuration to prepare it from. */
export interface VerifyBlockOptions {
  /** A circuit prepared for updates (default: prepared here from `config`). */
  readonly prepared?: PreparedV2;
  /** depth and leaf bound when `prepared` is not given (defaults 24, 31). */
  readonly config?: Partial<SyncConfig>;
}

/**
 * Verifies that the registry went from `fromRoot` to `toRoot` by exactly `updates`, in order:
 * `EMPTY_BLOCK`; `FROM_ROOT_MISMATCH`, `CHAIN_BROKEN`, `TO_ROOT_MISMATCH` (naming the operation);
 * then every code of `verifyAggregate`.
 * @example
 *   verifyBlock({ fromRoot, toRoot }, updates, bytes, { config: { depth: 24 } }); // { ok: true }
 */
export function verifyBlock(
  roots: { fromRoot: Digest; toRoot: Digest },
  updates: readonly OpRequest[],
  bytes: Uint8Array,
  options: VerifyBlockOptions = {},
): AggregateVerdict {
  if (!Array.isArray(updates) || updates.length === 0)
    return { ok: false, code: "EMPTY_BLOCK", reason: "a block holds at least one update" };
  const prepared = options.prepared ?? prepareV2(OpKind.Update, options.config ?? {});
  if (prepared.kind !== OpKind.Update)
    return { ok: false, code: "WRONG_KIND", reason: "a block is verified with a circuit prepared for updates" };
  try {
    const bad = chainBreak(roots, updates);
    if (bad) return { ok: false, ...bad };
  } catch (e) {
    return { ok: false, code: "MALFORMED_REQUEST", reason: `malformed block: ${(e as Error).message}` };
  }
  return verifyAggregate(prepared, updates, bytes);
}
