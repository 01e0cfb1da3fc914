/**
 * Proofs about names in a name-keyed registry: membership (N ↦ V), non-membership (N is not
 * registered: never registered or deleted, for any name) and the four updates, each as one
 * compat-v1 request and inner-proof-v1 proof, plus the human-readable statement
 * (`statement.json`) a counterparty checks with `verifyRecordProof` / `verifyRecordUpdateProof`.
 */
import { LeafTag } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import { checkOperation } from "../smt/semantics.js";
import { OpKind } from "../statement/types.js";
import type { PreparedSync } from "../sync/prepared.js";
import { defaultPreparedCache } from "../sync/prepared-cache.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../sync/encoded.js";
import { fromOpRequest } from "../sync/request-convert.js";
import type { SyncRequest } from "../sync/request.js";
import type { Digest } from "../hash/digest.js";
import { RegistryError } from "./errors.js";
import { formatRoot } from "./root.js";
import type { RecordValue } from "./mapping.js";
import { NAME_MAPPING_ID, nameKey } from "./name-key.js";
import { RecordState } from "./store/record-codec.js";
import { planNameUpdate, collisionError, type NameUpdateKind, type PlannedNameUpdate } from "./name-operations.js";
import type { NameHistoryEntry, NameStore } from "./store/name-store.js";
import { readOnlyRequest, updateRequest } from "./requests.js";
import type { RegistryStatement } from "./prove.js";

/**
 * statement.json: what a proof about a name says, in the form of the `statement` of the HTTP API's
 * proof bodies (counterparty/claim.ts `StatementJson`), so `{statement, request, proof}` made of
 * the files is a body `POST /v1/verify` and `checkProofBody` take: a read is `{registry_mapping,
 * kind: "membership" | "nonmembership", name, value | absent: true, root, key, depth,
 * leaf_max_fields, batch}`, an update `{registry_mapping, kind: "update", op, name, old, new,
 * old_root, new_root, key, depth, leaf_max_fields, batch}` with `old`/`new` each `{value}` or
 * `{absent: true}`.
 */
export type NameStatementJson = Record<string, unknown>;

/** A proof about a name in a name-keyed registry: the statement, the name and its key (the first `depth` bits of Keccak-256), the request JSON and the inner-proof-v1 bytes. */
export interface NameProof {
  readonly statement: RegistryStatement;
  readonly name: string;
  readonly key: number;
  readonly request: SyncRequest;
  /** inner-proof-v1 bytes. */
  readonly proof: Uint8Array;
  /** statement.json contents. */
  readonly statementJson: NameStatementJson;
  /** The committed batch of an update. */
  readonly entry?: NameHistoryEntry;
  readonly proveMs: number;
}

/** JSON form of a value in statements: null, the text, or { fields }. */
export function valueJson(v: RecordValue): unknown {
  return v === null || typeof v === "string" ? v : { fields: [...v.fields] };
}

/** `{value}` or `{absent: true}`: one side of a statement. */
const sideJson = (v: RecordValue | undefined) => (v === undefined ? { absent: true } : { value: valueJson(v) });

/** statement.json of a read-only statement (membership when `value` is given, else non-membership). */
export function readOnlyStatementJson(name: string, value: RecordValue | undefined, root: Digest, depth: number, leafMaxFields: number, batch?: number): NameStatementJson {
  return { registry_mapping: NAME_MAPPING_ID, kind: value === undefined ? "nonmembership" : "membership", name, ...sideJson(value), root: formatRoot(root), key: nameKey(name, depth), depth, leaf_max_fields: leafMaxFields, ...(batch !== undefined ? { batch } : {}) };
}

/** statement.json of an update. */
export function updateStatementJson(p: Pick<PlannedNameUpdate, "kind" | "name" | "oldValue" | "newValue" | "oldRoot" | "newRoot">, depth: number, leafMaxFields: number, batch?: number): NameStatementJson {
  return {
    registry_mapping: NAME_MAPPING_ID,
    kind: "update",
    op: p.kind,
    name: p.name,
    old: sideJson(p.oldValue),
    new: sideJson(p.newValue),
    old_root: formatRoot(p.oldRoot),
    new_root: formatRoot(p.newRoot),
    key: nameKey(p.name, depth),
    depth,
    leaf_max_fields: leafMaxFields,
    ...(batch !== undefined ? { batch } : {}),
  };
}

