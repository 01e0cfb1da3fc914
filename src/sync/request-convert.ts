/**
 * Conversion between the request file (`SyncRequest`, compat-v1 §16.2 field names) and the
 * library's `OpRequest` (operation, witness, public inputs).
 *
 * The witness leaf is `old_leaf`. Membership: the operation carries `new_leaf` (which must repeat
 * `old_leaf`); NonMembership: no leaf (`new_leaf` repeats `old_leaf`); Update: old_leaf → new_leaf.
 * op_kind_tag and asset_id are the kind's tag and the key. The leaf rules are `checkLeafRules`
 * (input-rules.ts), the same function the proof server applies to its jobs.
 */
import { EMPTY, TOMBSTONE, LeafTag, occupied, type Leaf, type OccupiedLeaf } from "../smt/leaf.js";
import type { OpRequest, Operation } from "../smt/operation.js";
import { RequestError, type RequestLeaf, type SyncRequest } from "./request.js";
import { OpKind, opKindTag } from "../statement/types.js";
import { SsgkrError } from "../errors.js";
import { checkLeafRules } from "./input-rules.js";

function toLeaf(l: RequestLeaf, path: string): Leaf {
  if (l.tag === 1) {
    try {
      return occupied(l.payload, l.identity);
    } catch (err) {
      if (err instanceof SsgkrError) throw new RequestError("REQUEST_SCHEMA", `${path}: ${err.message}`, { path });
      throw err;
    }
  }
  if (l.payload.length !== 0)
    throw new RequestError("REQUEST_SCHEMA", `${path}.payload: an Empty or Tombstone leaf carries an empty payload`, {
      path: `${path}.payload`,
    });
  if (l.identity.some((b) => b !== 0))
    throw new RequestError("REQUEST_SCHEMA", `${path}.identity: an Empty or Tombstone leaf carries a zero identity`, {
      path: `${path}.identity`,
    });
  return l.tag === 0 ? EMPTY : TOMBSTONE;
}

function fromLeaf(l: Leaf): RequestLeaf {
  if (l.tag === LeafTag.Occupied) return { tag: 1, payload: [...l.payload], identity: l.identity.slice() };
  return { tag: l.tag === LeafTag.Empty ? 0 : 2, payload: [], identity: new Uint8Array(32) };
}

/**
 * The library request described by a request file.
 * @throws RequestError `REQUEST_SCHEMA` naming the JSON path and the rule: an Empty/Tombstone
 *   leaf with a payload or identity, an Occupied leaf with a non-canonical payload, or a broken
 *   leaf rule of `checkLeafRules` (membership of a leaf that is not Occupied, non-membership of
 *   an Occupied leaf, a read-only request whose new_leaf differs from old_leaf); `details.rule`
 *   names the leaf rule.
 */
export function toOpRequest(r: SyncRequest): OpRequest {
  const oldLeaf = toLeaf(r.oldLeaf, "$.old_leaf");
  const newLeaf = toLeaf(r.newLeaf, "$.new_leaf");
  const violation = checkLeafRules(r.kind, r.oldLeaf, r.newLeaf);
  if (violation)
    throw new RequestError("REQUEST_SCHEMA", `${violation.path}: ${violation.message}`, {
      path: violation.path,
      rule: violation.rule,
    });
  const kind: OpKind = r.kind;
  let operation: Operation;
  switch (kind) {
    case OpKind.Membership:
      operation = { kind, key: r.key, leaf: newLeaf as OccupiedLeaf };
      break;
    case OpKind.NonMembership:
      operation = { kind, key: r.key };
      break;
    default:
      operation = { kind: OpKind.Update, key: r.key, oldLeaf, newLeaf };
  }
  return {
    operation,
    witness: { leaf: oldLeaf, siblings: r.siblings.map((s) => Uint32Array.from(s)) },
    publicInputs: {
      oldRoot: r.oldRoot,
      newRoot: r.newRoot,
      opKindTag: opKindTag(kind),
      assetId: r.key,
      valueDigest: r.valueDigest,
    },
  };
}

/** The request file of a library request (inverse of `toOpRequest` for well-formed requests). */
export function fromOpRequest(req: OpRequest, depth: number, leafMaxFields: number): SyncRequest {
  const op = req.operation;
  const oldLeaf = op.kind === OpKind.Update ? op.oldLeaf : req.witness.leaf;
  const newLeaf = op.kind === OpKind.Update ? op.newLeaf : op.kind === OpKind.Membership ? op.leaf : req.witness.leaf;
  return {
    kind: op.kind,
    depth,
    leafMaxFields,
    key: op.key,
    oldLeaf: fromLeaf(oldLeaf),
    newLeaf: fromLeaf(newLeaf),
    siblings: req.witness.siblings.map((s) => Uint32Array.from(s)),
    oldRoot: Uint32Array.from(req.publicInputs.oldRoot),
    newRoot: Uint32Array.from(req.publicInputs.newRoot),
    valueDigest: Uint32Array.from(req.publicInputs.valueDigest),
  };
}
