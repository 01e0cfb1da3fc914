/**
 * The counterparty's one-call check of a proof about a name in a name-keyed registry
 * (`record-leaf-v2`): given the root it trusts, the name and what it is told about it (a value,
 * or absent), a request and proof bytes, it recomputes the key and the leaf from the name and
 * value itself, compares them and the roots with the request, prepares the circuit (cached per
 * configuration) and verifies the proof strictly (`verifyRequestProof`: the limits and the proof's declared identity first). No step is left to the
 * caller. This file loads no database code (no lmdb): it can run where only proofs are checked.
 *
 * Codes of a rejection (besides the proof's own, e.g. `IDENTITY_MISMATCH` or a sumcheck
 * failure): `REQUEST_JSON`/`REQUEST_SCHEMA` (unreadable request), `SLOT_MAPPED_PROOF` (the
 * request holds the name at a key that is not its name key: a slot-v1 proof, which says nothing
 * about other places of the name), `KEY_MISMATCH` (the request is about another name's key),
 * `CONFIG_MISMATCH` (depth or leaf bound differ from the registry's), `STATEMENT_MISMATCH` (a
 * read-only claim checked against an update proof or the reverse), `RECORD_ABSENT` (a value was
 * claimed, the proof shows absence), `RECORD_PRESENT` (absence was claimed, the proof shows a
 * record), `NAME_MISMATCH` (the leaf identity is another name's Keccak-256), `VALUE_MISMATCH`
 * (the leaf or its digest bind another value), `NAME_NOT_NFC` (the claim is that a name not in
 * Unicode NFC holds a live record: records are written only under NFC names, name-form.ts),
 * `ROOT_NOT_TRUSTED` (the request's root is not the
 * trusted one), `NEW_ROOT_MISMATCH` (an update ends at another root than claimed). When the trusted
 * root is taken from a signed checkpoint: `CHECKPOINT_MALFORMED` (not a signed note or not a
 * checkpoint), `CHECKPOINT_WRONG_KEY` (no signature of the verifier key), `CHECKPOINT_BAD_SIGNATURE`
 * (that key's signature does not verify).
 */
import { keccak256 } from "../kernels/keccak-batch.js";
import { digestEquals, type Digest } from "../hash/digest.js";
import { DEFAULT_LEAF_MAX_FIELDS, hashLeaf, LeafTag, type Leaf } from "../smt/leaf.js";
import type { PreparedSync } from "../sync/prepared.js";
import { defaultPreparedCache, type PreparedCache } from "../sync/prepared-cache.js";
import { verifyRequestProof } from "../sync/verify-request.js";
import { toOpRequest } from "../sync/request-convert.js";
import { parseRequest, parseRequestText, type RequestLeaf, type SyncRequest } from "../sync/request.js";
import { OP_KIND_NAMES, OpKind } from "../statement/types.js";
import {
  checkedFromStatement,
  decodeV3Message,
  decodeV3ZkMessage,
  hasV3Encoding,
  hasV3ZkEncoding,
} from "../codec/v3/message.js";
import { V3DecodeError } from "../codec/v3/errors.js";
import type { V3RejectCode, V3Verdict } from "../sync/v3/verdict.js";
import { InternalError, SsgkrError } from "../errors.js";
import type { FieldErrorCode } from "../field/errors.js";
import type { SmtErrorCode } from "../smt/errors.js";
import type { RequestErrorCode } from "../sync/request.js";
import type { SyncRejectCode } from "../sync/verify.js";
import { RegistryError, type RegistryErrorCode } from "./errors.js";
import { formatRoot, parseRoot } from "./root.js";
import { verifyCheckpoint } from "./checkpoint/checkpoint.js";
import { describeValue, nameBytes, valuePayload, type RecordValue } from "./mapping.js";
import { DEFAULT_NAME_DEPTH, nameKeyBig } from "./name-key.js";
import { nameNotice, nonNfcClaimReason } from "./name-form.js";
import type { V3Statement } from "../smt/v3/statement.js";
import { readStatementV3, updateStatementsV3, verifyRecordStatementsV3 } from "./record-v3.js";

