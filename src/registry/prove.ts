/**
 * Registry statements as compat-v1 requests, and their proofs (src/sync): membership of a live
 * record, non-membership of a slot (never used or deleted), and the four update forms, which
 * are proved from the plan and committed once the proof is made and checked.
 */
import { LeafTag } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import { checkOperation } from "../smt/semantics.js";
import { OpKind } from "../statement/types.js";
import { prepare, type PreparedSync } from "../sync/prepared.js";
import { provePrepared } from "../sync/prove.js";
import { encodeSyncResult, verifyEncoded } from "../sync/encoded.js";
import { fromOpRequest } from "../sync/request-convert.js";
import type { SyncRequest } from "../sync/request.js";
import { RegistryError } from "./errors.js";
import type { RecordValue } from "./mapping.js";
import {
  planDelete,
  planInsert,
  planReplace,
  planRestore,
  resolveTarget,
  type PlannedUpdate,
  type RecordTarget,
  type UpdateResult,
} from "./operations.js";
import type { RegistryStore } from "./store/store.js";
import { readOnlyRequest, updateRequest } from "./requests.js";

/** What a registry proof states: a record is held (membership) or absent (nonmembership), or an update happened (insert, replace, delete, restore). */
export type RegistryStatement = "membership" | "nonmembership" | "insert" | "replace" | "delete" | "restore";

/** Every `RegistryStatement`, in the order of docs/registry.md. */
export const REGISTRY_STATEMENTS: readonly RegistryStatement[] = [
  "membership",
  "nonmembership",
  "insert",
  "replace",
  "delete",
  "restore",
];

/** A proof about a slot of a slot-mapped registry: the statement, the slot and name, the request JSON and the inner-proof-v1 bytes. */
export interface RegistryProof {
  readonly statement: RegistryStatement;
  readonly slot: number;
  /** The record's name (undefined for a never-used slot). */
  readonly name: string | undefined;
  /** The request (compat-v1 §16.2 field names through `requestToJson`). */
  readonly request: SyncRequest;
  /** inner-proof-v1 bytes. */
  readonly proof: Uint8Array;
  /** The committed update of an update statement. */
  readonly update?: UpdateResult;
  /** Proving time (ms), circuit preparation excluded. */
  readonly proveMs: number;
}

/** The request of a membership or non-membership statement at one slot (read from one snapshot). */
function readRequest(
  store: RegistryStore,
  statement: "membership" | "nonmembership",
  target: RecordTarget,
): { request: OpRequest; slot: number; name: string | undefined } {
  const { slot } = resolveTarget(store, target);
  const s = store.slotState(slot);
  const B = store.config.leafMaxFields;
  const where = "name" in target ? `record ${JSON.stringify(target.name)} (slot ${slot})` : `slot ${slot}`;
  if (statement === "membership") {
    if (s.leaf.tag !== LeafTag.Occupied) {
      throw new RegistryError(
        "RECORD_ABSENT",
        `membership needs a live record; ${where} ${s.leaf.tag === LeafTag.Empty ? "was never used" : "is deleted"}`,
        { slot },
      );
    }
    return {
      slot,
      name: s.record?.name,
      request: readOnlyRequest(OpKind.Membership, slot, s.leaf, s.siblings, s.head.root, B),
    };
  }
  if (s.leaf.tag === LeafTag.Occupied)
    throw new RegistryError("RECORD_LIVE", `non-membership needs a slot without a live record; ${where} is live`, {
      slot,
    });
  return {
    slot,
    name: s.record?.name,
    request: readOnlyRequest(OpKind.NonMembership, slot, s.leaf, s.siblings, s.head.root, B),
  };
}

/**
 * Proves a registry statement. Update statements are committed after their proof is made and
 * verified; if anything fails first, the registry is unchanged.
 * @param value the new value of insert/replace (required) and restore (optional: last value).
 * @param preparedFor the prepared circuit of a kind (default: prepared afresh for the registry's configuration).
 * @throws RegistryError (see operations.ts; `RECORD_ABSENT` for membership of a non-live slot,
 * `RECORD_LIVE` for non-membership of a live one, `PROOF_FAILED` if the statement does not hold
 * natively or the proof does not verify), `BAD_VALUE` when a value is missing.
 */
export function proveStatement(
  store: RegistryStore,
  statement: RegistryStatement,
  target: RecordTarget,
  value?: RecordValue,
  preparedFor: (kind: OpKind) => PreparedSync = (kind) =>
    prepare(kind, { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields }),
): RegistryProof {
  const config = { depth: store.config.depth, leafMaxFields: store.config.leafMaxFields };
  let request: OpRequest;
  let slot: number;
  let name: string | undefined;
  let planned: PlannedUpdate | undefined;
  if (statement === "membership" || statement === "nonmembership") {
    ({ request, slot, name } = readRequest(store, statement, target));
  } else {
    if ((statement === "insert" || statement === "replace") && value === undefined)
      throw new RegistryError("BAD_VALUE", `${statement} needs a value`);
    if (statement === "insert") {
      if (!("name" in target))
        throw new RegistryError("BAD_NAME", "insert takes a name (the registry assigns the slot)");
      planned = planInsert(store, target.name, value!);
    } else if (statement === "replace") planned = planReplace(store, target, value!);
    else if (statement === "delete") planned = planDelete(store, target);
    else planned = planRestore(store, target, value);
    request = updateRequest(planned, config.leafMaxFields);
    slot = planned.slot;
    name = planned.name;
  }
  const verdict = checkOperation(request, config);
  if (!verdict.valid)
    throw new RegistryError(
      "PROOF_FAILED",
      `the ${statement} statement does not hold natively (${verdict.code}: ${verdict.message})`,
    );
  const prepared = preparedFor(request.operation.kind);
  const t0 = performance.now();
  const result = provePrepared(prepared, request);
  const proof = encodeSyncResult(prepared, result);
  const proveMs = performance.now() - t0;
  const check = verifyEncoded(prepared, request, proof);
  if (!check.ok)
    throw new RegistryError("PROOF_FAILED", `the ${statement} proof does not verify (${check.code}: ${check.reason})`);
  const update = planned?.commit();
  return {
    statement,
    slot,
    name,
    request: fromOpRequest(request, config.depth, config.leafMaxFields),
    proof,
    ...(update ? { update } : {}),
    proveMs,
  };
}
