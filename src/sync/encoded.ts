/**
 * encode_sync_result and verify_encoded_sync_op (compat-v1 §13.3): the inner-proof-v1 bytes of a
 * result, and strict verification of bytes against the original request.
 */
import { decodeProof } from "../codec/decode.js";
import { encodeProof } from "../codec/encode.js";
import { DecodeError } from "../codec/errors.js";
import { identityEquals } from "../codec/identity.js";
import type { EncodedResult } from "../codec/types.js";
import type { OpRequest } from "../smt/operation.js";
import { maxProofBytes } from "./limits.js";
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
 * Bytes longer than `maxProofBytes` for the prepared configuration are rejected before
 * decoding (`PROOF_TOO_LARGE`). Never throws for bad bytes or a bad request.
 *
 * **Roots are not pinned.** `{ ok: true }` means: the statement holds for the roots in
 * `request` (old_root, new_root). A prover can invent a self-consistent tree, so the verdict says
 * nothing about whether those roots are the registry's: compare `request.publicInputs.oldRoot`
 * (and `newRoot`) with a root you trust (the CLI's `ssgkr verify --expect-old-root`). See
 * docs/security.md for what an accepted proof establishes.
 *
 * @param prepared the circuit of the request's kind and configuration (`prepare`, `PreparedCache`).
 * @param bytes inner-proof-v1 message (compat-v1 §14.1).
 * @returns `{ ok: true }` or `{ ok: false, code, reason }` with a stable code (docs/cli.md, "Verdict codes").
 * @example
 * const verdict = verifyEncoded(prepared, request, bytes);
 * const trusted = verdict.ok && digestEquals(request.publicInputs.oldRoot, rootYouTrust);
 */
export function verifyEncoded(prepared: PreparedSync, request: OpRequest, bytes: Uint8Array): SyncVerdict {
  const limit = maxProofBytes(prepared.kind, prepared.config);
  if (bytes instanceof Uint8Array && bytes.byteLength > limit) {
    return {
      ok: false,
      code: "PROOF_TOO_LARGE",
      reason: `the proof has ${bytes.byteLength} bytes; a valid proof for this circuit has at most ${limit}`,
    };
  }
  let decoded;
  try {
    decoded = decodeProof(bytes);
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, code: err.code, reason: err.message };
    throw err;
  }
  return verifyDecoded(prepared, request, decoded);
}

/**
 * The steps of `verifyEncoded` after decoding: the identity check (all seven fields,
 * `IDENTITY_MISMATCH`), then `verifyPrepared` with the decoded public inputs and proof.
 */
export function verifyDecoded(prepared: PreparedSync, request: OpRequest, decoded: EncodedResult): SyncVerdict {
  if (!identityEquals(decoded.identity, prepared.identity)) {
    return {
      ok: false,
      code: "IDENTITY_MISMATCH",
      reason: "the proof was made for another circuit (kind, depth, leaf bound, strategy or commitment differ)",
    };
  }
  return verifyPrepared(prepared, request, { publicInputs: decoded.publicInputs, proof: decoded.proof });
}
