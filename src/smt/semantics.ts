/**
 * Native semantics oracle (compat-v1 §6.4 and §13.2 steps 2–7, plus what the circuit checks):
 * is this operation valid for these public inputs and this witness?
 *
 * The checks run in the order of §13.2 and the first failure decides the verdict:
 * 1. op_kind_tag = the operation's kind (`OP_KIND_MISMATCH`); asset_id = the operation key (`ASSET_ID_MISMATCH`).
 * 2. Kind ≠ Update ⇒ new_root = old_root (`ROOT_CHANGED`).
 * 3. depth < 64 ⇒ key < 2^depth (`KEY_OUT_OF_RANGE`).
 * 4. value_digest: Membership h_leaf(Occupied(payload)), Update h_leaf(new_leaf), NonMembership
 *    h_leaf(Empty) or h_leaf(Tombstone) (`VALUE_DIGEST_MISMATCH`; an unhashable leaf never matches
 *    and is reported as `LEAF_ENCODING`).
 * 5. NonMembership: the witness leaf is Empty or Tombstone (`WITNESS_NOT_ABSENT`).
 * 6. Update: the witness leaf equals old_leaf structurally (`WITNESS_NOT_OLD_LEAF`).
 * 7. What the circuit enforces on the §9.2 input vector: len(siblings) = depth
 *    (`PATH_LENGTH_MISMATCH`); the primary leaf (and Update's new leaf) is hashable (`LEAF_ENCODING`);
 *    the primary path root equals old_root (`OLD_ROOT_MISMATCH`); Update: the new-leaf path root
 *    equals new_root (`NEW_ROOT_MISMATCH`); read-only kinds: h_leaf(witness leaf) = value_digest
 *    (`WITNESS_DIGEST_MISMATCH`).
 * A request whose values are malformed (non-canonical elements, digests of the wrong length,
 * unknown kinds or tags, identity not 32 bytes, key not a u64 bigint) gets `MALFORMED_REQUEST`.
 */
import { SsgkrError } from "../errors.js";
import { digestEquals, digest, type Digest } from "../hash/digest.js";
import { syncConfig, type SyncConfig } from "./config.js";
import { OpKind, opKindTag } from "../statement/types.js";
import { EMPTY, TOMBSTONE, LeafTag, hashLeaf, leafEquals, type Leaf } from "./leaf.js";
import type { OpRequest } from "./operation.js";
import { checkKey, checkSiblings, computeRootFromDigest, keyInRange } from "./path.js";

/** Every rejecting verdict code of `checkStatement` (meanings in docs/errors.md). */
export const STATEMENT_REJECT_CODES = [
  "MALFORMED_REQUEST",
  "OP_KIND_MISMATCH",
  "ASSET_ID_MISMATCH",
  "ROOT_CHANGED",
  "KEY_OUT_OF_RANGE",
  "VALUE_DIGEST_MISMATCH",
  "LEAF_ENCODING",
  "WITNESS_NOT_ABSENT",
  "WITNESS_NOT_OLD_LEAF",
  "PATH_LENGTH_MISMATCH",
  "OLD_ROOT_MISMATCH",
  "NEW_ROOT_MISMATCH",
  "WITNESS_DIGEST_MISMATCH",
] as const;

/** A rejecting verdict code of `checkStatement`. */
export type StatementRejectCode = (typeof STATEMENT_REJECT_CODES)[number];

/** Stable verdict codes; `VALID` is the only accepting one. */
export type VerdictCode = "VALID" | StatementRejectCode;

/**
 * The verdict of `checkStatement`: `VALID`, or the first failing check's code. `message` is a
 * human-readable reason naming the value and the rule; `cause` (for `MALFORMED_REQUEST` and
 * `LEAF_ENCODING`) the code of the underlying error.
 */
export type Verdict =
  | { readonly valid: true; readonly code: "VALID"; readonly message: string; readonly cause?: string }
  | { readonly valid: false; readonly code: StatementRejectCode; readonly message: string; readonly cause?: string };

