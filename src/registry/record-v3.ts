/**
 * Profile v3 proofs about one name (docs/registry.md "Proofs about a name in profile v3",
 * docs/profile-v3.md §9): one operation proved as an inner-proof-v3 aggregate of n = 1, checked
 * from the statement alone (the root or roots, the name, what is claimed about it), with no
 * request and no path:
 *
 * | statement | public | private |
 * |---|---|---|
 * | membership | root, key (from the name), leaf (from the name and the value) | the 48 siblings |
 * | non-membership | root, key | the siblings, and whether the leaf is Empty or a Tombstone |
 * | update | old and new root, key, new leaf (a Tombstone for a delete), the old leaf's rule | the siblings, the old value |
 *
 * The old leaf's rule follows the operation: insert → `empty`, restore → `tombstone`, replace and
 * delete → `record` (a record of this name, its value private). A claim that the name was absent
 * before accepts either `empty` or `tombstone`, whichever the proof was made for; a claim of the
 * old value itself cannot be checked against a v3 update proof (the value is not part of its
 * statement), and is rejected with `STATEMENT_MISMATCH`: claim `{ record: true }` instead.
 */
import type { Digest } from "../hash/digest.js";
import { TOMBSTONE, type Leaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import type { V3OldLeafRule, V3Statement } from "../smt/v3/statement.js";
import { OpKind } from "../statement/types.js";
import { type PreparedV3, type V3Verdict, prepareV3, proveAggregateV3, verifyAggregateV3 } from "../sync/v3/index.js";
import type { WhirRandomSource } from "../pcs/index.js";
import { nameIdentity, recordLeaf, type RecordValue } from "./mapping.js";
import { nameKeyBig } from "./name-key.js";
import type { NameUpdateKind } from "./name-operations.js";

/** The state of a name on the old side of an update claim: a value, absent, or a record of the name whatever its value. */
export type V3NameSide = { readonly value: RecordValue } | { readonly absent: true } | { readonly record: true };

const prepared = new Map<string, PreparedV3>();

/**
 * The prepared v3 circuit of an operation kind and registry configuration, prepared once per
 * process (a membership circuit at depth 48 takes about a second).
 * @throws CompileError `UNSUPPORTED_CONFIG` for a configuration profile v3 does not support.
 */
export function preparedV3Of(kind: OpKind, depth: number, leafMaxFields: number): PreparedV3 {
  const key = `${kind}/${depth}/${leafMaxFields}`;
  let p = prepared.get(key);
  if (!p) prepared.set(key, (p = prepareV3(kind, { depth, leafMaxFields })));
  return p;
}

/** The rule an update's old leaf obeys, by the update's kind (insert: Empty; restore: Tombstone; replace and delete: a record of the name). */
export function updateOldLeafRule(kind: NameUpdateKind, name: string): V3OldLeafRule {
  if (kind === "insert") return { rule: "empty" };
  if (kind === "restore") return { rule: "tombstone" };
  return { rule: "record", identity: nameIdentity(name) };
}

/** Options of `proveRecordV3`. */
export interface RecordV3ProveOptions {
  /** The zero-knowledge mode v3-zk (docs/profile-v3.md §11): inner-proof-v3zk bytes, checked by the same verifier. */
  readonly zk?: boolean;
  /** v3-zk only: where the proof's randomness comes from (reproducible tests only; default: the system's CSPRNG). */
  readonly random?: WhirRandomSource;
}

/**
 * The inner-proof-v3 bytes of one registry operation (an aggregate of one); with `zk: true` the
 * inner-proof-v3zk bytes of the zero-knowledge mode.
 * @param rule an update's old-leaf rule (`updateOldLeafRule`); ignored for reads.
 * @throws SyncError `WITNESS` when the request's witness cannot be laid out, `ZK_UNSUPPORTED`
 *   (v3-zk) for a configuration without room for its masks; PcsError for a set it cannot use.
 */
export function proveRecordV3(
  request: OpRequest,
  depth: number,
  leafMaxFields: number,
  rule?: V3OldLeafRule,
  options: RecordV3ProveOptions = {},
): Uint8Array {
  const p = preparedV3Of(request.operation.kind, depth, leafMaxFields);
  return proveAggregateV3(p, [request], {
    ...(rule === undefined ? {} : { rules: [rule] }),
    ...(options.zk === true ? { zk: true } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
  });
}

/** The v3 statement of a read claim: membership of `value`, or non-membership when `value` is undefined. @throws RegistryError `BAD_NAME`, `BAD_VALUE`, `VALUE_TOO_LARGE`. */
export function readStatementV3(
  name: string,
  value: RecordValue | undefined,
  root: Digest,
  depth: number,
  leafMaxFields: number,
): V3Statement {
  const key = nameKeyBig(name, depth);
  if (value === undefined) return { kind: OpKind.NonMembership, root, key };
  return { kind: OpKind.Membership, root, key, leaf: recordLeaf(name, value, leafMaxFields) };
}

/**
 * The candidate v3 statements of an update claim, in the order they are tried: one, or two for
 * an old side `absent` (Empty, then Tombstone). The new side `absent` is a delete (a Tombstone).
 * @throws RegistryError `BAD_NAME`, `BAD_VALUE`, `VALUE_TOO_LARGE`.
 */
export function updateStatementsV3(
  name: string,
  old: V3NameSide,
  neu: { readonly value: RecordValue } | { readonly absent: true },
  oldRoot: Digest,
  newRoot: Digest,
  depth: number,
  leafMaxFields: number,
): V3Statement[] {
  const key = nameKeyBig(name, depth);
  const newLeaf: Leaf = "value" in neu ? recordLeaf(name, neu.value, leafMaxFields) : TOMBSTONE;
  const rules: V3OldLeafRule[] =
    "absent" in old ? [{ rule: "empty" }, { rule: "tombstone" }] : [{ rule: "record", identity: nameIdentity(name) }];
  return rules.map((oldLeaf) => ({ kind: OpKind.Update, oldRoot, newRoot, key, newLeaf, oldLeaf }));
}

/**
 * Verifies a v3 proof of one operation against the candidate statements: the first whose
 * statement check matches the proof is verified (a proof made for none of them is rejected with
 * the first candidate's `PUBLIC_INPUTS_MISMATCH`). Never throws on malformed proof bytes.
 */
export function verifyRecordStatementsV3(
  candidates: readonly V3Statement[],
  proof: Uint8Array,
  depth: number,
  leafMaxFields: number,
): V3Verdict {
  const p = preparedV3Of(candidates[0]!.kind, depth, leafMaxFields);
  let first: V3Verdict | undefined;
  for (const st of candidates) {
    const v = verifyAggregateV3(p, [st], proof);
    if (v.ok || v.code !== "PUBLIC_INPUTS_MISMATCH") return v;
    first ??= v;
  }
  return first!;
}
