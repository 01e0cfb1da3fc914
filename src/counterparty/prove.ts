/**
 * Proving statements about names (the prove half of the name-statement adapter; Node, over a
 * registry store of either mapping).
 *
 * Name-keyed registries (`record-leaf-v2`, `NameStore`, the default): a name's key is a function
 * of the name, so every name gets a proof — membership of a live record, non-membership of any
 * other name (never registered or deleted) — through `proveNameStatement`.
 *
 * Slot registries (`record-leaf-v1`, `RegistryStore`): the name resolves through the store's name
 * index to its slot; a live record gets a membership proof, a deleted one a non-membership proof
 * of its slot, and a name that was never registered has no slot, so its absence cannot be proved
 * (`NAME_NOT_FOUND`).
 *
 * Updates are the registry's insert / replace / delete / restore, each proved from the old root to
 * the new one and committed once the proof verifies.
 */
import { RegistryError } from "../registry/errors.js";
import type { RecordValue } from "../registry/mapping.js";
import { NameStore } from "../registry/store/name-store.js";
import {
  proveNameStatement,
  type NameProof as RegistryNameProof,
  type NameProofProfile,
  type NameProveOptions,
} from "../registry/name-prove.js";
import { proveStatement, type RegistryProof, type RegistryStatement } from "../registry/prove.js";
import { resolveTarget } from "../registry/operations.js";
import { RecordState } from "../registry/store/record-codec.js";
import type { RegistryStore } from "../registry/store/store.js";
import { requestToJson } from "../sync/request.js";
import type { OpKind } from "../statement/types.js";
import {
  NAME_KEYED_MAPPING,
  SLOT_MAPPING,
  sideJson,
  valueJson,
  type ReadStatementJson,
  type RecordSide,
  type StatementMapping,
  type UpdateOp,
  type UpdateStatementJson,
} from "./claim.js";
import { preparedFor } from "./verify.js";
import { formatRoot } from "../registry/root.js";

/** A registry store of either mapping. */
export type AnyStore = RegistryStore | NameStore;

/** A name-keyed store (record-leaf-v2). */
export type NameKeyedStore = NameStore;

/** True for a name-keyed store (record-leaf-v2), false for a slot store. */
export function isNameKeyed(store: AnyStore): store is NameKeyedStore {
  return store instanceof NameStore;
}

/** The statement mapping of a store. */
export function mappingOf(store: AnyStore): StatementMapping {
  return store instanceof NameStore ? NAME_KEYED_MAPPING : SLOT_MAPPING;
}

/** What a registry holds for a name: its status, the side a read proof shows, and where it lives (slot or key). */
export interface NameStatus {
  readonly status: "live" | "deleted" | "never registered";
  readonly side: { readonly value: RecordValue } | { readonly absent: true };
  /** Slot registries: the slot of a registered name. */
  readonly slot?: number;
  /** Name-keyed registries: the name's key. */
  readonly key?: number;
}

/**
 * A proof of a statement about a name: what it says, the request JSON and the inner-proof-v1
 * bytes, or (profile v3) the inner-proof-v3 bytes alone: a v3 proof is checked from the statement
 * and its request, the witness, is not handed out.
 */
export interface NameProof<S> {
  readonly statement: S;
  readonly profile: NameProofProfile;
  /** True for a proof in the zero-knowledge mode v3-zk (profile v3, inner-proof-v3zk bytes). */
  readonly zk: boolean;
  readonly request?: Record<string, unknown>;
  readonly proof: Uint8Array;
  /** Proving time (ms), circuit preparation excluded. */
  readonly proveMs: number;
}

/** What is handed out of a name-keyed proof: the statement, the proof and (v1 only) the request. */
function handedOut<S>(p: RegistryNameProof): NameProof<S> {
  return {
    statement: p.statementJson as unknown as S,
    profile: p.profile,
    zk: p.zk,
    ...(p.profile === "v1" ? { request: requestToJson(p.request) } : {}),
    proof: p.proof,
    proveMs: p.proveMs,
  };
}

function prepared(store: AnyStore) {
  const { depth, leafMaxFields } = store.config;
  return (kind: OpKind) => preparedFor(kind, depth, leafMaxFields);
}

/**
 * The current state of a name without proving (name-keyed registries: at `root` when given, a
 * root of the retention window).
 * @throws RegistryError `BAD_NAME`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`.
 */
export function nameState(store: AnyStore, name: string, root?: ArrayLike<number>): NameStatus {
  if (store instanceof NameStore) {
    const l = root === undefined ? store.lookup(name) : store.nameStateAt(name, root);
    if (l.record === undefined) return { status: "never registered", side: { absent: true }, key: l.key };
    const live = l.record.state === RecordState.Live;
    return { status: live ? "live" : "deleted", side: live ? { value: l.record.value } : { absent: true }, key: l.key };
  }
  let r;
  try {
    r = resolveTarget(store, { name });
  } catch (err) {
    if (err instanceof RegistryError && err.code === "NAME_NOT_FOUND")
      return { status: "never registered", side: { absent: true } };
    throw err;
  }
  const live = r.record !== undefined && r.record.state === RecordState.Live;
  return {
    status: live ? "live" : "deleted",
    side: live ? { value: r.record!.value } : { absent: true },
    slot: r.slot,
  };
}

