/**
 * inner-proof-v1 encoder (compat-v1 §14.1, §14.2; `encode_sync_result` of §13.3).
 */
import { P, isCanonical } from "../field/koalabear.js";
import type { GkrProof } from "../gkr/proof.js";
import type { CircuitIdentity, PublicInputs } from "../statement/types.js";
import { EncodeError } from "./errors.js";
import {
  CIRCUIT_VERSION,
  EF_BYTES,
  FE_BYTES,
  LEAF_ENCODING_VERSION,
  MAGIC,
  MAX_OP_KIND_TAG,
  OFFSET,
  PROOF_ENCODING_VERSION,
  PROOF_KIND_INNER_GKR,
  PROTOCOL_VERSION,
  ROUND_POLY_COEFFS,
  STRATEGY_A,
  U16_MAX,
  U32_MAX,
} from "./layout.js";
import { encodedProofSize } from "./size.js";
import type { EncodedResult } from "./types.js";

const U64_LIMIT = 1n << 64n;

/**
 * Encodes a sync result as an inner-proof-v1 message (compat-v1 §14.1), little-endian, total length
 * at offset 13. Round polynomials are written exactly as given (5 coefficients each, trailing zeros
 * kept), so `encodeProof(decodeProof(b))` reproduces `b` byte for byte, and every output of this
 * function is accepted by `decodeProof`.
 *
 * Validation happens before anything is written, in this order: the proof's counts and round arity,
 * the identity, the statement, the total length; field values of the proof are checked as they are written.
 *
 * @param result identity (§13.3 circuit_identity), public inputs (§6.5; asset_id a u64 bigint) and GKR proof.
 * @returns the message bytes; length = 170 + Σ_layers (36 + 81·rounds).
 * @throws EncodeError `BadRoundPolyArity{layer, round, got}` if a round polynomial does not have exactly 5
 *   coefficients; `CountOverflow` if a layer/round count or the depth exceeds u32 or leaf_max_fields exceeds u16;
 *   `MessageTooLong{length}` above 2^32 − 1 bytes; `NonCanonicalFieldElement{what}` for a value outside [0, p);
 *   `UnknownOpKindTag`, `OpKindMismatch`, `UnsupportedCircuitVersion`, `UnsupportedLeafEncodingVersion`,
 *   `UnsupportedLayerStrategy` for an identity/statement the decoder would refuse; `InvalidValue` for a wrong shape.
 */