/** A root: 8 canonical field elements, or its text (64 hex characters or `[a, b, …]`, as `parseRoot` reads). */
export type RootLike = ArrayLike<number> | string;

/**
 * Where the trusted root comes from: given (`trustedRoot`), or a signed checkpoint checked
 * against the verifier key the caller trusts (`checkpoint` and `verifierKey`: the root is the
 * checkpoint's). With both, the checkpoint's root must be `trustedRoot`.
 */
export interface Trust {
  /** The root the caller trusts (e.g. published by the registry). */
  readonly trustedRoot?: RootLike;
  /** A signed checkpoint (C2SP tlog-checkpoint note text) the trusted root is taken from. */
  readonly checkpoint?: string;
  /** The verifier key `NAME+HASH+KEY` the checkpoint must be signed by. */
  readonly verifierKey?: string;
}

interface ClaimBase extends Trust {
  readonly name: string;
  /** Registry depth (default 48) and leaf bound (default 31): part of what is trusted. */
  readonly depth?: number;
  readonly leafMaxFields?: number;
}

/** "name ↦ value under trustedRoot", or "name is not registered under trustedRoot". */
export type RecordClaim = (ClaimBase & { readonly value: RecordValue }) | (ClaimBase & { readonly absent: true });

/**
 * The state of a name on one side of an update: a value, absent (never registered or deleted),
 * or (old side only) a live record of the name whatever its value — what a profile v3 replace or
 * delete proves about the record it replaced (record-v3.ts).
 */
export type NameSide = { readonly value: RecordValue } | { readonly absent: true } | { readonly record: true };

/** "the update took name from `old` under trustedRoot to `new` under newRoot". */
export interface RecordUpdateClaim extends Trust {
  readonly newRoot: RootLike;
  readonly name: string;
  readonly old: NameSide;
  readonly new: NameSide;
  readonly depth?: number;
  readonly leafMaxFields?: number;
}

/** The record checks' own rejection codes (the file comment; meanings in docs/errors.md). */
export const RECORD_REJECT_CODES = [
  "CHECKPOINT_MALFORMED",
  "CHECKPOINT_WRONG_KEY",
  "CHECKPOINT_BAD_SIGNATURE",
  "SLOT_MAPPED_PROOF",
  "KEY_MISMATCH",
  "CONFIG_MISMATCH",
  "STATEMENT_MISMATCH",
  "RECORD_ABSENT",
  "RECORD_PRESENT",
  "NAME_MISMATCH",
  "VALUE_MISMATCH",
  "NAME_NOT_NFC",
  "ROOT_NOT_TRUSTED",
  "NEW_ROOT_MISMATCH",
] as const;

/**
 * A rejection code of `verifyRecordProof` / `verifyRecordUpdateProof`: their own, the proof's
 * (`SyncRejectCode`), or the code of the error that made the request unreadable.
 */
export type RecordRejectCode =
  | (typeof RECORD_REJECT_CODES)[number]
  | SyncRejectCode
  | V3RejectCode
  | RequestErrorCode
  | FieldErrorCode
  | SmtErrorCode
  | RegistryErrorCode;

/**
 * The verdict: acceptance with what was checked, or a rejection with a stable code. An accepted
 * proof about a name that is not in Unicode NFC (absence, or a delete) carries its NFC form
 * (`nfcName`) and a notice saying the answer is about that exact spelling (`nameNotice`).
 */
export type RecordVerdict =
  | {
      readonly ok: true;
      readonly name: string;
      readonly key: bigint;
      readonly kind: "membership" | "nonmembership" | "update";
      /**
       * The proof's profile, read from its bytes: `"v1"` (compat-v1, checked with its request),
       * `"v3"` (checked from the statement alone) or `"v3-zk"` (the zero-knowledge mode of profile
       * v3, docs/profile-v3.md §11: checked from the statement alone, and the proof reveals
       * nothing about the path beyond the statement).
       */
      readonly profile: RecordProofProfile;
      readonly oldRoot: Digest;
      readonly newRoot: Digest;
      readonly checkpoint?: { readonly origin: string; readonly size: number };
      readonly nfcName?: string;
      readonly nameNotice?: string;
    }
  | { readonly ok: false; readonly code: RecordRejectCode; readonly reason: string };

