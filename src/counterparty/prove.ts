/**
 * Proving statements about names (the prove half of the name-statement adapter; Node, over a
 * registry store). Read statements resolve the name through the store's name index to its slot:
 * a live record gets a membership proof, a deleted one a non-membership proof of its slot; a name
 * that was never registered has no slot, so its absence cannot be proved under `record-leaf-v1`
 * (`NAME_NOT_FOUND`). Updates are the registry's insert / replace / delete / restore, each proved
 * from the old root to the new one and committed once the proof verifies.
 */
import { RegistryError } from "../registry/errors.js";
import type { RecordValue } from "../registry/mapping.js";
import { proveStatement, type RegistryProof, type RegistryStatement } from "../registry/prove.js";
import { resolveTarget } from "../registry/operations.js";
import { RecordState } from "../registry/record-codec.js";
import type { RegistryStore } from "../registry/store.js";
import { requestToJson } from "../sync/request.js";
import type { OpKind } from "../sync/types.js";
import { sideJson, STATEMENT_MAPPING, valueJson, type ReadStatementJson, type RecordSide, type UpdateOp, type UpdateStatementJson } from "./claim.js";
import { preparedFor } from "./verify.js";

/** A proof of a statement about a name: what it says, the request JSON and the inner-proof-v1 bytes. */
export interface NameProof<S> {
  readonly statement: S;
  readonly request: Record<string, unknown>;
  readonly proof: Uint8Array;
  /** Proving time (ms), circuit preparation excluded. */
  readonly proveMs: number;
}

function prepared(store: RegistryStore) {
  const { depth, leafMaxFields } = store.config;
  return (kind: OpKind) => preparedFor(kind, depth, leafMaxFields);
}

/**
 * The current state of a name without proving: live with its value, deleted, or unknown (undefined).
 * @throws RegistryError `BAD_NAME`.
 */
export function nameState(store: RegistryStore, name: string): { slot: number; side: RecordSide } | undefined {
  let r;
  try {
    r = resolveTarget(store, { name });
  } catch (err) {
    if (err instanceof RegistryError && err.code === "NAME_NOT_FOUND") return undefined;
    throw err;
  }
  const live = r.record !== undefined && r.record.state === RecordState.Live;
  return { slot: r.slot, side: live ? { value: r.record!.value } : { absent: true } };
}

/**
 * Proves what the registry holds for `name` at its current root: membership of a live record,
 * non-membership of a deleted one.
 * @throws RegistryError `NAME_NOT_FOUND` (never registered: not provable under record-leaf-v1), `BAD_NAME`.
 */
export function proveNameRead(store: RegistryStore, name: string): NameProof<ReadStatementJson> {
  const state = nameState(store, name);
  if (!state) {
    throw new RegistryError("NAME_NOT_FOUND", `no record named ${JSON.stringify(name)} was ever registered; under ${STATEMENT_MAPPING} the root does not commit to names, so its absence cannot be proved`, { name });
  }
  const kind: RegistryStatement = "absent" in state.side ? "nonmembership" : "membership";
  const p = proveStatement(store, kind, { name }, undefined, prepared(store));
  const root = Array.from(p.request.oldRoot);
  const statement: ReadStatementJson = {
    registry_mapping: STATEMENT_MAPPING,
    kind,
    name,
    ...("absent" in state.side ? { absent: true as const } : { value: valueJson(state.side.value) }),
    root,
    slot: p.slot,
    batch: store.head().batch,
  };
  return { statement, request: requestToJson(p.request), proof: p.proof, proveMs: p.proveMs };
}

/**
 * Performs and proves an update of `name`; the registry changes only if the proof verifies.
 * @param op insert (new name), replace (live record), delete (live record), restore (deleted
 *   record; `value` optional, default the last value).
 * @throws RegistryError `NAME_EXISTS`, `NAME_DELETED`, `NAME_NOT_FOUND`, `RECORD_ABSENT`,
 *   `RECORD_LIVE`, `BAD_VALUE`, `VALUE_TOO_LARGE`, `BAD_NAME`, `CONCURRENT_UPDATE`, `PROOF_FAILED`.
 */
export function proveNameUpdate(store: RegistryStore, op: UpdateOp, name: string, value?: RecordValue): NameProof<UpdateStatementJson> {
  const before = op === "insert" ? undefined : nameState(store, name);
  const p: RegistryProof = proveStatement(store, op, { name }, value, prepared(store));
  const after = nameState(store, name);
  const oldSide: RecordSide = before?.side ?? { absent: true };
  const newSide: RecordSide = after?.side ?? { absent: true };
  const statement: UpdateStatementJson = {
    registry_mapping: STATEMENT_MAPPING,
    kind: "update",
    op,
    name,
    old: sideJson(oldSide),
    new: sideJson(newSide),
    old_root: Array.from(p.request.oldRoot),
    new_root: Array.from(p.request.newRoot),
    slot: p.slot,
    ...(p.update ? { batch: p.update.entry.batch } : {}),
  };
  return { statement, request: requestToJson(p.request), proof: p.proof, proveMs: p.proveMs };
}
