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
import {
  proveRecordV3,
  readStatementV3,
  updateOldLeafRule,
  updateStatementsV3,
  verifyRecordStatementsV3,
} from "./record-v3.js";
import type { RegistryStatement } from "./prove.js";
import type { WhirRandomSource } from "../pcs/index.js";

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

/** The proof profile of a statement about a name: compat-v1 (checked with its request) or v3 (checked from the statement alone, record-v3.ts). */
export type NameProofProfile = "v1" | "v3";

/** Options of `proveNameStatement`. */
export interface NameProveOptions {
  /** `"v1"` (default; `"v3"` when `zk` is set): an inner-proof-v1 proof checked with its request; `"v3"`: an inner-proof-v3 proof checked from the statement alone. */
  readonly profile?: NameProofProfile;
  /**
   * The zero-knowledge mode of profile v3, v3-zk (docs/profile-v3.md §11): an inner-proof-v3zk
   * proof, checked from the statement alone by the same calls, whose bytes reveal nothing about
   * the path (siblings, the old value of an update) beyond the statement. Implies profile v3;
   * with `profile: "v1"` it is `BAD_PROFILE`.
   */
  readonly zk?: boolean;
  /** v3-zk only: where the proof's randomness comes from (reproducible tests only; default: the system's CSPRNG). */
  readonly random?: WhirRandomSource;
}

/**
 * A proof about a name in a name-keyed registry: the statement, the name and its key (the first
 * `depth` bits of Keccak-256), the request (the witness: the counterparty needs it for a v1 proof
 * only; a v3 proof is checked without it, and it is not handed out) and the proof bytes.
 */