/** The profile of a proof about a name, as a verdict names it: compat-v1, profile v3, or its zero-knowledge mode v3-zk. */
export type RecordProofProfile = "v1" | "v3" | "v3-zk";

/** The profile a proof's bytes name (bytes 8..10): `"v3-zk"` for inner-proof-v3zk, `"v3"` for inner-proof-v3, else `"v1"`. */
export function recordProofProfile(proof: Uint8Array): RecordProofProfile {
  return hasV3ZkEncoding(proof) ? "v3-zk" : hasV3Encoding(proof) ? "v3" : "v1";
}

/** A request as text (request.json), parsed JSON, or a parsed `SyncRequest`. */
export type RequestInput = string | SyncRequest | Record<string, unknown>;

const reject = (code: RecordRejectCode, reason: string): RecordVerdict => ({ ok: false, code, reason });

export { parseRoot } from "./root.js";

function checkRoot(r: RootLike, what: string): Digest {
  return parseRoot(r, what);
}

/**
 * The trusted root of a claim: `trustedRoot`, or the root of its checkpoint once the signature
 * verified (a rejection otherwise).
 * @throws RegistryError `BAD_ROOT` (no root given, or an unusable one), `BAD_VERIFIER_KEY`.
 */
function trustedRootOf(t: Trust): { root: Digest; checkpoint?: { origin: string; size: number } } | RecordVerdict {
  const given = t.trustedRoot !== undefined ? checkRoot(t.trustedRoot, "trustedRoot") : undefined;
  if (t.checkpoint === undefined && t.verifierKey === undefined) {
    if (given === undefined)
      throw new RegistryError(
        "BAD_ROOT",
        "trustedRoot: give the root you trust, or a checkpoint and the verifier key it is signed by",
        { field: "trustedRoot" },
      );
    return { root: given };
  }
  if (t.checkpoint === undefined || t.verifierKey === undefined)
    throw new RegistryError(
      "BAD_VERIFIER_KEY",
      "checkpoint: a checkpoint is checked against a verifier key; give both",
      { field: t.checkpoint === undefined ? "checkpoint" : "verifierKey" },
    );
  const c = verifyCheckpoint(t.checkpoint, t.verifierKey);
  if (!c.ok) return c;
  if (given !== undefined && !digestEquals(given, c.root))
    return reject(
      "ROOT_NOT_TRUSTED",
      `the checkpoint's root ${formatRoot(c.root)} is not the trusted root ${formatRoot(given)}`,
    );
  return { root: c.root, checkpoint: { origin: c.origin, size: c.size } };
}

const withCheckpoint = (v: RecordVerdict, checkpoint: { origin: string; size: number } | undefined): RecordVerdict =>
  v.ok && checkpoint ? { ...v, checkpoint } : v;

/** The rejection of a claim that a name not in NFC holds a live record (undefined when the claim may stand). */
function liveUnderNonNfc(name: string, side: NameSide): RecordVerdict | undefined {
  if ("absent" in side) return undefined;
  // a record side claims a live record as a value side does
  const reason = nonNfcClaimReason(name);
  return reason === undefined ? undefined : reject("NAME_NOT_NFC", reason);
}

/** An accepted verdict with the notice of a name not in NFC. */
function withNameNotice(v: RecordVerdict, name: string): RecordVerdict {
  if (!v.ok) return v;
  const n = nameNotice(name);
  return n === undefined ? v : { ...v, nfcName: n.nfc, nameNotice: n.notice };
}

export function cachedPrepared(kind: OpKind, depth: number, leafMaxFields: number): PreparedSync {
  return defaultPreparedCache.get(kind, { depth, leafMaxFields });
}

