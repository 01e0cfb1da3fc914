/**
 * inner-proof-v3 (docs/profile-v3.md §6): the v2 header and identity (versions 3), the operation
 * count, per operation its statement check, for a block the n − 1 intermediate roots, the WHIR
 * commitment to the committed halves (`pcs-whir-commitment-v1`, length-prefixed), the GKR layers
 * as inner-proof-v2, and the WHIR opening (`pcs-whir-proof-v1`, length-prefixed).
 *
 * inner-proof-v3zk (§11.9) has the same parts with encoding version 4, the hiding commitment and
 * masked opening (`pcs-whir-hiding-commitment-v1`, `pcs-whir-hiding-proof-v1`) and the
 * zero-knowledge layers (zk-layers.ts): one encoder and decoder serve both, given the variant.
 */
import type { Digest } from "../../hash/digest.js";
import type { GkrProof } from "../../gkr/proof.js";
import type { ZkGkrProof } from "../../gkr/zk/proof.js";
import { PcsError } from "../../pcs/errors.js";
import { decodeWhirCommitment, decodeWhirProof } from "../../pcs/codec.js";
import { decodeWhirHidingCommitment, decodeWhirHidingProof } from "../../pcs/hiding-codec.js";
import { DecodeError } from "../errors.js";
import { ByteReader } from "../reader.js";
import { ByteWriter } from "../writer.js";
import { PROOF_ENCODING_VERSION } from "../layout.js";
import { readHeader, writeHeader } from "../v2/header.js";
import {
  checkLayers,
  layersSize,
  readLayers,
  writeLayers,
  type LayerDecodeCode,
  type LayerEncodeCode,
} from "../v2/layers.js";
import { checkZkLayers, readZkLayers, writeZkLayers, zkLayersSize } from "./zk-layers.js";
import { V3DecodeError, type V3DecodeErrorCode, V3EncodeError } from "./errors.js";
import {
  V3_HEADER_BYTES,
  V3_MAX_COMMITMENT_BYTES,
  V3_MAX_OPENING_BYTES,
  V3_MAX_OPERATIONS,
  V3_PROOF_ENCODING_VERSION,
  V3_PROOF_KIND_AGGREGATE,
  V3_PROOF_KIND_BLOCK,
  V3_ROOT_BYTES,
  V3_STATEMENT_CHECK_BYTES,
  V3_VERSIONS,
  V3ZK_PROOF_ENCODING_VERSION,
  V3ZK_VERSIONS,
  type V3CircuitIdentity,
} from "./layout.js";

/** The parts of one inner-proof-v3 message. */
export interface V3Message extends V3Parts<GkrProof> {}

/**
 * The parts of one inner-proof-v3zk message (docs/profile-v3.md §11.9): `commitment` and
 * `opening` are `pcs-whir-hiding-commitment-v1` and `pcs-whir-hiding-proof-v1` bytes.
 */
export interface V3ZkMessage extends V3Parts<ZkGkrProof> {}

/** The parts of a v3 or v3zk message, with the GKR proof of the variant. */
export interface V3Parts<Proof> {
  readonly identity: V3CircuitIdentity;
  /** 1 (aggregate) or 2 (block). */
  readonly proofKind: 1 | 2;
  /** Per operation the 2-element statement check (docs/profile-v3.md §5.2). */
  readonly statementChecks: readonly (readonly [number, number])[];
  /** Block only: the roots after updates 0 … n − 2 (n − 1 of them); empty for an aggregate. */
  readonly roots: readonly Digest[];
  /** `pcs-whir-commitment-v1` bytes (decoded and checked by the decoder). */
  readonly commitment: Uint8Array;
  readonly proof: Proof;
  /** `pcs-whir-proof-v1` bytes (decoded and checked by the decoder). */
  readonly opening: Uint8Array;
}

