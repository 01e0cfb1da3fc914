/**
 * The fixed start of inner-proof-v2 and -v3 messages (docs/profile-v2.md §9, docs/profile-v3.md
 * §6): magic, proof encoding and protocol versions, proof kind, total length, then the circuit
 * identity (op kind, depth, circuit and leaf encoding versions, leaf bound, layout id, circuit
 * commitment) — 61 bytes, read and written here for both profiles with their own versions.
 */
import type { ByteReader } from "../reader.js";
import { MAGIC } from "../layout.js";
import {
  V2_CIRCUIT_VERSION,
  V2_HEADER_BYTES,
  V2_LAYOUT_ID,
  V2_LEAF_ENCODING_VERSION,
  V2_PROOF_ENCODING_VERSION,
  V2_PROTOCOL_VERSION,
  type V2CircuitIdentity,
} from "./layout.js";

/** The versions a profile's messages carry. */
export interface HeaderVersions {
  /** `inner-proof-v2`, `inner-proof-v3`: named in the version mismatch. */
  readonly name: string;
  readonly encoding: number;
  readonly protocol: number;
  readonly circuit: number;
}

/** The versions of inner-proof-v2. */
export const V2_VERSIONS: HeaderVersions = Object.freeze({
  name: "inner-proof-v2",
  encoding: V2_PROOF_ENCODING_VERSION,
  protocol: V2_PROTOCOL_VERSION,
  circuit: V2_CIRCUIT_VERSION,
});

/** Decoder failure codes of the header. */
export type HeaderDecodeCode =
  | "HeaderTooShort"
  | "BadMagic"
  | "UnsupportedProofEncodingVersion"
  | "UnsupportedProtocolVersion"
  | "UnsupportedProofKind"
  | "DeclaredLengthMismatch"
  | "UnknownOpKindTag"
  | "UnsupportedCircuitVersion"
  | "UnsupportedLeafEncodingVersion"
  | "UnsupportedLayout";

/**
 * Writes bytes 0..29 (everything but the commitment, which the caller writes as canonical
 * elements at 29).
 */
export function writeHeader(
  out: Uint8Array,
  v: DataView,
  versions: HeaderVersions,
  proofKind: number,
  size: number,
  identity: V2CircuitIdentity,
): void {
  out.set(MAGIC, 0);
  v.setUint16(8, versions.encoding, true);
  v.setUint16(10, versions.protocol, true);
  out[12] = proofKind;
  v.setUint32(13, size, true);
  out[V2_HEADER_BYTES] = identity.opKindTag;
  v.setUint32(18, identity.depth, true);
  v.setUint16(22, identity.circuitVersion, true);
  v.setUint16(24, identity.leafEncodingVersion, true);
  v.setUint16(26, identity.leafMaxFields, true);
  out[28] = identity.layoutId;
}

/**
 * Reads the 61-byte start with the reader at 0, in the decoders' order: length ≥ 17, magic,
 * versions, the proof kind (`kindProblem` names what is wrong with it, or null), declared length,
 * op kind tag, depth, circuit and leaf encoding versions, leaf bound, layout id, commitment
 * (canonical). Leaves the reader at 61.
 */
export function readHeader(
  bytes: Uint8Array,
  r: ByteReader,
  versions: HeaderVersions,
  kindProblem: (kind: number) => string | null,
  fail: (code: HeaderDecodeCode, message: string, details: Record<string, unknown>) => never,
): { proofKind: number; identity: V2CircuitIdentity } {
  const len = bytes.byteLength;
  if (len < V2_HEADER_BYTES)
    fail("HeaderTooShort", `message is ${len} bytes, shorter than the ${V2_HEADER_BYTES}-byte header`, { have: len });
  for (let i = 0; i < MAGIC.length; i++)
    if (bytes[i] !== MAGIC[i]) fail("BadMagic", "bytes 0..8 are not the magic SSGKRPRF", {});
  r.pos = 8;
  const enc = r.u16();
  if (enc !== versions.encoding)
    fail(
      "UnsupportedProofEncodingVersion",
      `proof_encoding_version ${enc} is not ${versions.name} (${versions.encoding})`,
      { version: enc },
    );
  const proto = r.u16();
  if (proto !== versions.protocol)
    fail("UnsupportedProtocolVersion", `protocol_version ${proto} is not ${versions.protocol}`, { version: proto });
  const kind = r.u8();
  const kindWhy = kindProblem(kind);
  if (kindWhy !== null) fail("UnsupportedProofKind", `proof_kind ${kind} ${kindWhy}`, { kind });
  const declared = r.u32();
  if (declared !== len)
    fail("DeclaredLengthMismatch", `header declares ${declared} bytes, buffer has ${len}`, { declared, actual: len });
  const idTag = r.u8();
  if (idTag > 2)
    fail("UnknownOpKindTag", `identity op_kind_tag ${idTag} at offset 17 is not 0, 1 or 2`, { tag: idTag, offset: 17 });
  const depth = r.u32();
  const circuitVersion = r.u16();
  if (circuitVersion !== versions.circuit)
    fail("UnsupportedCircuitVersion", `circuit_version ${circuitVersion} is not ${versions.circuit}`, {
      version: circuitVersion,
    });
  const leafEncodingVersion = r.u16();
  if (leafEncodingVersion !== V2_LEAF_ENCODING_VERSION)
    fail(
      "UnsupportedLeafEncodingVersion",
      `leaf_encoding_version ${leafEncodingVersion} is not ${V2_LEAF_ENCODING_VERSION}`,
      { version: leafEncodingVersion },
    );
  const leafMaxFields = r.u16();
  const layoutId = r.u8();
  if (layoutId !== V2_LAYOUT_ID)
    fail("UnsupportedLayout", `layout id ${layoutId} is not supported (0)`, { layout: layoutId });
  const commitment = r.digest();
  return {
    proofKind: kind,
    identity: { opKindTag: idTag, depth, circuitVersion, leafEncodingVersion, leafMaxFields, layoutId, commitment },
  };
}
