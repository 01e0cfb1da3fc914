/**
 * Verifying a statement about a name in one call (the verify half of the name-statement adapter;
 * it runs unchanged in Node and in browsers). The caller gives what it believes — the trusted
 * root, the name and the value (or that the name is absent, or an update's old and new sides) —
 * and the request and proof bytes it received; the leaf is recomputed here from the name and
 * value, so no step can be forgotten.
 *
 * Checks, the first failure decides:
 * | Check | Code |
 * |---|---|
 * | the claim is well formed (name, value, root) | `BAD_CLAIM`, `BAD_ROOT` |
 * | the request parses | `REQUEST_SCHEMA` |
 * | the request is of the claimed kind (membership / non-membership / update) | `KIND_MISMATCH` |
 * | the request's (old) root is the trusted root | `ROOT_NOT_TRUSTED` |
 * | the proved leaf's identity is Keccak-256(name) | `NAME_MISMATCH` |
 * | the proved leaf's payload binds the claimed value | `VALUE_MISMATCH` |
 * | a live record is claimed only under a name in Unicode NFC (registry/name-form.ts) | `NAME_NOT_NFC` |
 * | absent: the proved leaf is Empty or Tombstone | `NOT_ABSENT` |
 * | the proof verifies against the request (compat-v1 §13.3 strict) | the verifier's code (e.g. `GKR_END_CHECK_FAILED`, `Truncated`) |
 *
 * Those checks are of slot claims (`mapping: "record-leaf-v1"`, the default of a claim that names
 * none). Under `record-leaf-v1` the tree key is the slot the registry assigned, so an absence proof
 * shows that the slot the registry names holds no live record; it does not show that the name
 * holds no other slot. The verdict says so (`scope`).
 *
 * Name-keyed claims (`mapping: "record-leaf-v2"`, what `claimOf` makes of a name-keyed statement)
 * are checked by the registry's own one-call checks, `verifyRecordProof` and
 * `verifyRecordUpdateProof` (registry/verify-record.ts; their codes, e.g. `KEY_MISMATCH`,
 * `SLOT_MAPPED_PROOF`, `RECORD_PRESENT`, `NEW_ROOT_MISMATCH`): the key is recomputed from the
 * name, so absence holds for the name wherever a slot registry might have put it.
 */