/**
 * The membership or non-membership request of a name at the current root, or at `root` when
 * given (a root of the retention window, `NameStore.nameStateAt`), from one snapshot.
 * @throws RegistryError `RECORD_ABSENT` (membership of a name without a live record),
 * `RECORD_LIVE` (non-membership of a live one), `KEY_COLLISION` (its key holds another name),
 * `BAD_NAME`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`.
 */
export function nameReadRequest(store: NameStore, statement: "membership" | "nonmembership", name: string, root?: ArrayLike<number>): { request: OpRequest; key: number; value: RecordValue | undefined; root: Digest } {
  const s = store.nameStateAt(name, root);
  const B = store.config.leafMaxFields;
  if (s.other !== undefined) throw collisionError(store, name, s.key, s.other.name);
  const live = s.record?.state === RecordState.Live;
  if (statement === "membership") {
    if (!live) throw new RegistryError("RECORD_ABSENT", `membership needs a live record; ${JSON.stringify(name)} ${s.record ? "is deleted" : "was never registered"}`, { name });
    return { key: s.key, value: s.record!.value, root: s.head.root, request: readOnlyRequest(OpKind.Membership, s.key, s.leaf, s.path.siblings, s.head.root, B) };
  }
  if (live || s.leaf.tag === LeafTag.Occupied) throw new RegistryError("RECORD_LIVE", `non-membership needs a name without a live record; ${JSON.stringify(name)} is live`, { name });
  return { key: s.key, value: undefined, root: s.head.root, request: readOnlyRequest(OpKind.NonMembership, s.key, s.leaf, s.path.siblings, s.head.root, B) };
}

/**
 * Proves a statement about a name. Updates are committed after their proof is made and
 * verified; if anything fails first the registry is unchanged. `root` (membership and
 * non-membership only) proves at that root of the retention window instead of the head.
 * @throws RegistryError as `nameReadRequest` and the plan functions of name-operations.ts,
 * `PROOF_FAILED` when the statement does not hold natively or its proof does not verify.
 */
export function proveNameStatement(store: NameStore, statement: RegistryStatement, name: string, value?: RecordValue, preparedFor: (kind: OpKind) => PreparedSync = (kind) => defaultPreparedCache.get(kind, { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields }), root?: ArrayLike<number>): NameProof {
  const { depth, leafMaxFields: B } = store.config;
  let request: OpRequest;
  let key: number;
  let statementJson: NameStatementJson;
  let planned: PlannedNameUpdate | undefined;
  if (statement === "membership" || statement === "nonmembership") {
    const r = nameReadRequest(store, statement, name, root);
    request = r.request;
    key = r.key;
    statementJson = readOnlyStatementJson(name, r.value, r.root, depth, B, (root === undefined ? store.head() : store.provableBatch(root)).batch);
  } else {
    if (root !== undefined) throw new RegistryError("PROOF_FAILED", `a ${statement} starts at the head; it cannot be proved at an earlier root`);
    planned = planNameUpdate(store, statement as NameUpdateKind, name, value);
    request = updateRequest({ ...planned, slot: planned.key } as never, B);
    key = planned.key;
    statementJson = updateStatementJson(planned, depth, B);
  }
  const verdict = checkOperation(request, { depth, leafMaxFields: B });
  if (!verdict.valid) throw new RegistryError("PROOF_FAILED", `the ${statement} statement does not hold natively (${verdict.code}: ${verdict.message})`);
  const prepared = preparedFor(request.operation.kind);
  const t0 = performance.now();
  const proof = encodeSyncResult(prepared, provePrepared(prepared, request));
  const proveMs = performance.now() - t0;
  const check = verifyEncoded(prepared, request, proof);
  if (!check.ok) throw new RegistryError("PROOF_FAILED", `the ${statement} proof does not verify (${check.code}: ${check.reason})`);
  const entry = planned?.commit();
  if (entry) statementJson = { ...statementJson, batch: entry.batch };
  return { statement, name, key, request: fromOpRequest(request, depth, B), proof, statementJson, ...(entry ? { entry } : {}), proveMs };
}