/** Internal control flow of the checks: the first failure, caught by `verdictOf`. */
class Reject extends Error {
  constructor(
    readonly code: StatementRejectCode,
    message: string,
    readonly causeCode?: string,
  ) {
    super(message);
  }
}

function reject(code: StatementRejectCode, message: string): never {
  throw new Reject(code, message);
}

/** h_leaf, with an encoding error turned into a `LEAF_ENCODING` rejection. */
function leafDigest(leaf: Leaf, B: number, what: string): Digest {
  try {
    return hashLeaf(leaf, B);
  } catch (err) {
    if (err instanceof SsgkrError && err.code === "LEAF_ENCODING")
      throw new Reject("LEAF_ENCODING", `${what} is unhashable: ${err.message}`, err.code);
    throw err;
  }
}

function checkRequestShape(request: OpRequest): void {
  const op = request.operation;
  if (op === null || typeof op !== "object") reject("MALFORMED_REQUEST", "request has no operation");
  if (op.kind !== OpKind.Membership && op.kind !== OpKind.NonMembership && op.kind !== OpKind.Update) {
    reject("MALFORMED_REQUEST", `operation kind must be 0, 1 or 2, got ${String((op as { kind: unknown }).kind)}`);
  }
  checkKey(op.key);
  const pub = request.publicInputs;
  if (pub === null || typeof pub !== "object") reject("MALFORMED_REQUEST", "request has no public inputs");
  digest(pub.oldRoot, "old_root");
  digest(pub.newRoot, "new_root");
  digest(pub.valueDigest, "value_digest");
  if (typeof pub.assetId !== "bigint" || pub.assetId < 0n || pub.assetId >= 1n << 64n)
    reject("MALFORMED_REQUEST", `asset_id must be a u64 bigint, got ${String(pub.assetId)}`);
  if (pub.opKindTag !== 0 && pub.opKindTag !== 1 && pub.opKindTag !== 2)
    reject("MALFORMED_REQUEST", `op_kind_tag must be 0, 1 or 2, got ${String(pub.opKindTag)}`);
  if (request.witness === null || typeof request.witness !== "object")
    reject("MALFORMED_REQUEST", "request has no witness");
  if (!Array.isArray(request.witness.siblings))
    reject("MALFORMED_REQUEST", "witness siblings must be an array of digests");
  for (const s of request.witness.siblings) digest(s, "sibling");
}

function evaluateStatement(request: OpRequest, cfg: SyncConfig): void {
  checkRequestShape(request);
  const B = cfg.leafMaxFields;
  const op = request.operation;
  const pub = request.publicInputs;
  if (pub.opKindTag !== opKindTag(op.kind))
    reject(
      "OP_KIND_MISMATCH",
      `op_kind_tag ${pub.opKindTag} differs from the operation kind ${op.kind} (tag ${opKindTag(op.kind)})`,
    );
  if (pub.assetId !== op.key)
    reject("ASSET_ID_MISMATCH", `asset_id ${pub.assetId} differs from the operation key ${op.key}`);
  if (op.kind !== OpKind.Update && !digestEquals(pub.newRoot, pub.oldRoot))
    reject("ROOT_CHANGED", "a read-only operation must have new_root = old_root");
  if (!keyInRange(op.key, cfg.depth))
    reject("KEY_OUT_OF_RANGE", `key ${op.key} is outside a tree of depth ${cfg.depth}`);

  if (op.kind === OpKind.NonMembership) {
    const ok =
      digestEquals(pub.valueDigest, leafDigest(EMPTY, B, "Empty")) ||
      digestEquals(pub.valueDigest, leafDigest(TOMBSTONE, B, "Tombstone"));
    if (!ok)
      reject("VALUE_DIGEST_MISMATCH", "value_digest of a non-membership must be h_leaf(Empty) or h_leaf(Tombstone)");
  } else {
    const claimed = op.kind === OpKind.Membership ? op.leaf : op.newLeaf;
    if (
      op.kind === OpKind.Membership &&
      (claimed === null || typeof claimed !== "object" || claimed.tag !== LeafTag.Occupied)
    ) {
      reject("MALFORMED_REQUEST", "a membership operation carries an Occupied leaf");
    }
    const what = op.kind === OpKind.Membership ? "the membership payload leaf" : "the new leaf";
    if (!digestEquals(pub.valueDigest, leafDigest(claimed, B, what)))
      reject("VALUE_DIGEST_MISMATCH", `value_digest differs from h_leaf of ${what}`);
  }

  const witnessLeaf = request.witness.leaf;
  if (
    op.kind === OpKind.NonMembership &&
    (witnessLeaf === null ||
      typeof witnessLeaf !== "object" ||
      (witnessLeaf.tag !== LeafTag.Empty && witnessLeaf.tag !== LeafTag.Tombstone))
  ) {
    reject("WITNESS_NOT_ABSENT", "a non-membership witness leaf must be Empty or Tombstone");
  }
  if (op.kind === OpKind.Update && !leafEquals(witnessLeaf, op.oldLeaf))
    reject("WITNESS_NOT_OLD_LEAF", "an update witness leaf must equal the operation's old_leaf");
}

