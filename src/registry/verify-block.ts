/**
 * The auditor's check of a registry block (docs/registry.md "Block proofs"): the registry went
 * from `fromRoot` to `toRoot` by exactly the updates listed in block.json, in order. Checks, in
 * order (the first failure decides, with a stable code):
 *
 * | Check | Code |
 * |---|---|
 * | block.json is a block description (profile v2, depth, leaf bound, updates) | `BLOCK_JSON` |
 * | requests.json is an array of Update requests of that configuration | `REQUESTS_JSON`, `REQUEST_SCHEMA` |
 * | as many requests as updates | `OPERATION_COUNT` |
 * | update i's name gives request i's key; its old leaf fits the op (insert: Empty; replace, delete: the name's record; restore: Tombstone); its new leaf is the name's record with the listed value (delete: Tombstone) | `UPDATE_MISMATCH` (names the update) |
 * | the chain and the aggregate proof (`verifyBlock`) | `FROM_ROOT_MISMATCH`, `CHAIN_BROKEN`, `TO_ROOT_MISMATCH`, `DECODE_<code>`, `PUBLIC_INPUTS_MISMATCH`, `GKR_<code>`, `INPUT_CLAIM_X/Y`, … |
 *
 * The proof's encoding version (bytes 8..10) names its profile. A profile v3 proof needs no
 * requests.json: block.json's profile must be "v3" (`BLOCK_JSON`), each update must give the
 * values v3 needs (`BAD_BLOCK` as `BLOCK_JSON`), then `verifyBlockV3` from the roots and the
 * updates alone (its codes, naming the update where one is to blame).
 *
 * Never throws on malformed files.
 */
import { SsgkrError } from "../errors.js";
import type { Digest } from "../hash/digest.js";
import { EMPTY, LeafTag, TOMBSTONE, leafEquals, type Leaf } from "../smt/leaf.js";
import type { OpRequest } from "../smt/operation.js";
import { parseRequest } from "../sync/request.js";
import { toOpRequest } from "../sync/request-convert.js";
import { OpKind } from "../statement/types.js";
import { type PreparedV2, prepareV2 } from "../sync/v2/prepared.js";
// The v2 block verifier's own file, not the v2 index: the index also re-exports the worker pool (Node only), and the browser page bundles this file.
import { verifyBlock } from "../sync/v2/block.js";
import type { V2RejectCode } from "../sync/v2/verify.js";
import type { RequestErrorCode } from "../sync/request.js";
import type { FieldErrorCode } from "../field/errors.js";
import type { SmtErrorCode } from "../smt/errors.js";
import { RegistryError } from "./errors.js";
import { nameIdentity, recordLeaf, type RecordValue } from "./mapping.js";
import { MAX_BLOCK_UPDATES, blockUpdateOf, type BlockUpdate } from "./name-block.js";
import { nameKeyBig } from "./name-key.js";
import { preparedUpdateV3, v3BlockUpdates } from "./block-v3.js";
import { type V3BlockUpdate, type V3RejectCode, verifyBlockV3 } from "../sync/v3/index.js";
import { hasV3Encoding } from "../codec/v3/message.js";

/** The files of a block directory: block.json and requests.json (profile v2 only) as text, block.bin as bytes. */
export interface BlockFiles {
  readonly blockJson: string;
  /** Profile v2: the requests; a v3 block has none (ignored if given). */
  readonly requestsJson?: string;
  readonly proof: Uint8Array;
}

/** The parsed block.json. */
export interface BlockDescription {
  readonly profile: "v2" | "v3";
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly updates: readonly BlockUpdate[];
}

/** The block check's own rejection codes (the table above). */
export const BLOCK_REJECT_CODES = ["BLOCK_JSON", "REQUESTS_JSON", "UPDATE_MISMATCH"] as const;

/** A rejection code of `verifyRegistryBlock`: its own, a request's parse error, and `verifyBlock`'s. */
export type BlockRejectCode =
  | (typeof BLOCK_REJECT_CODES)[number]
  | RequestErrorCode
  | FieldErrorCode
  | SmtErrorCode
  | V2RejectCode
  | V3RejectCode;

/** Outcome of `verifyRegistryBlock`: accepted, or rejected with a code, a reason and the failing update's index. */
export type BlockVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: BlockRejectCode; readonly reason: string; readonly operation?: number };

function reject(code: BlockRejectCode, reason: string, operation?: number): BlockVerdict {
  return operation === undefined ? { ok: false, code, reason } : { ok: false, code, reason, operation };
}

