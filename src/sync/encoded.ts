/**
 * encode_sync_result and verify_encoded_sync_op (compat-v1 §13.3): the inner-proof-v1 bytes of a
 * result, and strict verification of bytes against the original request.
 */
import { decodeProof } from "../codec/decode.js";
import { encodeProof } from "../codec/encode.js";
import { DecodeError } from "../codec/errors.js";
import { identityEquals } from "../codec/identity.js";
import type { OpRequest } from "../smt/operation.js";
import type { PreparedSync } from "./prepared.js";
import type { SyncResult } from "./prove.js";
import { type SyncVerdict, verifyPrepared } from "./verify.js";

/** inner-proof-v1 bytes of a result, with the prepared circuit's identity. */
export function encodeSyncResult(prepared: PreparedSync, result: SyncResult): Uint8Array {
  return encodeProof({ identity: prepared.identity, publicInputs: result.publicInputs, proof: result.proof });
}

/**
 * Strict decode (decoder error names as codes, e.g. `Truncated`), then the decoded circuit
 * identity must equal the prepared one in all seven fields (`IDENTITY_MISMATCH`), then
 * `verifyPrepared` with the decoded public inputs and proof against the original request.
 */
export function verifyEncoded(prepared: PreparedSync, request: OpRequest, bytes: Uint8Array): SyncVerdict {
  let decoded;
  try {
    decoded = decodeProof(bytes);
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, code: err.code, reason: err.message };
    throw err;
  }
  if (!identityEquals(decoded.identity, prepared.identity)) {
    return { ok: false, code: "IDENTITY_MISMATCH", reason: "the proof was made for another circuit (kind, depth, leaf bound, strategy or commitment differ)" };
  }
  return verifyPrepared(prepared, request, { publicInputs: decoded.publicInputs, proof: decoded.proof });
}