/** What differs between inner-proof-v3 and inner-proof-v3zk. */
interface Variant<Proof extends { readonly layers: readonly unknown[] }> {
  readonly versions: typeof V3_VERSIONS;
  readonly decodeCommitment: (bytes: Uint8Array) => unknown;
  readonly decodeOpening: (bytes: Uint8Array) => unknown;
  readonly checkLayers: (
    proof: Proof,
    fail: (code: LayerEncodeCode, message: string, details: Record<string, unknown>) => never,
  ) => void;
  readonly layersSize: (proof: Proof) => number;
  readonly writeLayers: (w: ByteWriter, proof: Proof) => void;
  readonly readLayers: (
    r: ByteReader,
    fail: (code: LayerDecodeCode, message: string, details: Record<string, unknown>) => never,
  ) => Proof["layers"];
}

const PLAIN: Variant<GkrProof> = {
  versions: V3_VERSIONS,
  decodeCommitment: decodeWhirCommitment,
  decodeOpening: decodeWhirProof,
  checkLayers,
  layersSize,
  writeLayers,
  readLayers,
};

const ZK: Variant<ZkGkrProof> = {
  versions: V3ZK_VERSIONS,
  decodeCommitment: decodeWhirHidingCommitment,
  decodeOpening: decodeWhirHidingProof,
  checkLayers: checkZkLayers,
  layersSize: zkLayersSize,
  writeLayers: writeZkLayers,
  readLayers: readZkLayers,
};

function layerFail(code: LayerEncodeCode, message: string, details: Record<string, unknown>): never {
  throw new V3EncodeError(code, message, details);
}

/**
 * Encodes one inner-proof-v3 message.
 * @throws V3EncodeError `BadIdentity` (a field outside its width: op kind 0..2, depth u32, circuit
 *   and leaf encoding versions u16, leaf bound u16, layout id u8; a proof kind other than 1 or 2),
 *   `BadOperationCount` (n outside 1..4096), `BadRoots` (a block
 *   without n − 1 roots, an aggregate with roots), `NonCanonicalFieldElement`, the layer codes of
 *   inner-proof-v2, `MessageTooLong`.
 */
export function encodeV3Message(m: V3Message): Uint8Array {
  return encodeWith(PLAIN, m);
}

/**
 * Encodes one inner-proof-v3zk message (docs/profile-v3.md §11.9).
 * @throws V3EncodeError as `encodeV3Message`, with the zero-knowledge layers' shape codes
 *   (`BadRoundCount`, `BadRoundPolyArity`).
 */
export function encodeV3ZkMessage(m: V3ZkMessage): Uint8Array {
  return encodeWith(ZK, m);
}

function encodeWith<Proof extends { readonly layers: readonly unknown[] }>(
  variant: Variant<Proof>,
  m: V3Parts<Proof>,
): Uint8Array {
  const { identity, statementChecks: checks, roots, proof } = m;
  const n = checks.length;
  const idOk =
    Number.isInteger(identity.opKindTag) &&
    identity.opKindTag >= 0 &&
    identity.opKindTag <= 2 &&
    Number.isInteger(identity.depth) &&
    identity.depth >= 0 &&
    identity.depth <= 0xffffffff &&
    Number.isInteger(identity.leafMaxFields) &&
    identity.leafMaxFields >= 0 &&
    identity.leafMaxFields <= 0xffff &&
    Number.isInteger(identity.circuitVersion) &&
    identity.circuitVersion >= 0 &&
    identity.circuitVersion <= 0xffff &&
    Number.isInteger(identity.leafEncodingVersion) &&
    identity.leafEncodingVersion >= 0 &&
    identity.leafEncodingVersion <= 0xffff &&
    Number.isInteger(identity.layoutId) &&
    identity.layoutId >= 0 &&
    identity.layoutId <= 0xff &&
    (m.proofKind === V3_PROOF_KIND_AGGREGATE || m.proofKind === V3_PROOF_KIND_BLOCK);
  if (!idOk)
    throw new V3EncodeError(
      "BadIdentity",
      "identity field out of range (op kind 0..2, depth u32, circuit and leaf encoding versions u16, leaf_max_fields u16, layout id u8, proof kind 1 or 2)",
    );
  if (n < 1 || n > V3_MAX_OPERATIONS)
    throw new V3EncodeError("BadOperationCount", `a v3 proof carries 1..${V3_MAX_OPERATIONS} operations, got ${n}`);
  const wantRoots = m.proofKind === V3_PROOF_KIND_BLOCK ? n - 1 : 0;
  if (roots.length !== wantRoots)
    throw new V3EncodeError(
      "BadRoots",
      `a ${m.proofKind === V3_PROOF_KIND_BLOCK ? "block" : "aggregate"} of ${n} operations carries ${wantRoots} roots, got ${roots.length}`,
    );
  variant.checkLayers(proof, layerFail);
  const size =
    V3_HEADER_BYTES +
    44 +
    4 +
    V3_STATEMENT_CHECK_BYTES * n +
    V3_ROOT_BYTES * roots.length +
    4 +
    m.commitment.length +
    variant.layersSize(proof) +
    4 +
    m.opening.length;
  if (size > 0xffffffff) throw new V3EncodeError("MessageTooLong", `message of ${size} bytes exceeds u32`);
  const w = new ByteWriter(size, layerFail);
  writeHeader(w.bytes, w.dataView, variant.versions, m.proofKind, size, identity);
  w.pos = 29;
  w.digest(identity.commitment);
  w.u32(n);
  for (const [a, b] of checks) {
    w.fe(a);
    w.fe(b);
  }
  for (const r of roots) w.digest(r);
  w.u32(m.commitment.length);
  w.raw(m.commitment);
  variant.writeLayers(w, proof);
  w.u32(m.opening.length);
  w.raw(m.opening);
  return w.bytes;
}