function parseInput(input: RequestInput): SyncRequest | RecordVerdict {
  try {
    if (typeof input === "string") return parseRequestText(input);
    if (input !== null && typeof input === "object" && "old_leaf" in input) return parseRequest(input);
    if (input !== null && typeof input === "object" && "oldLeaf" in input) return input as SyncRequest;
    return parseRequest(input);
  } catch (e) {
    if (e instanceof SsgkrError) return reject(e.code as RecordRejectCode, e.message);
    throw e;
  }
}

/** Hex of bytes (no Buffer: this file also runs in browsers). */
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

const bytesEqual = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

function sideCheck(
  leaf: RequestLeaf,
  side: NameSide,
  identity: Uint8Array,
  B: number,
  where: string,
): RecordVerdict | undefined {
  if ("absent" in side) {
    if (leaf.tag === 1)
      return reject(
        "RECORD_PRESENT",
        `${where}: the claim is that the name is absent, but the request shows an Occupied leaf at its key`,
      );
    return undefined;
  }
  if (leaf.tag !== 1)
    return reject(
      "RECORD_ABSENT",
      `${where}: the claim is that the name holds ${sideWords(side)}, but the request shows ${leaf.tag === 0 ? "an Empty leaf (never registered)" : "a Tombstone (deleted)"} at its key`,
    );
  if (!bytesEqual(leaf.identity, identity))
    return reject(
      "NAME_MISMATCH",
      `${where}: the leaf identity ${hex(leaf.identity)} is not Keccak-256 of the name (${hex(identity)})`,
    );
  if ("record" in side) return undefined;
  const payload = valuePayload(side.value, B);
  if (payload.length !== leaf.payload.length || payload.some((x, i) => x !== leaf.payload[i]))
    return reject("VALUE_MISMATCH", `${where}: the leaf binds another value than ${describeValue(side.value)}`);
  return undefined;
}

/** A side in words: the value, "absent", or "a record (any value)". */
export function sideWords(side: NameSide): string {
  return "absent" in side ? "absent" : "record" in side ? "a record (any value)" : describeValue(side.value);
}

function leafOf(l: RequestLeaf): Leaf {
  return l.tag === 1
    ? { tag: LeafTag.Occupied, payload: l.payload, identity: l.identity }
    : l.tag === 0
      ? { tag: LeafTag.Empty }
      : { tag: LeafTag.Tombstone };
}

function common(
  name: string,
  request: SyncRequest,
  depthClaim: number | undefined,
  BClaim: number | undefined,
): { identity: Uint8Array; key: bigint; B: number } | RecordVerdict {
  const identity = keccak256(nameBytes(name));
  const depth = depthClaim ?? DEFAULT_NAME_DEPTH;
  const B = BClaim ?? DEFAULT_LEAF_MAX_FIELDS;
  const key = nameKeyBig(name, request.depth);
  if (request.key !== key) {
    const holdsName = [request.oldLeaf, request.newLeaf].some((l) => l.tag === 1 && bytesEqual(l.identity, identity));
    if (holdsName)
      return reject(
        "SLOT_MAPPED_PROOF",
        `the request holds ${JSON.stringify(name)} at key ${request.key}, not at its name key ${key} (the first ${request.depth} bits of its Keccak-256): a slot-mapped (slot-v1) proof, which shows where the registry put the name but not that the name is held nowhere else; ask for a proof from a name-keyed (record-leaf-v2) registry`,
      );
    return reject(
      "KEY_MISMATCH",
      `the request is about key ${request.key}, but the key of ${JSON.stringify(name)} is ${key}: the proof is about another name`,
    );
  }
  if (request.depth !== depth || request.leafMaxFields !== B)
    return reject(
      "CONFIG_MISMATCH",
      `the request has depth ${request.depth} and leaf bound ${request.leafMaxFields}; the registry's are ${depth} and ${B}`,
    );
  return { identity, key, B };
}

/** Options of `verifyRecordProof` and `verifyRecordUpdateProof`. */
export interface RecordVerifyOptions {
  /**
   * Where the prepared circuit of a compat-v1 proof comes from and stays (default
   * `defaultPreparedCache`); e.g. the CLI's cache backed by files (src/cli/prepared-disk.ts).
   */
  readonly cache?: PreparedCache;
}

