/**
 * Strict inner-proof-v1 decoder (compat-v1 §14.3): stateless, fail-closed, checks in exactly the
 * order the specification lists them.
 */
import type { Ext } from "../field/extension.js";
import type { LayerProof, RoundPoly } from "../gkr/proof.js";
import { DecodeError } from "./errors.js";
import {
  CIRCUIT_VERSION,
  HEADER_BYTES,
  LAYER_EVALS_BYTES,
  LAYER_FIXED_BYTES,
  LEAF_ENCODING_VERSION,
  MAGIC,
  MAX_OP_KIND_TAG,
  OFFSET,
  PROOF_ENCODING_VERSION,
  PROOF_KIND_INNER_GKR,
  PROTOCOL_VERSION,
  ROUND_BYTES,
  ROUND_POLY_COEFFS,
  STRATEGY_A,
} from "./layout.js";
import { ByteReader } from "./reader.js";
import type { EncodedResult } from "./types.js";

/**
 * Decodes one inner-proof-v1 message (compat-v1 §14.1) into identity, public inputs and GKR proof.
 *
 * Checks, in this order (compat-v1 §14.3): header length; magic; proof_encoding_version = 1;
 * protocol_version = 1; proof_kind = 0; declared total length = buffer length; identity op kind ≤ 2;
 * circuit_version = 1; leaf_encoding_version = 1; strategy = 0; commitment, old_root, new_root canonical;
 * statement op kind ≤ 2 and = identity op kind; value_digest canonical; layer count n with n·36 ≤ bytes
 * left (checked before allocating); per layer a round count m with m·81 + 32 ≤ bytes left, each round's
 * coefficient count = 5, all coefficients and evaluations canonical; no trailing bytes. Any read past the
 * end fails with `Truncated{offset}` at the start of the field being read. The decoder does not check
 * shapes against a circuit or the truth of the commitment (the verifying side does, §13.3).
 *
 * Round polynomials come back with exactly 5 coefficients each; `encodeProof` of the result reproduces
 * the input bytes. Works on any `Uint8Array` view (including a `Buffer` slice); never mutates it.
 *
 * @param bytes the message, length in bytes ≤ 2^32 − 1.
 * @throws DecodeError with `code` one of the spec's names (`HeaderTooShort{have}`, `BadMagic`,
 *   `UnsupportedProofEncodingVersion{version}`, `UnsupportedProtocolVersion{version}`,
 *   `UnsupportedProofKind{kind}`, `DeclaredLengthMismatch{declared, actual}`, `UnknownOpKindTag{tag, offset}`,
 *   `UnsupportedCircuitVersion{version}`, `UnsupportedLeafEncodingVersion{version}`,
 *   `UnsupportedLayerStrategy{strategy}`, `NonCanonicalFieldElement{offset}`, `OpKindMismatch{identity, statement}`,
 *   `OversizedCount{offset}`, `BadRoundPolyArity{layer, round, got}`, `TrailingBytes{extra}`, `Truncated{offset}`),
 *   or `NotBytes` if `bytes` is not a `Uint8Array`. Never throws anything else.
 */