import { digestEquals, type Digest } from "../hash/digest.js";
import { SsgkrError } from "../errors.js";
import { LeafTag, type Leaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import { nameIdentity, valuePayload, type RecordValue } from "../registry/mapping.js";
import { opKindOf, type PreparedSync } from "../sync/prepared.js";
import { defaultPreparedCache } from "../sync/prepared-cache.js";
import { verifyEncoded } from "../sync/encoded.js";
import { parseRequest, type SyncRequest } from "../sync/request.js";
import { toOpRequest } from "../sync/request-convert.js";
import { OpKind, type OpKindName } from "../statement/types.js";
import { DEFAULT_LEAF_MAX_FIELDS } from "../smt/leaf.js";
import { DEFAULT_NAME_DEPTH } from "../registry/name-key.js";
import { nameNotice, nonNfcClaimReason } from "../registry/name-form.js";
import { checkedFromStatement } from "../codec/v3/message.js";
import { preparedV3Of } from "../registry/record-v3.js";
import {
  cachedPrepared,
  verifyRecordProof,
  verifyRecordUpdateProof,
  type RecordProofProfile,
  type RecordRejectCode,
  type RecordVerdict,
} from "../registry/verify-record.js";
import {
  type ClaimErrorCode,
  NAME_KEYED_MAPPING,
  formatRoot,
  parseRoot,
  type RecordClaim,
  type RecordSide,
  type UpdateClaim,
} from "./claim.js";

/** The name check's own rejection codes (the table above; meanings in docs/errors.md). */
export const NAME_REJECT_CODES = [
  "BAD_CLAIM",
  "KIND_MISMATCH",
  "ROOT_NOT_TRUSTED",
  "NAME_MISMATCH",
  "VALUE_MISMATCH",
  "NOT_ABSENT",
  "RECORD_ABSENT",
] as const;

/** A rejection code of `verifyNameStatement`: its own, the claim's (`ClaimErrorCode`), and the record and proof checks'. */
export type NameRejectCode = (typeof NAME_REJECT_CODES)[number] | ClaimErrorCode | RecordRejectCode;

/** Outcome of a name check; an accepted proof about a name not in NFC carries its NFC form and a notice (registry/name-form.ts). */
export type NameVerdict =
  | {
      readonly ok: true;
      readonly scope: string;
      /** The accepted proof's profile: compat-v1, profile v3, or its zero-knowledge mode v3-zk. */
      readonly profile: RecordProofProfile;
      readonly nfcName?: string;
      readonly nameNotice?: string;
    }
  | { readonly ok: false; readonly code: NameRejectCode; readonly reason: string };

/** What a name check spent (ms): preparing the circuit (0 when cached) and verifying. */
export interface NameCheckTimings {
  prepareMs: number;
  verifyMs: number;
}

const prepared = new Map<string, PreparedSync>();

/**
 * The prepared circuit of (kind, depth, leaf bound), taken from `defaultPreparedCache` (prepared
 * there on first use, derived wiring) and kept for the life of the thread; the name-keyed checks
 * (verify-record.ts) find it in that cache too.
 * @throws CompileError `UNSUPPORTED_CONFIG` for a configuration no circuit exists for.
 */
export function preparedFor(kind: OpKind | OpKindName, depth: number, leafMaxFields: number): PreparedSync {
  const key = `${String(opKindOf(kind))}/${depth}/${leafMaxFields}`;
  let p = prepared.get(key);
  if (!p) {
    p = defaultPreparedCache.get(kind, { depth, leafMaxFields });
    void p.wiring;
    prepared.set(key, p);
  }
  return p;
}

/** True if the prepared circuit of (kind, depth, leaf bound) is cached. */
export function isPrepared(kind: OpKind | OpKindName, depth: number, leafMaxFields: number): boolean {
  return prepared.has(`${String(opKindOf(kind))}/${depth}/${leafMaxFields}`);
}

const reject = (code: NameRejectCode, reason: string): NameVerdict => ({ ok: false, code, reason });

/** Why the leaf does not carry `side` for `name` (null when it does). */
function leafMismatch(
  leaf: Leaf,
  name: string,
  side: RecordSide,
  leafMaxFields: number,
  which: string,
): NameVerdict | null {
  if ("absent" in side) {
    if (leaf.tag === LeafTag.Occupied)
      return reject("NOT_ABSENT", `the proof shows a live record at the ${which} leaf, not an absent one`);
    return null;
  }
  if (leaf.tag !== LeafTag.Occupied)
    return reject(
      "RECORD_ABSENT",
      `the proof shows no live record at the ${which} leaf (${leaf.tag === LeafTag.Empty ? "never used" : "deleted"})`,
    );
  const identity = nameIdentity(name);
  for (let i = 0; i < 32; i++) {
    if (leaf.identity[i] !== identity[i])
      return reject(
        "NAME_MISMATCH",
        `the ${which} leaf belongs to another name (its identity is not Keccak-256(${JSON.stringify(name)}))`,
      );
  }
  if ("record" in side) return null;
  const payload = valuePayload(side.value as RecordValue, leafMaxFields);
  if (payload.length !== leaf.payload.length || payload.some((v, i) => v !== leaf.payload[i])) {
    return reject("VALUE_MISMATCH", `the ${which} leaf of ${JSON.stringify(name)} binds another value`);
  }
  return null;
}

function scopeOf(claim: RecordClaim | UpdateClaim, request: SyncRequest): string {
  if ("old" in claim) return `record-leaf-v1: the leaf of slot ${request.key} changed as claimed, and the root with it`;
  return "absent" in claim
    ? `record-leaf-v1: slot ${request.key} holds no live record; the root does not commit to names, so this does not show that the name holds no other slot`
    : "record-leaf-v1: the leaf at the proved slot carries this name and value";
}

/**
 * Checks `proofBytes` (inner-proof-v1) and `request` (a parsed request or its JSON value, compat-v1
 * §16.2 field names) against a claim about a name.
 * @param claim `{trustedRoot, name, value}` (membership), `{trustedRoot, name, absent: true}`
 *   (non-membership) or `{trustedRoot, name, old, new}` (update; trustedRoot is the old root).
 * @param timings filled with the time spent, if given.
 * @returns `{ok: true, scope}` or `{ok: false, code, reason}`; never throws on bad input.
 * @example
 *   const v = verifyNameStatement({ trustedRoot, name: "left-pad", value: "https://github.com/…" }, body.request, proof);
 */
export function verifyNameStatement(
  claim: RecordClaim | UpdateClaim,
  request: unknown,
  proofBytes: Uint8Array,
  timings?: NameCheckTimings,
): NameVerdict {
  try {
    return check(claim, request, proofBytes, timings);
  } catch (err) {
    if (err instanceof SsgkrError) return reject(err.code as NameRejectCode, err.message);
    throw err;
  }
}

function check(
  claim: RecordClaim | UpdateClaim,
  requestValue: unknown,
  proofBytes: Uint8Array,
  timings?: NameCheckTimings,
): NameVerdict {
  if (typeof claim !== "object" || claim === null || typeof claim.name !== "string")
    return reject("BAD_CLAIM", "claim: must name a record");
  if (claim.mapping === NAME_KEYED_MAPPING) return checkNameKeyed(claim, requestValue, proofBytes, timings);
  if (claim.mapping !== undefined && claim.mapping !== "record-leaf-v1")
    return reject("BAD_CLAIM", `claim.mapping: ${JSON.stringify(claim.mapping)} is not a registry mapping`);
  const trusted: Digest = parseRoot(claim.trustedRoot ?? [], "trustedRoot");
  if (!(proofBytes instanceof Uint8Array)) return reject("BAD_CLAIM", "proof: must be bytes");
  const request = isParsed(requestValue) ? requestValue : parseRequest(requestValue);
  const expected: OpKindName = "old" in claim ? "update" : "absent" in claim ? "nonmembership" : "membership";
  if (request.kind !== expected)
    return reject(
      "KIND_MISMATCH",
      `the claim is about ${expected === "update" ? "an update" : expected}, the request is a ${request.kind} request`,
    );
  if (!digestEquals(request.oldRoot, trusted))
    return reject(
      "ROOT_NOT_TRUSTED",
      `the proof is for root ${formatRoot(request.oldRoot)}, not the trusted root ${formatRoot(trusted)}`,
    );
  const live = "old" in claim ? !("absent" in claim.new) : !("absent" in claim);
  const refused = live ? nonNfcClaimReason(claim.name) : undefined;
  if (refused !== undefined) return reject("NAME_NOT_NFC", refused);
  const op: OpRequest = toOpRequest(request);
  const B = request.leafMaxFields;
  if ("old" in claim) {
    if (op.operation.kind !== OpKind.Update) return reject("KIND_MISMATCH", "not an update");
    const bad =
      leafMismatch(op.operation.oldLeaf, claim.name, claim.old, B, "old") ??
      leafMismatch(op.operation.newLeaf, claim.name, claim.new, B, "new");
    if (bad) return bad;
    if ("absent" in claim.old && "absent" in claim.new)
      return reject("BAD_CLAIM", "an update has a live record on at least one side");
  } else {
    const leaf = op.operation.kind === OpKind.Membership ? op.operation.leaf : op.witness.leaf;
    const bad = leafMismatch(
      leaf,
      claim.name,
      "absent" in claim ? { absent: true } : { value: claim.value },
      B,
      "proved",
    );
    if (bad) return bad;
  }
  const t0 = performance.now();
  const p = preparedFor(request.kind, request.depth, B);
  const t1 = performance.now();
  const verdict = verifyEncoded(p, op, proofBytes);
  const t2 = performance.now();
  if (timings) {
    timings.prepareMs = t1 - t0;
    timings.verifyMs = t2 - t1;
  }
  if (!verdict.ok) return reject(verdict.code, verdict.reason);
  const n = nameNotice(claim.name);
  return {
    ok: true,
    scope: scopeOf(claim, request),
    profile: "v1",
    ...(n ? { nfcName: n.nfc, nameNotice: n.notice } : {}),
  };
}

/** A name-keyed claim: delegated to verifyRecordProof / verifyRecordUpdateProof (the circuit is prepared first, timed apart). */
function checkNameKeyed(
  claim: RecordClaim | UpdateClaim,
  requestValue: unknown,
  proofBytes: Uint8Array,
  timings?: NameCheckTimings,
): NameVerdict {
  if (!(proofBytes instanceof Uint8Array)) return reject("BAD_CLAIM", "proof: must be bytes");
  const v3 = checkedFromStatement(proofBytes, requestValue !== undefined && requestValue !== null);
  // a profile v3 proof is checked from the statement alone: a request beside it is not read
  const request = v3 ? undefined : isParsed(requestValue) ? requestValue : parseRequest(requestValue);
  const depth = claim.depth ?? DEFAULT_NAME_DEPTH;
  const B = claim.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS;
  const facts = { depth, leafMaxFields: B };
  const t0 = performance.now();
  // only the claimed configuration is prepared: a request of another gets CONFIG_MISMATCH below
  if (v3)
    preparedV3Of(
      "old" in claim ? OpKind.Update : "absent" in claim ? OpKind.NonMembership : OpKind.Membership,
      depth,
      B,
    );
  else if (request!.depth === depth && request!.leafMaxFields === B) cachedPrepared(opKindOf(request!.kind), depth, B);
  const t1 = performance.now();
  let v: RecordVerdict;
  if ("old" in claim) {
    if (claim.newRoot === undefined)
      return reject("BAD_CLAIM", "claim.newRoot: a name-keyed update claim names the root after the update");
    v = verifyRecordUpdateProof(
      {
        ...facts,
        trustedRoot: claim.trustedRoot,
        newRoot: claim.newRoot,
        name: claim.name,
        old: claim.old,
        new: claim.new,
      },
      request,
      proofBytes,
    );
  } else {
    v = verifyRecordProof(
      "absent" in claim
        ? { ...facts, trustedRoot: claim.trustedRoot, name: claim.name, absent: true }
        : { ...facts, trustedRoot: claim.trustedRoot, name: claim.name, value: claim.value },
      request,
      proofBytes,
    );
  }
  const t2 = performance.now();
  if (timings) {
    timings.prepareMs = t1 - t0;
    timings.verifyMs = t2 - t1;
  }
  if (!v.ok) return reject(v.code, v.reason);
  const form =
    v.nfcName !== undefined && v.nameNotice !== undefined ? { nfcName: v.nfcName, nameNotice: v.nameNotice } : {};
  const where = `key ${v.key} (the first ${depth} bits of Keccak-256 of the name)`;
  const profile =
    v.profile === "v3-zk"
      ? "; profile v3-zk: checked from the statement alone, no path seen, and the proof is zero-knowledge: it reveals nothing about the path (which neighbouring subtrees are occupied) beyond the statement"
      : v3
        ? "; profile v3: checked from the statement alone, no path seen"
        : "";
  if (v.kind === "update")
    return {
      ok: true,
      profile: v.profile,
      scope: `record-leaf-v2: the record of the name at its ${where} changed as claimed${"old" in claim && "record" in claim.old ? " (from a record of the name whose value the proof does not state)" : ""}, and the root with it${profile}`,
      ...form,
    };
  return {
    ok: true,
    profile: v.profile,
    ...form,
    scope:
      (v.kind === "nonmembership"
        ? `record-leaf-v2: the root commits to names; the name's only place, its ${where}, holds no live record, so the name is not registered`
        : `record-leaf-v2: the root commits to names; the name's only place, its ${where}, holds this name and value`) +
      profile,
  };
}

function isParsed(v: unknown): v is SyncRequest {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as SyncRequest).oldRoot instanceof Uint32Array &&
    typeof (v as SyncRequest).key === "bigint"
  );
}
