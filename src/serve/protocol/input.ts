/**
 * `Job.input` ↔ the library's `OpRequest`, with the server-side input rules of compat-v1 §16.2
 * applied in their order. A failing rule yields its reason; the server answers with the error
 * reply `input: <reason>` (`INPUT_ERROR_PREFIX`).
 *
 * 1. len(siblings) = depth, depth in 1..32, key < 2^min(depth, 24) — `input outside measured profile`.
 * 2. old_leaf, then new_leaf: payload length ≤ 21 (`payload exceeds measured profile`); tag 0/2
 *    with an empty payload and an all-zero identity → Empty/Tombstone; tag 1 → Occupied with
 *    every payload value < p (`noncanonical input field`); otherwise `invalid leaf tag/fields`.
 * 3. membership: old_leaf.tag = 1 and old_leaf = new_leaf (`invalid membership leaves`);
 *    nonmembership: tag 0 or 2 and old_leaf = new_leaf (`invalid absence leaves`); update:
 *    Update{key, old_leaf, new_leaf}; any other kind `unknown operation kind`.
 * 4. siblings (in order), old_root, new_root, value_digest: every value < p (`noncanonical input field`).
 *
 * Rule 3 is `checkLeafRules` (src/sync/input-rules.ts), the function request files go through
 * too; leaf equality is structural (tag, payload values in order, identity bytes).
 */
import { P } from "../../field/koalabear.js";
import { EMPTY, LeafTag, TOMBSTONE, type Leaf } from "../../smt/leaf.js";
import type { OpRequest, Operation } from "../../smt/operation.js";
import { OpKind, opKindTag } from "../../statement/types.js";
import { checkLeafRules } from "../../sync/input-rules.js";
import type { JobInput, WireLeaf } from "./job.js";
import { IDENTITY_BYTES, KEY_BITS_CAP, MAX_PAYLOAD_FIELDS, MAX_SERVED_DEPTH } from "./limits.js";

/** Prefix of every input error reply. */
export const INPUT_ERROR_PREFIX = "input: ";

/** The reasons of the input rules, exactly as they appear after `input: `. */
export const INPUT_REASONS = Object.freeze({
  outsideProfile: "input outside measured profile",
  payloadTooLong: "payload exceeds measured profile",
  noncanonical: "noncanonical input field",
  invalidLeaf: "invalid leaf tag/fields",
  invalidMembership: "invalid membership leaves",
  invalidAbsence: "invalid absence leaves",
  unknownKind: "unknown operation kind",
} as const);

/** Why a Job's input was refused (a reason string of compat-v1 §16.2). */
export type InputReason = (typeof INPUT_REASONS)[keyof typeof INPUT_REASONS];

/** Outcome of `requestFromInput`: the request and its kind, or the first failing rule's reason. */
export type InputOutcome =
  | { readonly ok: true; readonly kind: OpKind; readonly request: OpRequest }
  | { readonly ok: false; readonly reason: InputReason };

function leafOf(l: WireLeaf): Leaf | InputReason {
  if (l.payload.length > MAX_PAYLOAD_FIELDS) return INPUT_REASONS.payloadTooLong;
  if ((l.tag === 0 || l.tag === 2) && l.payload.length === 0 && l.identity.every((b) => b === 0)) {
    return l.tag === 0 ? EMPTY : TOMBSTONE;
  }
  if (l.tag === 1) {
    for (const v of l.payload) if (!(v < P)) return INPUT_REASONS.noncanonical;
    return Object.freeze({
      tag: LeafTag.Occupied,
      payload: Object.freeze([...l.payload]),
      identity: Uint8Array.from(l.identity),
    });
  }
  return INPUT_REASONS.invalidLeaf;
}

function digestOf(values: readonly number[]): Uint32Array | null {
  const out = new Uint32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(v < P)) return null;
    out[i] = v;
  }
  return out;
}

/**
 * Applies the §16.2 input rules to a schema-valid `Job.input` for a server of `depth` and
 * builds the request (witness leaf = old_leaf; public inputs from the roots, key and kind tag).
 * Never throws for schema-valid input.
 * @param depth the server's tree depth (rule 1 fails unless it is in 1..32).
 */
export function requestFromInput(input: JobInput, depth: number): InputOutcome {
  const fail = (reason: InputReason): InputOutcome => ({ ok: false, reason });
  if (
    input.siblings.length !== depth ||
    !(depth >= 1 && depth <= MAX_SERVED_DEPTH) ||
    input.key >= 1n << BigInt(Math.min(depth, KEY_BITS_CAP))
  ) {
    return fail(INPUT_REASONS.outsideProfile);
  }
  const oldLeaf = leafOf(input.old_leaf);
  if (typeof oldLeaf === "string") return fail(oldLeaf);
  const newLeaf = leafOf(input.new_leaf);
  if (typeof newLeaf === "string") return fail(newLeaf);
  const key = input.key;
  let operation: Operation;
  let kind: OpKind;
  switch (input.kind) {
    case "membership":
      if (checkLeafRules("membership", input.old_leaf, input.new_leaf) || oldLeaf.tag !== LeafTag.Occupied)
        return fail(INPUT_REASONS.invalidMembership);
      kind = OpKind.Membership;
      operation = { kind, key, leaf: oldLeaf };
      break;
    case "nonmembership":
      if (checkLeafRules("nonmembership", input.old_leaf, input.new_leaf)) return fail(INPUT_REASONS.invalidAbsence);
      kind = OpKind.NonMembership;
      operation = { kind, key };
      break;
    case "update":
      kind = OpKind.Update;
      operation = { kind, key, oldLeaf, newLeaf };
      break;
    default:
      return fail(INPUT_REASONS.unknownKind);
  }
  const siblings: Uint32Array[] = [];
  for (const s of input.siblings) {
    const d = digestOf(s);
    if (!d) return fail(INPUT_REASONS.noncanonical);
    siblings.push(d);
  }
  const oldRoot = digestOf(input.old_root);
  const newRoot = oldRoot && digestOf(input.new_root);
  const valueDigest = newRoot && digestOf(input.value_digest);
  if (!oldRoot || !newRoot || !valueDigest) return fail(INPUT_REASONS.noncanonical);
  return {
    ok: true,
    kind,
    request: {
      operation,
      witness: { leaf: oldLeaf, siblings },
      publicInputs: { oldRoot, newRoot, opKindTag: opKindTag(kind), assetId: key, valueDigest },
    },
  };
}

function wireLeaf(l: Leaf): WireLeaf {
  if (l.tag === LeafTag.Occupied) return { tag: 1, payload: [...l.payload], identity: Array.from(l.identity) };
  return { tag: l.tag === LeafTag.Empty ? 0 : 2, payload: [], identity: new Array<number>(IDENTITY_BYTES).fill(0) };
}

/**
 * The wire form of a library request (e.g. a corpus fixture): kind from the operation, key =
 * asset_id, old_leaf = the witness leaf, new_leaf = the Update's new leaf or else the witness
 * leaf, siblings and public inputs as plain arrays.
 */
export function inputFromRequest(request: OpRequest): JobInput {
  const op = request.operation;
  const pub = request.publicInputs;
  return {
    kind: op.kind,
    key: pub.assetId,
    old_leaf: wireLeaf(request.witness.leaf),
    new_leaf: wireLeaf(op.kind === OpKind.Update ? op.newLeaf : request.witness.leaf),
    siblings: request.witness.siblings.map((s) => Array.from(s)),
    old_root: Array.from(pub.oldRoot),
    new_root: Array.from(pub.newRoot),
    value_digest: Array.from(pub.valueDigest),
  };
}