function finish(
  request: SyncRequest,
  proof: Uint8Array,
  name: string,
  key: bigint,
  cache: PreparedCache | undefined,
): RecordVerdict {
  let op;
  try {
    op = toOpRequest(request);
  } catch (e) {
    if (e instanceof SsgkrError) return reject(e.code as RecordRejectCode, e.message);
    throw e;
  }
  const v = verifyRequestProof(
    op,
    proof,
    { depth: request.depth, leafMaxFields: request.leafMaxFields },
    cache ? { cache } : {},
  );
  if (!v.ok) return v;
  return {
    ok: true,
    name,
    key,
    kind: request.kind,
    profile: "v1",
    oldRoot: request.oldRoot.slice(),
    newRoot: request.newRoot.slice(),
  };
}

/**
 * Checks a membership or non-membership proof about a name against a trusted root, in one call.
 * @param claim `{ trustedRoot, name, value }` or `{ trustedRoot, name, absent: true }` (optional
 *   `depth`, default 48, and `leafMaxFields`, default 31); in place of `trustedRoot`, `checkpoint`
 *   (a signed checkpoint) and `verifierKey`: its signature is checked and its root trusted
 *   (`CHECKPOINT_MALFORMED`, `CHECKPOINT_WRONG_KEY`, `CHECKPOINT_BAD_SIGNATURE` otherwise).
 * @param request request.json text, its parsed JSON, or a `SyncRequest`.
 * @param proof inner-proof-v1 bytes (proof.bin).
 * @param options.cache the prepared circuits of compat-v1 proofs (default `defaultPreparedCache`).
 * @returns `{ ok: true, … }` or `{ ok: false, code, reason }` (codes in the file comment).
 * @throws RegistryError `BAD_NAME`, `BAD_VALUE`, `VALUE_TOO_LARGE`, `BAD_ROOT`, `BAD_VERIFIER_KEY` for an unusable claim.
 * @example
 *   const v = verifyRecordProof({ trustedRoot: root, name: "2048", value: "https://github.com/winsonwq/2048term" },
 *     readFileSync("out/request.json", "utf8"), readFileSync("out/proof.bin"));
 *   if (!v.ok) throw new Error(`${v.code}: ${v.reason}`);
 *   // or trusting a signed checkpoint:
 *   verifyRecordProof({ checkpoint: body.checkpoint, verifierKey, name: "2048", value: "https://github.com/winsonwq/2048term" }, body.request, proof);
 */