function fail(code: V3DecodeErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new V3DecodeError(code, message, details);
}

/** Reads a u32 length-prefixed embedded message and checks it with its own decoder. */
function embedded(
  r: ByteReader,
  what: "commitment" | "opening",
  max: number,
  decode: (bytes: Uint8Array) => unknown,
): Uint8Array {
  const at = r.pos;
  const len = r.u32();
  if (len > max || len > r.remaining())
    fail(
      "OversizedCount",
      `${what} length ${len} at offset ${at} exceeds ${len > max ? `the limit ${max}` : `the ${r.remaining()} bytes left`}`,
      { offset: at, count: len },
    );
  const bytes = r.bytes(len);
  try {
    decode(bytes);
  } catch (e) {
    if (e instanceof PcsError)
      fail(what === "commitment" ? "BadCommitment" : "BadOpening", `the ${what} at offset ${at + 4}: ${e.message}`, {
        offset: at + 4,
      });
    throw e;
  }
  return bytes;
}

function decodeUnguarded<Proof extends { readonly layers: readonly unknown[] }>(
  variant: Variant<Proof>,
  bytes: Uint8Array,
): V3Parts<Proof> {
  const r = new ByteReader(bytes);
  const kindWhy = (kind: number) =>
    kind === V3_PROOF_KIND_AGGREGATE || kind === V3_PROOF_KIND_BLOCK ? null : "is not 1 (aggregate) or 2 (block)";
  const { proofKind: kind, identity } = readHeader(bytes, r, variant.versions, kindWhy, fail);
  const idTag = identity.opKindTag;
  if (kind === V3_PROOF_KIND_BLOCK && idTag !== 2)
    fail("OpKindMismatch", `a block (proof_kind 2) is made of updates (op kind 2), the identity says ${idTag}`, {
      identity: idTag,
      statement: 2,
    });
  const at = r.pos;
  const n = r.u32();
  if (n === 0 || n > V3_MAX_OPERATIONS)
    fail("BadOperationCount", `operation count ${n} at offset ${at} is not in 1..${V3_MAX_OPERATIONS}`, { offset: at });
  const nRoots = kind === V3_PROOF_KIND_BLOCK ? n - 1 : 0;
  if (n * V3_STATEMENT_CHECK_BYTES + nRoots * V3_ROOT_BYTES > r.remaining())
    fail(
      "OversizedCount",
      `operation count ${n} at offset ${at} needs at least ${n * V3_STATEMENT_CHECK_BYTES + nRoots * V3_ROOT_BYTES} bytes, only ${r.remaining()} remain`,
      { offset: at, count: n },
    );
  const statementChecks: [number, number][] = [];
  for (let j = 0; j < n; j++) statementChecks.push([r.fe(), r.fe()]);
  const roots: Digest[] = [];
  for (let j = 0; j < nRoots; j++) roots.push(r.digest());
  const pcsCommitment = embedded(r, "commitment", V3_MAX_COMMITMENT_BYTES, variant.decodeCommitment);
  const layers = variant.readLayers(r, fail);
  const opening = embedded(r, "opening", V3_MAX_OPENING_BYTES, variant.decodeOpening);
  const extra = r.remaining();
  if (extra !== 0) fail("TrailingBytes", `${extra} bytes follow the opening`, { extra });
  return {
    identity,
    proofKind: kind as 1 | 2,
    statementChecks,
    roots,
    commitment: pcsCommitment,
    proof: { layers } as unknown as Proof,
    opening,
  };
}