function evaluate(request: OpRequest, cfg: SyncConfig): void {
  evaluateStatement(request, cfg);
  const B = cfg.leafMaxFields;
  const op = request.operation;
  const pub = request.publicInputs;
  const witnessLeaf = request.witness.leaf;
  if (request.witness.siblings.length !== cfg.depth) {
    reject(
      "PATH_LENGTH_MISMATCH",
      `path must have depth = ${cfg.depth} siblings, got ${request.witness.siblings.length}`,
    );
  }
  const siblings = checkSiblings(request.witness.siblings, cfg.depth);
  const primary = op.kind === OpKind.Update ? op.oldLeaf : witnessLeaf;
  const primaryDigest = leafDigest(primary, B, op.kind === OpKind.Update ? "the old leaf" : "the witness leaf");
  const newDigest = op.kind === OpKind.Update ? leafDigest(op.newLeaf, B, "the new leaf") : null;
  if (!digestEquals(computeRootFromDigest(primaryDigest, op.key, siblings), pub.oldRoot)) {
    reject("OLD_ROOT_MISMATCH", "the path root of the witness leaf differs from old_root");
  }
  if (newDigest) {
    if (!digestEquals(computeRootFromDigest(newDigest, op.key, siblings), pub.newRoot))
      reject("NEW_ROOT_MISMATCH", "the path root of the new leaf differs from new_root");
  } else if (!digestEquals(primaryDigest, pub.valueDigest)) {
    reject("WITNESS_DIGEST_MISMATCH", "h_leaf of the witness leaf differs from value_digest");
  }
}

function verdictOf(run: () => void): Verdict {
  try {
    run();
    return { valid: true, code: "VALID", message: "the operation holds for these public inputs and this witness" };
  } catch (err) {
    if (err instanceof Reject)
      return { valid: false, code: err.code, message: err.message, ...(err.causeCode ? { cause: err.causeCode } : {}) };
    if (err instanceof SsgkrError)
      return { valid: false, code: "MALFORMED_REQUEST", message: err.message, cause: err.code };
    if (err instanceof TypeError)
      return { valid: false, code: "MALFORMED_REQUEST", message: `malformed request: ${err.message}` };
    throw err;
  }
}

/**
 * The statement checks only (§13.2 steps 2–7, module comment items 1–6): what a verifier checks
 * natively before it rebuilds the input vector. Roots and paths are left to the circuit.
 * Never throws for a bad request.
 */
export function checkStatement(request: OpRequest, config: Partial<SyncConfig> = {}): Verdict {
  const cfg = syncConfig(config);
  return verdictOf(() => evaluateStatement(request, cfg));
}

/**
 * Decides whether a request is a valid operation (see the module comment for the order and codes).
 * Never throws for a bad request: malformed values give `MALFORMED_REQUEST`.
 * @param config depth, leaf bound and strategy (defaults 24, 31, A).
 * @throws CompileError `UNSUPPORTED_CONFIG` for an invalid configuration (the caller's, not the request's, fault).
 */
export function checkOperation(request: OpRequest, config: Partial<SyncConfig> = {}): Verdict {
  const cfg = syncConfig(config);
  return verdictOf(() => evaluate(request, cfg));
}