export function verifyRecordProof(claim: RecordClaim, proof: Uint8Array): RecordVerdict;
export function verifyRecordProof(
  claim: RecordClaim,
  request: RequestInput | undefined,
  proof: Uint8Array,
  options?: RecordVerifyOptions,
): RecordVerdict;
export function verifyRecordProof(
  claim: RecordClaim,
  requestOrProof: RequestInput | Uint8Array | undefined,
  maybeProof?: Uint8Array,
  options: RecordVerifyOptions = {},
): RecordVerdict {
  const [request, proof] = requestAndProof(requestOrProof, maybeProof);
  const trust = trustedRootOf(claim);
  if ("ok" in trust) return trust;
  const trusted = trust.root;
  const side: NameSide =
    "absent" in claim && claim.absent === true ? { absent: true } : { value: (claim as { value: RecordValue }).value };
  if ("value" in side) valuePayload(side.value, claim.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS);
  if (!hasV3Encoding(proof) && checkedFromStatement(proof, request !== undefined)) return undecodable(proof);
  if (hasV3Encoding(proof)) {
    const unnormalisedV3 = liveUnderNonNfc(claim.name, side);
    if (unnormalisedV3) return unnormalisedV3;
    const depth = claim.depth ?? DEFAULT_NAME_DEPTH,
      B = claim.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS;
    const kind = "absent" in side ? OpKind.NonMembership : OpKind.Membership;
    const st = readStatementV3(claim.name, "value" in side ? side.value : undefined, trusted, depth, B);
    return acceptV3(claim.name, [st], proof, kind, depth, B, { old: trusted, new: trusted }, trust.checkpoint);
  }
  const compat = compatRequest(claim, request, side);
  if ("ok" in compat) return compat;
  const { r, c } = compat;
  if (r.kind === "update")
    return reject(
      "STATEMENT_MISMATCH",
      "the request is an update; check it with verifyRecordUpdateProof (`ssgkr registry verify --old-root …`)",
    );
  if ("absent" in side && r.kind === "membership")
    return reject(
      "RECORD_PRESENT",
      `the claim is that ${JSON.stringify(claim.name)} is absent, but the request is a membership proof of it`,
    );
  if ("value" in side && r.kind === "nonmembership")
    return reject(
      "RECORD_ABSENT",
      `the claim is that ${JSON.stringify(claim.name)} holds ${describeValue(side.value)}, but the request is a non-membership proof: it is not registered`,
    );
  const bad =
    sideCheck(r.oldLeaf, side, c.identity, c.B, "$.old_leaf") ??
    sideCheck(r.newLeaf, side, c.identity, c.B, "$.new_leaf");
  if (bad) return bad;
  if (r.oldLeaf.tag !== r.newLeaf.tag)
    return reject("STATEMENT_MISMATCH", "a read-only request must have new_leaf equal to old_leaf");
  if (!digestEquals(hashLeaf(leafOf(r.newLeaf), c.B), r.valueDigest))
    return reject("VALUE_MISMATCH", "$.value_digest is not h_leaf of the leaf");
  if (!digestEquals(r.oldRoot, trusted) || !digestEquals(r.newRoot, trusted))
    return reject(
      "ROOT_NOT_TRUSTED",
      `the request is about root ${formatRoot(r.oldRoot)}, not the trusted root ${formatRoot(trusted)}`,
    );
  return withNameNotice(
    withCheckpoint(finish(r, proof, claim.name, c.key, options.cache), trust.checkpoint),
    claim.name,
  );
}

/**
 * Checks an update proof about a name (insert, replace, delete or restore) in one call: the name
 * went from `old` under `trustedRoot` to `new` under `newRoot`. A `checkpoint` with its
 * `verifierKey` may stand for `trustedRoot` (the checkpoint of the root before the update).
 * @throws RegistryError `BAD_NAME`, `BAD_VALUE`, `VALUE_TOO_LARGE`, `BAD_ROOT`, `BAD_VERIFIER_KEY` for an unusable claim.
 */