export function decodeProof(bytes: Uint8Array): EncodedResult {
  if (!(bytes instanceof Uint8Array)) {
    throw new DecodeError("NotBytes", `decodeProof expects a Uint8Array, got ${describe(bytes)}`);
  }
  const len = bytes.byteLength;
  // 1. header length
  if (len < HEADER_BYTES) {
    throw new DecodeError("HeaderTooShort", `message is ${len} bytes, shorter than the ${HEADER_BYTES}-byte header`, {
      have: len,
    });
  }
  const r = new ByteReader(bytes);
  // 2. magic
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i]) throw new DecodeError("BadMagic", "bytes 0..8 are not the magic SSGKRPRF");
  }
  r.pos = OFFSET.proofEncodingVersion;
  // 3. proof_encoding_version
  const encVersion = r.u16();
  if (encVersion !== PROOF_ENCODING_VERSION) {
    throw new DecodeError(
      "UnsupportedProofEncodingVersion",
      `proof_encoding_version ${encVersion} is not supported (only ${PROOF_ENCODING_VERSION})`,
      {
        version: encVersion,
      },
    );
  }
  // 4. protocol_version
  const protoVersion = r.u16();
  if (protoVersion !== PROTOCOL_VERSION) {
    throw new DecodeError(
      "UnsupportedProtocolVersion",
      `protocol_version ${protoVersion} is not supported (only ${PROTOCOL_VERSION})`,
      { version: protoVersion },
    );
  }
  // 5. proof_kind
  const kind = r.u8();
  if (kind !== PROOF_KIND_INNER_GKR) {
    throw new DecodeError(
      "UnsupportedProofKind",
      `proof_kind ${kind} is not supported (only ${PROOF_KIND_INNER_GKR}, inner GKR)`,
      { kind },
    );
  }
  // 6. declared total length
  const declared = r.u32();
  if (declared !== len) {
    throw new DecodeError("DeclaredLengthMismatch", `header declares ${declared} bytes, buffer has ${len}`, {
      declared,
      actual: len,
    });
  }
  // 7. identity op kind
  const idTag = r.u8();
  if (idTag > MAX_OP_KIND_TAG) {
    throw new DecodeError(
      "UnknownOpKindTag",
      `identity op_kind_tag ${idTag} at offset ${OFFSET.identityOpKindTag} is not 0, 1 or 2`,
      {
        tag: idTag,
        offset: OFFSET.identityOpKindTag,
      },
    );
  }
  // 8. rest of the identity
  const depth = r.u32();
  const circuitVersion = r.u16();
  if (circuitVersion !== CIRCUIT_VERSION) {
    throw new DecodeError(
      "UnsupportedCircuitVersion",
      `circuit_version ${circuitVersion} is not supported (only ${CIRCUIT_VERSION})`,
      { version: circuitVersion },
    );
  }
  const leafEncodingVersion = r.u16();
  if (leafEncodingVersion !== LEAF_ENCODING_VERSION) {
    throw new DecodeError(
      "UnsupportedLeafEncodingVersion",
      `leaf_encoding_version ${leafEncodingVersion} is not supported (only ${LEAF_ENCODING_VERSION})`,
      {
        version: leafEncodingVersion,
      },
    );
  }
  const leafMaxFields = r.u16();
  const strategyId = r.u8();
  if (strategyId !== STRATEGY_A) {
    throw new DecodeError(
      "UnsupportedLayerStrategy",
      `layer strategy id ${strategyId} is not supported (only ${STRATEGY_A}, strategy A)`,
      { strategy: strategyId },
    );
  }
  // 9. commitment, old_root, new_root
  const commitment = r.digest();
  const oldRoot = r.digest();
  const newRoot = r.digest();
  // 10. statement op kind
  const stTag = r.u8();
  if (stTag > MAX_OP_KIND_TAG) {
    throw new DecodeError(
      "UnknownOpKindTag",
      `statement op_kind_tag ${stTag} at offset ${OFFSET.statementOpKindTag} is not 0, 1 or 2`,
      {
        tag: stTag,
        offset: OFFSET.statementOpKindTag,
      },
    );
  }
  if (stTag !== idTag) {
    throw new DecodeError(
      "OpKindMismatch",
      `statement op_kind_tag ${stTag} differs from identity op_kind_tag ${idTag}`,
      { identity: idTag, statement: stTag },
    );
  }
  // 11. asset_id halves, value_digest
  const assetLow = r.u32();
  const assetHigh = r.u32();
  const valueDigest = r.digest();
  // 12. layer count, bounded by the bytes left before allocating
  const layerCountAt = r.pos;
  const n = r.u32();
  checkCount(n, LAYER_FIXED_BYTES, 0, layerCountAt, r.remaining());
  const layers: LayerProof[] = new Array(n);
  // 13. layers
  for (let l = 0; l < n; l++) {
    const roundCountAt = r.pos;
    const m = r.u32();
    checkCount(m, ROUND_BYTES, LAYER_EVALS_BYTES, roundCountAt, r.remaining());
    const rounds: RoundPoly[] = new Array(m);
    for (let k = 0; k < m; k++) {
      const got = r.u8();
      if (got !== ROUND_POLY_COEFFS) {
        throw new DecodeError(
          "BadRoundPolyArity",
          `layer ${l} round ${k}: coefficient count ${got} at offset ${r.pos - 1}, must be ${ROUND_POLY_COEFFS}`,
          {
            layer: l,
            round: k,
            got,
          },
        );
      }
      const coeffs: Ext[] = new Array(ROUND_POLY_COEFFS);
      for (let c = 0; c < ROUND_POLY_COEFFS; c++) coeffs[c] = r.ef();
      rounds[k] = coeffs;
    }
    const evalX = r.ef();
    const evalY = r.ef();
    layers[l] = { rounds, evalX, evalY };
  }
  // 14. nothing left
  const extra = r.remaining();
  if (extra !== 0) throw new DecodeError("TrailingBytes", `${extra} bytes follow the last layer`, { extra });

  return {
    identity: { opKindTag: idTag, depth, circuitVersion, leafEncodingVersion, leafMaxFields, strategyId, commitment },
    publicInputs: {
      oldRoot,
      newRoot,
      opKindTag: stTag,
      assetId: (BigInt(assetHigh) << 32n) | BigInt(assetLow),
      valueDigest,
    },
    proof: { layers },
  };
}

/**
 * `count·unit + tail > remaining` → OversizedCount at the count's offset. count < 2^32 and unit ≤ 81,
 * so the product is below 2^39 and exact in a double.
 */
function checkCount(count: number, unit: number, tail: number, offset: number, remaining: number): void {
  if (count * unit + tail > remaining) {
    throw new DecodeError(
      "OversizedCount",
      `count ${count} at offset ${offset} needs at least ${count * unit + tail} bytes, only ${remaining} remain`,
      {
        offset,
        count,
        remaining,
      },
    );
  }
}

function describe(x: unknown): string {
  return x === null ? "null" : Array.isArray(x) ? "array" : typeof x;
}