export function encodeProof(result: EncodedResult): Uint8Array {
  for (const part of ["identity", "publicInputs", "proof"] as const) {
    if (result === null || typeof result !== "object" || result[part] === null || typeof result[part] !== "object") {
      throw new EncodeError("InvalidValue", `result.${part} must be an object`, { what: part });
    }
  }
  const { identity, publicInputs, proof } = result;
  validateProofShape(proof);
  validateIdentity(identity);
  validateStatement(publicInputs, identity.opKindTag);

  const length = encodedProofSize(proof);
  if (length > U32_MAX) {
    throw new EncodeError("MessageTooLong", `encoded proof would be ${length} bytes, above the u32 limit ${U32_MAX}`, {
      length,
    });
  }

  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, OFFSET.magic);
  view.setUint16(OFFSET.proofEncodingVersion, PROOF_ENCODING_VERSION, true);
  view.setUint16(OFFSET.protocolVersion, PROTOCOL_VERSION, true);
  view.setUint8(OFFSET.proofKind, PROOF_KIND_INNER_GKR);
  view.setUint32(OFFSET.totalLength, length, true);

  view.setUint8(OFFSET.identityOpKindTag, identity.opKindTag);
  view.setUint32(OFFSET.depth, identity.depth, true);
  view.setUint16(OFFSET.circuitVersion, identity.circuitVersion, true);
  view.setUint16(OFFSET.leafEncodingVersion, identity.leafEncodingVersion, true);
  view.setUint16(OFFSET.leafMaxFields, identity.leafMaxFields, true);
  view.setUint8(OFFSET.strategyId, identity.strategyId);
  writeDigest(view, OFFSET.commitment, identity.commitment);

  writeDigest(view, OFFSET.oldRoot, publicInputs.oldRoot);
  writeDigest(view, OFFSET.newRoot, publicInputs.newRoot);
  view.setUint8(OFFSET.statementOpKindTag, publicInputs.opKindTag);
  view.setUint32(OFFSET.assetIdLow, Number(publicInputs.assetId & 0xffffffffn), true);
  view.setUint32(OFFSET.assetIdHigh, Number(publicInputs.assetId >> 32n), true);
  writeDigest(view, OFFSET.valueDigest, publicInputs.valueDigest);

  const layers = proof.layers;
  view.setUint32(OFFSET.layerCount, layers.length, true);
  let pos = OFFSET.layers;
  for (let l = 0; l < layers.length; l++) {
    const { rounds, evalX, evalY } = layers[l]!;
    view.setUint32(pos, rounds.length, true);
    pos += 4;
    for (let r = 0; r < rounds.length; r++) {
      const poly = rounds[r]!;
      view.setUint8(pos, ROUND_POLY_COEFFS);
      pos += 1;
      for (let m = 0; m < ROUND_POLY_COEFFS; m++) {
        writeExt(view, pos, poly[m], () => `layers[${l}].rounds[${r}][${m}]`);
        pos += EF_BYTES;
      }
    }
    writeExt(view, pos, evalX, () => `layers[${l}].evalX`);
    pos += EF_BYTES;
    writeExt(view, pos, evalY, () => `layers[${l}].evalY`);
    pos += EF_BYTES;
  }
  if (pos !== length)
    throw new EncodeError("SizeMismatch", `inner-proof-v1 encoder wrote ${pos} bytes, sized ${length}`, {
      wrote: pos,
      sized: length,
    });
  return out;
}

/** Counts fit u32 and every round polynomial has exactly 5 coefficients. */
function validateProofShape(proof: GkrProof): void {
  const layers = proof.layers;
  if (layers === null || typeof layers !== "object" || !Number.isSafeInteger(layers.length)) {
    throw new EncodeError("InvalidValue", "proof.layers must be an array of layer proofs", { what: "proof.layers" });
  }
  checkCount(layers.length, "layer count");
  for (let l = 0; l < layers.length; l++) {
    const rounds = layers[l]?.rounds;
    if (rounds === null || typeof rounds !== "object" || !Number.isSafeInteger(rounds.length)) {
      throw new EncodeError("InvalidValue", `layers[${l}].rounds must be an array of round polynomials`, {
        what: `layers[${l}].rounds`,
      });
    }
    checkCount(rounds.length, `layers[${l}] round count`);
    for (let r = 0; r < rounds.length; r++) {
      const got = rounds[r]?.length;
      if (got !== ROUND_POLY_COEFFS) {
        throw new EncodeError(
          "BadRoundPolyArity",
          `layer ${l} round ${r}: a round polynomial must have exactly ${ROUND_POLY_COEFFS} coefficients on the wire, got ${String(got)}`,
          { layer: l, round: r, got },
        );
      }
    }
  }
}

function checkCount(n: number, what: string): void {
  if (n > U32_MAX)
    throw new EncodeError("CountOverflow", `${what} ${n} does not fit a u32 (max ${U32_MAX})`, {
      what,
      value: n,
      max: U32_MAX,
    });
}