export function verifyRecordUpdateProof(claim: RecordUpdateClaim, proof: Uint8Array): RecordVerdict;
export function verifyRecordUpdateProof(
  claim: RecordUpdateClaim,
  request: RequestInput | undefined,
  proof: Uint8Array,
  options?: RecordVerifyOptions,
): RecordVerdict;
export function verifyRecordUpdateProof(
  claim: RecordUpdateClaim,
  requestOrProof: RequestInput | Uint8Array | undefined,
  maybeProof?: Uint8Array,
  options: RecordVerifyOptions = {},
): RecordVerdict {
  const [request, proof] = requestAndProof(requestOrProof, maybeProof);
  const trust = trustedRootOf(claim);
  if ("ok" in trust) return trust;
  const trusted = trust.root;
  const newRoot = checkRoot(claim.newRoot, "newRoot");
  for (const s of [claim.old, claim.new])
    if (s !== null && typeof s === "object" && "value" in s)
      valuePayload(s.value, claim.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS);
  if (!isSide(claim.old))
    throw new RegistryError("BAD_VALUE", "the old side must be { value }, { absent: true } or { record: true }");
  if (!isSide(claim.new) || "record" in claim.new)
    throw new RegistryError("BAD_VALUE", "the new side must be { value } or { absent: true }");
  if (!hasV3Encoding(proof) && checkedFromStatement(proof, request !== undefined)) return undecodable(proof);
  if (hasV3Encoding(proof)) {
    const unnormalisedV3 = liveUnderNonNfc(claim.name, claim.new);
    if (unnormalisedV3) return unnormalisedV3;
    if ("value" in claim.old)
      return reject(
        "STATEMENT_MISMATCH",
        `a profile v3 update proof states the old leaf only as a rule (Empty, a Tombstone, or a record of the name whatever its value): it does not prove the old value ${describeValue(claim.old.value)}; claim the old side as { record: true } (\`--old-record\`)`,
      );
    const depth = claim.depth ?? DEFAULT_NAME_DEPTH,
      B = claim.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS;
    const candidates = updateStatementsV3(claim.name, claim.old, claim.new, trusted, newRoot, depth, B);
    return acceptV3(
      claim.name,
      candidates,
      proof,
      OpKind.Update,
      depth,
      B,
      { old: trusted, new: newRoot },
      trust.checkpoint,
    );
  }
  const compat = compatRequest(claim, request, claim.new);
  if ("ok" in compat) return compat;
  const { r, c } = compat;
  if (r.kind !== "update")
    return reject(
      "STATEMENT_MISMATCH",
      `the request is a ${r.kind} proof, not an update; check it with verifyRecordProof (\`ssgkr registry verify --root …\`)`,
    );
  const bad =
    sideCheck(r.oldLeaf, claim.old, c.identity, c.B, "$.old_leaf (before)") ??
    sideCheck(r.newLeaf, claim.new, c.identity, c.B, "$.new_leaf (after)");
  if (bad) return bad;
  if (!digestEquals(hashLeaf(leafOf(r.newLeaf), c.B), r.valueDigest))
    return reject("VALUE_MISMATCH", "$.value_digest is not h_leaf of the new leaf");
  if (!digestEquals(r.oldRoot, trusted))
    return reject(
      "ROOT_NOT_TRUSTED",
      `the update starts at root ${formatRoot(r.oldRoot)}, not the trusted root ${formatRoot(trusted)}`,
    );
  if (!digestEquals(r.newRoot, newRoot))
    return reject(
      "NEW_ROOT_MISMATCH",
      `the update ends at root ${formatRoot(r.newRoot)}, not the claimed new root ${formatRoot(newRoot)}`,
    );
  return withNameNotice(
    withCheckpoint(finish(r, proof, claim.name, c.key, options.cache), trust.checkpoint),
    claim.name,
  );
}

/**
 * A profile v3 proof checked against its candidate statements (the claim's kind, configuration and
 * roots): its rejection as a record verdict (`v3Verdict`), or the accepted claim with the
 * checkpoint it was trusted through and the name's notice.
 */
function acceptV3(
  name: string,
  candidates: readonly V3Statement[],
  proof: Uint8Array,
  kind: OpKind,
  depth: number,
  B: number,
  roots: { readonly old: Digest; readonly new: Digest },
  checkpoint: { origin: string; size: number } | undefined,
): RecordVerdict {
  const v = v3Verdict(verifyRecordStatementsV3(candidates, proof, depth, B), proof, kind, depth, B);
  if (!v.ok) return v;
  return withNameNotice(
    withCheckpoint(
      {
        ok: true,
        name,
        key: candidates[0]!.key,
        kind,
        profile: recordProofProfile(proof),
        oldRoot: roots.old.slice(),
        newRoot: roots.new.slice(),
      },
      checkpoint,
    ),
    name,
  );
}

/**
 * The first checks of a compat-v1 proof, shared by reads and updates: it comes with its request,
 * which parses, is about the claimed name's key at the registry's configuration, and a live side
 * of the claim is in NFC. @returns the parsed request and what `common` derived, or the rejection.
 */
function compatRequest(
  claim: { readonly name: string; readonly depth?: number; readonly leafMaxFields?: number },
  request: RequestInput | undefined,
  side: NameSide,
): { r: SyncRequest; c: { identity: Uint8Array; key: bigint; B: number } } | RecordVerdict {
  if (request === undefined)
    return reject(
      "REQUEST_SCHEMA",
      "a compat-v1 proof is checked with its request (request.json); only a profile v3 proof is checked from the statement alone",
    );
  const r = parseInput(request);
  if ("ok" in r) return r;
  const c = common(claim.name, r, claim.depth, claim.leafMaxFields);
  if ("ok" in c) return c;
  return liveUnderNonNfc(claim.name, side) ?? { r, c };
}