/**
 * True iff the bytes name proof_encoding_version 3 (bytes 8..10, little-endian, after the 8-byte
 * magic): the cheap test that picks the v3 decoder; the decoder checks everything else.
 */
export function hasV3Encoding(bytes: Uint8Array): boolean {
  const v = proofEncodingVersion(bytes);
  return v === V3_PROOF_ENCODING_VERSION || v === V3ZK_PROOF_ENCODING_VERSION;
}

/** True iff the bytes name proof_encoding_version 4 (inner-proof-v3zk, the zero-knowledge mode). */
export function hasV3ZkEncoding(bytes: Uint8Array): boolean {
  return proofEncodingVersion(bytes) === V3ZK_PROOF_ENCODING_VERSION;
}

/** The proof_encoding_version the bytes name (u16 LE at bytes 8..10, after the 8-byte magic), or undefined for fewer than 10 bytes or no bytes at all. */
export function proofEncodingVersion(bytes: Uint8Array): number | undefined {
  return bytes instanceof Uint8Array && bytes.length >= 10 ? bytes[8]! | (bytes[9]! << 8) : undefined;
}

/**
 * Whether a proof about a name is checked from its statement alone (profile v3): its bytes name
 * proof_encoding_version 3, or no request is given and they do not name compat-v1's version 1.
 * So damaged, empty or foreign bytes without a request are rejected by the v3 decoder (a
 * `DECODE_` verdict), never taken for a compat-v1 proof whose request is missing.
 * @example checkedFromStatement(new Uint8Array(0), false) // true: rejected DECODE_Truncated
 */
export function checkedFromStatement(bytes: Uint8Array, hasRequest: boolean): boolean {
  if (hasV3Encoding(bytes)) return true;
  if (hasRequest) return false;
  return proofEncodingVersion(bytes) !== PROOF_ENCODING_VERSION;
}

/**
 * Decodes one inner-proof-v3 message, strictly, in the order of docs/profile-v3.md §6.2.
 * @throws V3DecodeError; never anything else.
 */
export function decodeV3Message(bytes: Uint8Array): V3Message {
  return decodeWith(PLAIN, bytes, "decodeV3Message");
}

/**
 * Decodes one inner-proof-v3zk message, strictly, in the order of docs/profile-v3.md §11.9.
 * @throws V3DecodeError; never anything else.
 */
export function decodeV3ZkMessage(bytes: Uint8Array): V3ZkMessage {
  return decodeWith(ZK, bytes, "decodeV3ZkMessage");
}

function decodeWith<Proof extends { readonly layers: readonly unknown[] }>(
  variant: Variant<Proof>,
  bytes: Uint8Array,
  name: string,
): V3Parts<Proof> {
  if (!(bytes instanceof Uint8Array))
    fail("NotBytes", `${name} expects a Uint8Array, got ${bytes === null ? "null" : typeof bytes}`);
  try {
    return decodeUnguarded(variant, bytes);
  } catch (e) {
    if (e instanceof DecodeError) throw new V3DecodeError(e.code as V3DecodeErrorCode, e.message, { ...e.details });
    throw e;
  }
}
