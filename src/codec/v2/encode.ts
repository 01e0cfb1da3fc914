/**
 * inner-proof-v2 encoder (docs/profile-v2.md §9): validates first, then writes the layout.
 */
import type { GkrProof } from "../../gkr/proof.js";
import type { PublicInputs } from "../../statement/types.js";
import { ByteWriter } from "../writer.js";
import { V2EncodeError } from "./errors.js";
import { V2_VERSIONS, writeHeader } from "./header.js";
import { checkLayers, layersSize, writeLayers, type LayerEncodeCode } from "./layers.js";
import {
  V2_LAYERS_OFFSET,
  V2_MAX_AGGREGATE,
  V2_PROOF_KIND_AGGREGATE,
  V2_PROOF_KIND_SINGLE,
  V2_STATEMENT_CHECK_BYTES,
  type V2CircuitIdentity,
} from "./layout.js";

/** Exact encoded size of a single-operation proof (170 + Σ (36 + 128·s)); `operations` > 0 gives the aggregate size. */
export function encodedSizeV2(proof: GkrProof, operations = 0): number {
  return (operations > 0 ? 61 + 4 + V2_STATEMENT_CHECK_BYTES * operations : V2_LAYERS_OFFSET) + layersSize(proof);
}

function layerFail(code: LayerEncodeCode, message: string, details: Record<string, unknown>): never {
  throw new V2EncodeError(code, message, details);
}

/**
 * Encodes (identity, public inputs, proof) as one inner-proof-v2 message.
 * @throws V2EncodeError `BadRoundPolyArity{layer, round, got}` (not exactly 5 coefficients),
 *   `BadRoundCount{layer}` (odd), `NonZeroHighCoefficient{layer, round}` (a y round with a_3 or
 *   a_4 ≠ 0), `NonCanonicalFieldElement`, `BadIdentity` (a header field out of its range),
 *   `CountOverflow`, `MessageTooLong`.
 */
export function encodeProofV2(identity: V2CircuitIdentity, pub: PublicInputs, proof: GkrProof): Uint8Array {
  return encodeMessage(identity, [pub], proof);
}

/**
 * Encodes an aggregate (proof_kind 1): identity, n = checks.length (1..4096), the statement
 * checks in order (2 fe each), the proof. Errors as `encodeProofV2`, plus `BadOperationCount`.
 */
export function encodeAggregateV2(
  identity: V2CircuitIdentity,
  checks: readonly (readonly [number, number])[],
  proof: GkrProof,
): Uint8Array {
  if (checks.length < 1 || checks.length > V2_MAX_AGGREGATE)
    throw new V2EncodeError(
      "BadOperationCount",
      `an aggregate carries 1..${V2_MAX_AGGREGATE} operations, got ${checks.length}`,
    );
  return encodeMessage(identity, [], proof, checks);
}

function encodeMessage(
  identity: V2CircuitIdentity,
  statements: readonly PublicInputs[],
  proof: GkrProof,
  checks: readonly (readonly [number, number])[] | null = null,
): Uint8Array {
  const aggregate = checks !== null;
  const idOk =
    Number.isInteger(identity.opKindTag) &&
    identity.opKindTag >= 0 &&
    identity.opKindTag <= 2 &&
    statements.every(
      (pub) =>
        pub.opKindTag === identity.opKindTag &&
        typeof pub.assetId === "bigint" &&
        pub.assetId >= 0n &&
        pub.assetId < 1n << 64n,
    ) &&
    Number.isInteger(identity.depth) &&
    identity.depth >= 0 &&
    identity.depth <= 0xffffffff &&
    Number.isInteger(identity.leafMaxFields) &&
    identity.leafMaxFields >= 0 &&
    identity.leafMaxFields <= 0xffff &&
    [identity.circuitVersion, identity.leafEncodingVersion].every(
      (x) => Number.isInteger(x) && x >= 0 && x <= 0xffff,
    ) &&
    Number.isInteger(identity.layoutId) &&
    identity.layoutId >= 0 &&
    identity.layoutId <= 0xff;
  if (!idOk)
    throw new V2EncodeError(
      "BadIdentity",
      "identity or statement field out of range (op kind 0..2 and equal, depth u32, circuit and leaf encoding versions u16, leaf_max_fields u16, layout id u8, asset_id u64)",
    );
  checkLayers(proof, layerFail);
  const size = encodedSizeV2(proof, checks ? checks.length : 0);
  if (size > 0xffffffff) throw new V2EncodeError("MessageTooLong", `message of ${size} bytes exceeds u32`);
  const w = new ByteWriter(size, layerFail);
  writeHeader(
    w.bytes,
    w.dataView,
    V2_VERSIONS,
    aggregate ? V2_PROOF_KIND_AGGREGATE : V2_PROOF_KIND_SINGLE,
    size,
    identity,
  );
  w.pos = 29;
  w.digest(identity.commitment);
  if (checks) {
    w.u32(checks.length);
    for (const [a, b] of checks) {
      w.fe(a);
      w.fe(b);
    }
  }
  for (const pub of statements) {
    w.digest(pub.oldRoot);
    w.digest(pub.newRoot);
    w.u8(pub.opKindTag);
    w.u64(pub.assetId);
    w.digest(pub.valueDigest);
  }
  writeLayers(w, proof);
  return w.bytes;
}