function validateIdentity(id: CircuitIdentity): void {
  checkOpKindTag(id.opKindTag, "identity.opKindTag");
  checkUint(id.depth, U32_MAX, "identity.depth");
  if (id.circuitVersion !== CIRCUIT_VERSION) {
    throw new EncodeError(
      "UnsupportedCircuitVersion",
      `circuit_version must be ${CIRCUIT_VERSION}, got ${String(id.circuitVersion)}`,
      { version: id.circuitVersion },
    );
  }
  if (id.leafEncodingVersion !== LEAF_ENCODING_VERSION) {
    throw new EncodeError(
      "UnsupportedLeafEncodingVersion",
      `leaf_encoding_version must be ${LEAF_ENCODING_VERSION}, got ${String(id.leafEncodingVersion)}`,
      {
        version: id.leafEncodingVersion,
      },
    );
  }
  checkUint(id.leafMaxFields, U16_MAX, "identity.leafMaxFields");
  if (id.strategyId !== STRATEGY_A) {
    throw new EncodeError(
      "UnsupportedLayerStrategy",
      `layer strategy id must be ${STRATEGY_A} (A), got ${String(id.strategyId)}`,
      { strategy: id.strategyId },
    );
  }
  checkDigest(id.commitment, "identity.commitment");
}

function validateStatement(pi: PublicInputs, identityTag: number): void {
  checkDigest(pi.oldRoot, "publicInputs.oldRoot");
  checkDigest(pi.newRoot, "publicInputs.newRoot");
  checkOpKindTag(pi.opKindTag, "publicInputs.opKindTag");
  if (pi.opKindTag !== identityTag) {
    throw new EncodeError(
      "OpKindMismatch",
      `statement op_kind_tag ${pi.opKindTag} differs from identity op_kind_tag ${identityTag}`,
      {
        identity: identityTag,
        statement: pi.opKindTag,
      },
    );
  }
  const a = pi.assetId;
  if (typeof a !== "bigint" || a < 0n || a >= U64_LIMIT) {
    throw new EncodeError("InvalidValue", `publicInputs.assetId must be a bigint u64, got ${String(a)}`, {
      what: "publicInputs.assetId",
      value: String(a),
    });
  }
  checkDigest(pi.valueDigest, "publicInputs.valueDigest");
}

function checkOpKindTag(t: number, what: string): void {
  if (!Number.isInteger(t) || t < 0 || t > MAX_OP_KIND_TAG) {
    throw new EncodeError("UnknownOpKindTag", `${what} must be 0, 1 or 2, got ${String(t)}`, { what, value: t });
  }
}

function checkUint(v: number, max: number, what: string): void {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw new EncodeError("InvalidValue", `${what} must be a non-negative integer, got ${String(v)}`, {
      what,
      value: v,
    });
  }
  if (v > max)
    throw new EncodeError("CountOverflow", `${what} ${v} does not fit (max ${max})`, { what, value: v, max });
}

function checkDigest(d: ArrayLike<number>, what: string): void {
  if (d === null || typeof d !== "object" || d.length !== 8) {
    throw new EncodeError("InvalidValue", `${what} must have 8 elements, got ${String(d?.length)}`, { what });
  }
  for (let i = 0; i < 8; i++) {
    if (!isCanonical(d[i])) {
      throw new EncodeError(
        "NonCanonicalFieldElement",
        `${what}[${i}] must be an integer in [0, p = ${P}), got ${String(d[i])}`,
        { what: `${what}[${i}]`, value: d[i] },
      );
    }
  }
}

function writeDigest(view: DataView, pos: number, d: ArrayLike<number>): void {
  for (let i = 0; i < 8; i++) view.setUint32(pos + FE_BYTES * i, d[i]!, true);
}

function writeExt(view: DataView, pos: number, e: ArrayLike<number> | undefined, what: () => string): void {
  if (e === null || typeof e !== "object" || e.length !== 4) {
    throw new EncodeError("InvalidValue", `${what()} must be an extension element of 4 coefficients`, { what: what() });
  }
  for (let c = 0; c < 4; c++) {
    const v = e[c];
    if (!isCanonical(v)) {
      throw new EncodeError(
        "NonCanonicalFieldElement",
        `${what()}.c${c} must be an integer in [0, p = ${P}), got ${String(v)}`,
        { what: `${what()}.c${c}`, value: v },
      );
    }
    view.setUint32(pos + FE_BYTES * c, v, true);
  }
}