export interface NameProof {
  readonly statement: RegistryStatement;
  readonly name: string;
  readonly key: number;
  readonly profile: NameProofProfile;
  /** True for a proof in the zero-knowledge mode v3-zk (profile v3, inner-proof-v3zk bytes). */
  readonly zk: boolean;
  readonly request: SyncRequest;
  /** inner-proof-v1 bytes, or inner-proof-v3 bytes for `profile: "v3"` (inner-proof-v3zk with `zk`). */
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
export function readOnlyStatementJson(
  name: string,
  value: RecordValue | undefined,
  root: Digest,
  depth: number,
  leafMaxFields: number,
  batch?: number,
): NameStatementJson {
  return {
    registry_mapping: NAME_MAPPING_ID,
    kind: value === undefined ? "nonmembership" : "membership",
    name,
    ...sideJson(value),
    root: formatRoot(root),
    key: nameKey(name, depth),
    depth,
    leaf_max_fields: leafMaxFields,
    ...(batch !== undefined ? { batch } : {}),
  };
}

/**
 * statement.json of an update. In profile v3 the old side of a replace or delete is
 * `{record: true}`: the proof binds the record's name, not its old value (record-v3.ts).
 */
export function updateStatementJson(
  p: Pick<PlannedNameUpdate, "kind" | "name" | "oldValue" | "newValue" | "oldRoot" | "newRoot">,
  depth: number,
  leafMaxFields: number,
  batch?: number,
  profile: NameProofProfile = "v1",
): NameStatementJson {
  return {
    registry_mapping: NAME_MAPPING_ID,
    kind: "update",
    op: p.kind,
    name: p.name,
    old: profile === "v3" && (p.kind === "replace" || p.kind === "delete") ? { record: true } : sideJson(p.oldValue),
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
export function nameReadRequest(
  store: NameStore,
  statement: "membership" | "nonmembership",
  name: string,
  root?: ArrayLike<number>,
): { request: OpRequest; key: number; value: RecordValue | undefined; root: Digest } {
  const s = store.nameStateAt(name, root);
  const B = store.config.leafMaxFields;
  if (s.other !== undefined) throw collisionError(store, name, s.key, s.other.name);
  const live = s.record?.state === RecordState.Live;
  if (statement === "membership") {
    if (!live)
      throw new RegistryError(
        "RECORD_ABSENT",
        `membership needs a live record; ${JSON.stringify(name)} ${s.record ? "is deleted" : "was never registered"}`,
        { name },
      );
    return {
      key: s.key,
      value: s.record!.value,
      root: s.head.root,
      request: readOnlyRequest(OpKind.Membership, s.key, s.leaf, s.path.siblings, s.head.root, B),
    };
  }
  if (live || s.leaf.tag === LeafTag.Occupied)
    throw new RegistryError(
      "RECORD_LIVE",
      `non-membership needs a name without a live record; ${JSON.stringify(name)} is live`,
      { name },
    );
  return {
    key: s.key,
    value: undefined,
    root: s.head.root,
    request: readOnlyRequest(OpKind.NonMembership, s.key, s.leaf, s.path.siblings, s.head.root, B),
  };
}

/**
 * Proves a statement about a name. Updates are committed after their proof is made and
 * verified; if anything fails first the registry is unchanged. `root` (membership and
 * non-membership only) proves at that root of the retention window instead of the head.
 * `options.profile: "v3"` makes an inner-proof-v3 proof (an aggregate of one, record-v3.ts) that
 * the counterparty checks from the statement alone; `options.zk: true` makes it in the
 * zero-knowledge mode v3-zk (inner-proof-v3zk, checked by the same calls).
 * @throws RegistryError as `nameReadRequest` and the plan functions of name-operations.ts,
 * `PROOF_FAILED` when the statement does not hold natively or its proof does not verify,
 * `BAD_PROFILE` for a profile other than v1 or v3, or `zk` with profile v1.
 * @example
 *   const absent = proveNameStatement(store, "nonmembership", "right-pad", undefined, undefined, undefined, { zk: true });
 *   verifyRecordProof({ trustedRoot: store.head().root, name: "right-pad", absent: true }, absent.proof); // { ok: true, profile: "v3-zk", … }
 */
export function proveNameStatement(
  store: NameStore,
  statement: RegistryStatement,
  name: string,
  value?: RecordValue,
  preparedFor: (kind: OpKind) => PreparedSync = (kind) =>
    defaultPreparedCache.get(kind, { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields }),
  root?: ArrayLike<number>,
  options: NameProveOptions = {},
): NameProof {
  const { depth, leafMaxFields: B } = store.config;
  const zk = options.zk ?? false;
  if (typeof zk !== "boolean")
    throw new RegistryError("BAD_PROFILE", `options.zk: must be true or false, got ${JSON.stringify(zk)}`);
  const profile = options.profile ?? (zk ? "v3" : "v1");
  if (profile !== "v1" && profile !== "v3")
    throw new RegistryError(
      "BAD_PROFILE",
      `a proof about a name is of profile "v1" or "v3", got ${JSON.stringify(profile)}`,
    );
  if (zk && profile !== "v3")
    throw new RegistryError(
      "BAD_PROFILE",
      `options.zk: a zero-knowledge proof (v3-zk) is a profile v3 proof; it cannot be made with profile ${JSON.stringify(profile)}`,
    );
  let request: OpRequest;
  let key: number;
  let statementJson: NameStatementJson;
  let planned: PlannedNameUpdate | undefined;
  let readValue: RecordValue | undefined, readRoot: Digest | undefined;
  if (statement === "membership" || statement === "nonmembership") {
    const r = nameReadRequest(store, statement, name, root);
    readValue = r.value;
    readRoot = r.root;
    request = r.request;
    key = r.key;
    statementJson = readOnlyStatementJson(
      name,
      r.value,
      r.root,
      depth,
      B,
      (root === undefined ? store.head() : store.provableBatch(root)).batch,
    );
  } else {
    if (root !== undefined)
      throw new RegistryError(
        "PROOF_FAILED",
        `a ${statement} starts at the head; it cannot be proved at an earlier root`,
      );
    planned = planNameUpdate(store, statement as NameUpdateKind, name, value);
    request = updateRequest({ ...planned, slot: planned.key } as never, B);
    key = planned.key;
    statementJson = updateStatementJson(planned, depth, B, undefined, profile);
  }
  const verdict = checkOperation(request, { depth, leafMaxFields: B });
  if (!verdict.valid)
    throw new RegistryError(
      "PROOF_FAILED",
      `the ${statement} statement does not hold natively (${verdict.code}: ${verdict.message})`,
    );
  let proof: Uint8Array, proveMs: number;
  if (profile === "v3") {
    const rule = planned ? updateOldLeafRule(planned.kind, name) : undefined;
    const t0 = performance.now();
    proof = proveRecordV3(request, depth, B, rule, {
      zk,
      ...(options.random !== undefined ? { random: options.random } : {}),
    });
    proveMs = performance.now() - t0;
    // the counterparty's own statements, derived from the name and values (record-v3.ts)
    const statements = planned
      ? updateStatementsV3(
          name,
          planned.kind === "insert" || planned.kind === "restore" ? { absent: true } : { record: true },
          planned.newValue === undefined ? { absent: true } : { value: planned.newValue },
          planned.oldRoot,
          planned.newRoot,
          depth,
          B,
        )
      : [readStatementV3(name, readValue, readRoot!, depth, B)];
    const check = verifyRecordStatementsV3(statements, proof, depth, B);
    if (!check.ok)
      throw new RegistryError(
        "PROOF_FAILED",
        `the ${statement} proof does not verify (${check.code}: ${check.reason})`,
      );
  } else {
    const prepared = preparedFor(request.operation.kind);
    const t0 = performance.now();
    proof = encodeSyncResult(prepared, provePrepared(prepared, request));
    proveMs = performance.now() - t0;
    const check = verifyEncoded(prepared, request, proof);
    if (!check.ok)
      throw new RegistryError(
        "PROOF_FAILED",
        `the ${statement} proof does not verify (${check.code}: ${check.reason})`,
      );
  }
  const entry = planned?.commit();
  if (entry) statementJson = { ...statementJson, batch: entry.batch };
  return {
    statement,
    name,
    key,
    profile,
    zk,
    request: fromOpRequest(request, depth, B),
    proof,
    statementJson,
    ...(entry ? { entry } : {}),
    proveMs,
  };
}