/**
 * Proves what the registry holds for `name` at its current root: membership of a live record,
 * non-membership otherwise (name-keyed: any name; slot: a deleted record's slot). Name-keyed
 * registries prove at `root` instead when given (a root of the retention window).
 * @throws RegistryError `NAME_NOT_FOUND` (slot registries: never registered, not provable under
 *   record-leaf-v1), `KEY_COLLISION` (name-keyed: its key holds another name), `BAD_NAME`,
 *   `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN` (name-keyed, `root` given).
 */
export function proveNameRead(
  store: AnyStore,
  name: string,
  root?: ArrayLike<number>,
  options: NameProveOptions = {},
): NameProof<ReadStatementJson> {
  if (!(store instanceof NameStore) && ((options.profile ?? "v1") !== "v1" || options.zk === true))
    throw new RegistryError("BAD_PROFILE", `a ${SLOT_MAPPING} registry proves in compat-v1 only`, {});
  if (root !== undefined && !(store instanceof NameStore))
    throw new RegistryError("ROOT_NOT_PROVABLE", `a ${SLOT_MAPPING} registry proves at its head only`, {});
  const state = nameState(store, name, root);
  const kind = "absent" in state.side ? "nonmembership" : "membership";
  if (store instanceof NameStore) {
    // statement.json's form is the API's statement (registry/name-prove.ts), at the root proved
    const p = proveNameStatement(store, kind, name, undefined, prepared(store), root, options);
    return handedOut(p);
  }
  if (state.status === "never registered") {
    throw new RegistryError(
      "NAME_NOT_FOUND",
      `no record named ${JSON.stringify(name)} was ever registered; under ${SLOT_MAPPING} the root does not commit to names, so its absence cannot be proved`,
      { name },
    );
  }
  const p = proveStatement(store, kind, { name }, undefined, prepared(store));
  const statement: ReadStatementJson = {
    registry_mapping: SLOT_MAPPING,
    kind,
    name,
    ...("absent" in state.side ? { absent: true as const } : { value: valueJson(state.side.value) }),
    root: formatRoot(p.request.oldRoot),
    slot: p.slot,
    batch: store.head().batch,
  };
  return { statement, profile: "v1", zk: false, request: requestToJson(p.request), proof: p.proof, proveMs: p.proveMs };
}

/**
 * Performs and proves an update of `name`; the registry changes only if the proof verifies.
 * @param op insert (new name), replace (live record), delete (live record), restore (deleted
 *   record; `value` optional, default the last value).
 * @throws RegistryError `NAME_EXISTS`, `NAME_DELETED`, `NAME_NOT_FOUND` (slot registries),
 *   `RECORD_ABSENT`, `RECORD_LIVE`, `NOT_DELETED`, `KEY_COLLISION` (name-keyed), `BAD_VALUE`,
 *   `VALUE_TOO_LARGE`, `BAD_NAME`, `CONCURRENT_UPDATE`, `PROOF_FAILED`.
 */
export function proveNameUpdate(
  store: AnyStore,
  op: UpdateOp,
  name: string,
  value?: RecordValue,
  options: NameProveOptions = {},
): NameProof<UpdateStatementJson> {
  if (store instanceof NameStore) {
    const p = proveNameStatement(store, op, name, value, prepared(store), undefined, options);
    return handedOut(p);
  }
  if ((options.profile ?? "v1") !== "v1" || options.zk === true)
    throw new RegistryError("BAD_PROFILE", `a ${SLOT_MAPPING} registry proves in compat-v1 only`, {});
  const before = op === "insert" ? undefined : nameState(store, name);
  const p: RegistryProof = proveStatement(store, op as RegistryStatement, { name }, value, prepared(store));
  const after = nameState(store, name);
  const oldSide: RecordSide = before?.side ?? { absent: true };
  const newSide: RecordSide = after.side;
  const statement: UpdateStatementJson = {
    registry_mapping: SLOT_MAPPING,
    kind: "update",
    op,
    name,
    old: sideJson(oldSide),
    new: "value" in newSide ? { value: valueJson(newSide.value) } : { absent: true },
    old_root: formatRoot(p.request.oldRoot),
    new_root: formatRoot(p.request.newRoot),
    slot: p.slot,
    ...(p.update ? { batch: p.update.entry.batch } : {}),
  };
  return { statement, profile: "v1", zk: false, request: requestToJson(p.request), proof: p.proof, proveMs: p.proveMs };
}