/** The request and proof of a call `(claim, proof)` or `(claim, request, proof)`. */
function requestAndProof(
  requestOrProof: RequestInput | Uint8Array | undefined,
  maybeProof: Uint8Array | undefined,
): [RequestInput | undefined, Uint8Array] {
  if (requestOrProof instanceof Uint8Array && maybeProof === undefined) return [undefined, requestOrProof];
  // a proof that is not bytes is rejected by the proof's decoder (DECODE_NotBytes / NotBytes)
  return [requestOrProof as RequestInput | undefined, maybeProof as Uint8Array];
}

/**
 * The v3 decoder's rejection of bytes given without a request that name neither compat-v1 nor
 * inner-proof-v3 (`checkedFromStatement` sends them here; the decoder refuses any encoding
 * version but 3, so it always throws).
 */
function undecodable(proof: Uint8Array): RecordVerdict {
  try {
    decodeV3Message(proof);
  } catch (e) {
    if (e instanceof V3DecodeError)
      return reject(
        `DECODE_${e.code}` as RecordRejectCode,
        `${e.message} (no request was given, so the proof was read as profile v3)`,
      );
    throw e;
  }
  throw new InternalError("the v3 decoder accepted bytes that do not name encoding version 3");
}

const isSide = (s: unknown): s is NameSide =>
  s !== null &&
  typeof s === "object" &&
  ("value" in s || (s as { absent?: unknown }).absent === true || (s as { record?: unknown }).record === true);

/**
 * A v3 verdict as a record verdict: a proof of another kind or configuration than the claim's
 * (the circuit identity differs) gets the record codes `STATEMENT_MISMATCH`, `RECORD_PRESENT`,
 * `RECORD_ABSENT` or `CONFIG_MISMATCH`; any other rejection keeps the v3 code.
 */
function v3Verdict(
  v: V3Verdict,
  proof: Uint8Array,
  kind: OpKind,
  depth: number,
  B: number,
): { ok: true } | RecordVerdict {
  if (v.ok) return v;
  if (v.code === "IDENTITY_MISMATCH") {
    let id;
    try {
      id = (hasV3ZkEncoding(proof) ? decodeV3ZkMessage(proof) : decodeV3Message(proof)).identity;
    } catch {
      id = undefined;
    }
    if (id !== undefined) {
      const proved = OP_KIND_NAMES[id.opKindTag];
      if (proved !== undefined && proved !== kind) {
        if (proved === OpKind.Update || kind === OpKind.Update)
          return reject(
            "STATEMENT_MISMATCH",
            `the proof is a profile ${recordProofProfile(proof)} ${proved} proof; the claim is ${kind === OpKind.Update ? "an update" : `a ${kind}`} (check ${proved === OpKind.Update ? "an update with verifyRecordUpdateProof" : "a read with verifyRecordProof"})`,
          );
        return reject(
          proved === OpKind.Membership ? "RECORD_PRESENT" : "RECORD_ABSENT",
          proved === OpKind.Membership
            ? "the claim is that the name is absent, but the proof is a membership proof"
            : "the claim is that the name holds a value, but the proof is a non-membership proof: it is not registered",
        );
      }
      if (id.depth !== depth || id.leafMaxFields !== B)
        return reject(
          "CONFIG_MISMATCH",
          `the proof has depth ${id.depth} and leaf bound ${id.leafMaxFields}; the registry's are ${depth} and ${B}`,
        );
    }
  }
  if (v.code === "PUBLIC_INPUTS_MISMATCH")
    return reject(
      "PUBLIC_INPUTS_MISMATCH",
      `the proof was made for another statement than the claim: another root, name or value (a profile ${recordProofProfile(proof)} proof binds its statement through the statement digest, docs/profile-v3.md §5.2)`,
    );
  return reject(v.code as RecordRejectCode, v.reason);
}

/** Puts an already prepared circuit into the cache of `verifyRecordProof` (e.g. from `prepareAll`). */
export function primePreparedCache(prepared: PreparedSync): void {
  defaultPreparedCache.put(prepared);
}