/** One update as block.json lists it (the NDJSON update form; restore with the value it restored). */
export function updateJson(u: BlockUpdate): Record<string, unknown> {
  const o: Record<string, unknown> = { op: u.op, name: u.name };
  if (u.value === undefined) return o;
  if (u.value === null) o.null = true;
  else if (typeof u.value === "string") o.value = u.value;
  else o.fields = [...u.value.fields];
  return o;
}

/**
 * Parses block.json.
 * @throws RegistryError `BAD_BLOCK` for text that is not JSON, not an object, not profile v2 or v3, a
 *   depth outside [1, 64], a leaf bound outside [10, 63], no `updates` array, or no or too many
 *   updates; `BAD_RECORD` for a malformed update.
 */
export function parseBlockDescription(text: string): BlockDescription {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new RegistryError("BAD_BLOCK", `not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new RegistryError("BAD_BLOCK", "block.json must be a JSON object");
  if (v.profile !== "v2" && v.profile !== "v3")
    throw new RegistryError("BAD_BLOCK", `"profile" must be "v2" or "v3", got ${JSON.stringify(v.profile)}`);
  const depth = v.depth,
    B = v.leaf_max_fields;
  if (!Number.isInteger(depth) || (depth as number) < 1 || (depth as number) > 64)
    throw new RegistryError("BAD_BLOCK", `"depth" must be an integer in [1, 64], got ${JSON.stringify(depth)}`);
  if (!Number.isInteger(B) || (B as number) < 10 || (B as number) > 63)
    throw new RegistryError("BAD_BLOCK", `"leaf_max_fields" must be an integer in [10, 63], got ${JSON.stringify(B)}`);
  if (!Array.isArray(v.updates)) throw new RegistryError("BAD_BLOCK", `"updates" must be an array`);
  if (v.updates.length === 0)
    throw new RegistryError("BAD_BLOCK", "a block needs at least one update; block.json lists none");
  if (v.updates.length > MAX_BLOCK_UPDATES)
    throw new RegistryError("BAD_BLOCK", `a block holds at most ${MAX_BLOCK_UPDATES} updates, got ${v.updates.length}`);
  const updates = v.updates.map((u, i) => blockUpdateOf(u, i + 1));
  return { profile: v.profile, depth: depth as number, leafMaxFields: B as number, updates };
}

function isRecordOf(leaf: Leaf, name: string): boolean {
  if (leaf.tag !== LeafTag.Occupied) return false;
  const id = nameIdentity(name);
  return leaf.identity.length === id.length && leaf.identity.every((b, i) => b === id[i]);
}

/** Why request r does not carry update u (or null). */
function updateMismatch(u: BlockUpdate, r: OpRequest, d: BlockDescription): string | null {
  if (r.operation.kind !== OpKind.Update) return "the request is not an update";
  const op = r.operation;
  if (op.key !== nameKeyBig(u.name, d.depth))
    return `the request's key ${op.key} is not the key of ${JSON.stringify(u.name)}`;
  const oldOk =
    u.op === "insert"
      ? leafEquals(op.oldLeaf, EMPTY)
      : u.op === "restore"
        ? leafEquals(op.oldLeaf, TOMBSTONE)
        : isRecordOf(op.oldLeaf, u.name);
  if (!oldOk)
    return `the request's old leaf does not fit ${u.op} (${u.op === "insert" ? "Empty" : u.op === "restore" ? "Tombstone" : "the name's live record"} expected)`;
  if (u.op === "delete") return leafEquals(op.newLeaf, TOMBSTONE) ? null : "the request's new leaf is not a Tombstone";
  if (u.value === undefined) return `block.json gives no value for ${u.op} ${JSON.stringify(u.name)}`;
  let want: Leaf;
  try {
    want = recordLeaf(u.name, u.value as RecordValue, d.leafMaxFields);
  } catch (e) {
    return `the listed value cannot be a record: ${(e as Error).message}`;
  }
  return leafEquals(op.newLeaf, want) ? null : "the request's new leaf is not the name's record with the listed value";
}

const preparedCache = new Map<string, PreparedV2>();

function preparedFor(depth: number, leafMaxFields: number): PreparedV2 {
  const k = `${depth}/${leafMaxFields}`;
  let p = preparedCache.get(k);
  if (!p) preparedCache.set(k, (p = prepareV2(OpKind.Update, { depth, leafMaxFields })));
  return p;
}

/**
 * What a profile v3 block that verified hands on (`verifyRegistryBlock`'s `onVerified`): its
 * block.json as parsed for the check and each update's statement parts (key, new leaf, old-leaf
 * rule) the proof was checked against, derived from that block.json alone, in order.
 */
export interface VerifiedV3Block {
  readonly description: BlockDescription;
  readonly updates: readonly V3BlockUpdate[];
}

/**
 * Verifies a block directory's files against the roots the auditor trusts (see the table above).
 * @param onVerified called once, only when a profile v3 block is accepted, with what it was
 *   checked against (a mirror applies those updates with their keys and new leaves).
 * @example
 *   verifyRegistryBlock({ fromRoot, toRoot }, { blockJson, requestsJson, proof }); // { ok: true }
 */
export function verifyRegistryBlock(
  roots: { fromRoot: Digest; toRoot: Digest },
  files: BlockFiles,
  onVerified?: (block: VerifiedV3Block) => void,
): BlockVerdict {
  let d: BlockDescription;
  try {
    d = parseBlockDescription(files.blockJson);
  } catch (e) {
    return reject("BLOCK_JSON", `block.json: ${(e as Error).message}`);
  }
  const proof = files.proof;
  const v3 = hasV3Encoding(proof);
  if (v3 !== (d.profile === "v3"))
    return reject(
      "BLOCK_JSON",
      `block.json names profile ${d.profile}, the proof is ${v3 ? "a profile v3 proof" : "not a profile v3 proof"}`,
    );
  if (v3) return verifyV3Block(roots, d, proof, onVerified);
  let raw: unknown;
  try {
    raw = JSON.parse(files.requestsJson ?? "");
  } catch (e) {
    return reject("REQUESTS_JSON", `requests.json is not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw)) return reject("REQUESTS_JSON", "requests.json must be a JSON array of requests");
  const requests: OpRequest[] = [];
  for (let i = 0; i < raw.length; i++) {
    try {
      const r = parseRequest(raw[i]);
      if (r.kind !== "update" || r.depth !== d.depth || r.leafMaxFields !== d.leafMaxFields) {
        return reject(
          "REQUEST_SCHEMA",
          `requests.json[${i}]: an update request of depth ${d.depth} and leaf bound ${d.leafMaxFields} expected, got ${r.kind} depth ${r.depth} bound ${r.leafMaxFields}`,
          i,
        );
      }
      requests.push(toOpRequest(r));
    } catch (e) {
      if (e instanceof SsgkrError)
        return reject(
          e.code as BlockRejectCode,
          `requests.json[${i}]${e.message.startsWith("$") ? e.message.slice(1) : `: ${e.message}`}`,
          i,
        );
      throw e;
    }
  }
  if (requests.length !== d.updates.length)
    return reject(
      "OPERATION_COUNT",
      `block.json lists ${d.updates.length} updates, requests.json holds ${requests.length} requests`,
    );
  for (let i = 0; i < requests.length; i++) {
    const why = updateMismatch(d.updates[i]!, requests[i]!, d);
    if (why)
      return reject(
        "UPDATE_MISMATCH",
        `update ${i + 1} (${d.updates[i]!.op} ${JSON.stringify(d.updates[i]!.name)}): ${why}`,
        i,
      );
  }
  return verifyBlock(roots, requests, files.proof, { prepared: preparedFor(d.depth, d.leafMaxFields) });
}

/** A v3 block: the statements from block.json alone, then `verifyBlockV3`. */
function verifyV3Block(
  roots: { fromRoot: Digest; toRoot: Digest },
  d: BlockDescription,
  proof: Uint8Array,
  onVerified: ((block: VerifiedV3Block) => void) | undefined,
): BlockVerdict {
  let list: V3BlockUpdate[];
  try {
    list = v3BlockUpdates(d.updates, d.depth, d.leafMaxFields);
  } catch (e) {
    if (e instanceof RegistryError) {
      const i = e.details["update"];
      return typeof i === "number"
        ? reject("BLOCK_JSON", `block.json: ${e.message}`, i)
        : reject("BLOCK_JSON", `block.json: ${e.message}`);
    }
    throw e;
  }
  const v = verifyBlockV3(preparedUpdateV3(d.depth, d.leafMaxFields), roots, list, proof);
  if (v.ok) onVerified?.({ description: d, updates: list });
  return v;
}
