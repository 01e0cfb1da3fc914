/**
 * Encoded profile v2 proofs (docs/profile-v2.md §9): `encodeV2` with the prepared identity and
 * `verifyEncodedV2` = strict decode → identity check → `verifyV2`.
 */
import { digestEquals } from "../../hash/digest.js";
import { decodeProofV2, type V2EncodedResult } from "../../codec/v2/decode.js";
import { encodeProofV2 } from "../../codec/v2/encode.js";
import { V2DecodeError } from "../../codec/v2/errors.js";
import {
  V2_CIRCUIT_VERSION,
  V2_LAYOUT_ID,
  V2_LEAF_ENCODING_VERSION,
  type V2CircuitIdentity,
} from "../../codec/v2/layout.js";
import type { OpRequest } from "../../smt/operation.js";
import type { SyncResult } from "../prove.js";
import { opKindTag } from "../../statement/types.js";
import type { PreparedV2 } from "./prepared.js";
import { type V2Verdict, verifyV2 } from "./verify.js";

/** The identity a v2 proof of this prepared circuit carries. */
export function v2Identity(prepared: PreparedV2): V2CircuitIdentity {
  return {
    opKindTag: opKindTag(prepared.kind),
    depth: prepared.config.depth,
    circuitVersion: V2_CIRCUIT_VERSION,
    leafEncodingVersion: V2_LEAF_ENCODING_VERSION,
    leafMaxFields: prepared.config.leafMaxFields,
    layoutId: V2_LAYOUT_ID,
    commitment: prepared.commitment,
  };
}

/** inner-proof-v2 bytes of a result. @throws V2EncodeError. */
export function encodeV2(prepared: PreparedV2, result: SyncResult): Uint8Array {
  return encodeProofV2(v2Identity(prepared), result.publicInputs, result.proof);
}

/** Field-by-field equality of two circuit identities (profiles v2 and v3 share the fields). */
export function identityEqual(a: V2CircuitIdentity, b: V2CircuitIdentity): boolean {
  return (
    a.opKindTag === b.opKindTag &&
    a.depth === b.depth &&
    a.circuitVersion === b.circuitVersion &&
    a.leafEncodingVersion === b.leafEncodingVersion &&
    a.leafMaxFields === b.leafMaxFields &&
    a.layoutId === b.layoutId &&
    digestEquals(a.commitment, b.commitment)
  );
}

/**
 * Verifies inner-proof-v2 bytes against the original request: `DECODE_<code>` for bytes the
 * strict decoder refuses, `IDENTITY_MISMATCH` when the decoded identity is not the prepared one,
 * then the codes of `verifyV2`.
 * @example
 *   verifyEncodedV2(prepared, request, encodeV2(prepared, proveV2(prepared, request))); // { ok: true }
 */
export function verifyEncodedV2(prepared: PreparedV2, request: OpRequest, bytes: Uint8Array): V2Verdict {
  let decoded: V2EncodedResult;
  try {
    decoded = decodeProofV2(bytes);
  } catch (e) {
    if (e instanceof V2DecodeError) return { ok: false, code: `DECODE_${e.code}`, reason: e.message };
    throw e;
  }
  if (!identityEqual(decoded.identity, v2Identity(prepared)))
    return {
      ok: false,
      code: "IDENTITY_MISMATCH",
      reason: "the proof's circuit identity is not the prepared circuit's",
    };
  return verifyV2(prepared, request, { publicInputs: decoded.publicInputs, proof: decoded.proof });
}
