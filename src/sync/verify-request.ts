/**
 * Verification of inner-proof-v1 bytes against a request when no prepared circuit is at hand:
 * the work is bounded by the request's configuration before anything is compiled, and the
 * circuit is prepared (once per configuration, `PreparedCache`) only for a proof that claims
 * exactly that configuration.
 */
import { decodeProof } from "../codec/decode.js";
import { DecodeError } from "../codec/errors.js";
import { CIRCUIT_VERSION, LEAF_ENCODING_VERSION } from "../codec/layout.js";
import type { EncodedResult } from "../codec/types.js";
import { SsgkrError } from "../errors.js";
import type { OpRequest } from "../smt/operation.js";
import { type SyncConfig, syncConfig } from "../smt/config.js";
import { verifyDecoded } from "./encoded.js";
import { maxProofBytes } from "./limits.js";
import { defaultPreparedCache, type PreparedCache } from "./prepared-cache.js";
import { OP_KIND_NAMES, opKindTag, type CircuitIdentity, type OpKind } from "../statement/types.js";
import type { SyncVerdict } from "./verify.js";

/** Options of `verifyRequestProof`. */
export interface VerifyRequestOptions {
  /** Where prepared circuits come from and stay (default `defaultPreparedCache`). */
  readonly cache?: PreparedCache;
}

/**
 * The fields of a declared circuit identity that differ from (kind, config), named as in
 * compat-v1 §13.3 (`op_kind_tag 2 ≠ 0`, …); empty when they agree. The commitment is not
 * compared (it needs the compiled circuit).
 */
export function declaredIdentityDifferences(identity: CircuitIdentity, kind: OpKind, config: SyncConfig): string[] {
  const out: string[] = [];
  const cmp = (name: string, got: number, want: number) => {
    if (got !== want) out.push(`${name} ${got} ≠ ${want}`);
  };
  cmp("op_kind_tag", identity.opKindTag, opKindTag(kind));
  cmp("depth", identity.depth, config.depth);
  cmp("circuit_version", identity.circuitVersion, CIRCUIT_VERSION);
  cmp("leaf_encoding_version", identity.leafEncodingVersion, LEAF_ENCODING_VERSION);
  cmp("leaf_max_fields", identity.leafMaxFields, config.leafMaxFields);
  cmp("strategy", identity.strategyId, config.strategy.id);
  return out;
}

/**
 * Verifies inner-proof-v1 `bytes` against `request` for the configuration `config`
 * (compat-v1 §13.3 `verify_encoded_sync_op` with the circuit prepared on demand), in this order;
 * the first failure decides:
 *
 * 1. `config` within the limits (`syncConfig`) — else `UNSUPPORTED_CONFIG`; the request names a
 *    kind — else `WRONG_KIND`.
 * 2. `bytes.length ≤ maxProofBytes(kind, config)` — else `PROOF_TOO_LARGE` (nothing decoded).
 * 3. strict decoding (§14.3; the decoder's code, e.g. `Truncated`).
 * 4. the declared identity (op kind, depth, versions, leaf bound, strategy) equals the request's
 *    — else `IDENTITY_MISMATCH` naming the fields, before any circuit is prepared.
 * 5. the circuit of (kind, config) from `options.cache` (prepared on first use), then
 *    `verifyEncoded`'s identity check (commitment included) and `verifyPrepared`.
 *
 * So a proof or request chosen by an adversary costs at most one preparation of a configuration
 * within the limits, and only when the proof claims that very configuration.
 *
 * An accepted proof shows that the statement holds for the roots in the request. It does not say
 * that those roots are ones you trust: compare `request.publicInputs.oldRoot` (and `newRoot`)
 * with a root you trust (`ssgkr verify --expect-old-root`).
 *
 * @param config depth (default 24), leafMaxFields (default 31), strategy A.
 * @returns `{ ok: true }` or `{ ok: false, code, reason }`; never throws for bad bytes, a bad
 *   request or a bad configuration.
 * @example
 * const verdict = verifyRequestProof(request, bytes, { depth: 24 });
 * if (verdict.ok && digestEquals(request.publicInputs.oldRoot, trustedRoot)) { ... }
 */
export function verifyRequestProof(
  request: OpRequest,
  bytes: Uint8Array,
  config: Partial<SyncConfig> = {},
  options: VerifyRequestOptions = {},
): SyncVerdict {
  let cfg: SyncConfig;
  try {
    cfg = syncConfig(config);
  } catch (err) {
    if (err instanceof SsgkrError) return { ok: false, code: "UNSUPPORTED_CONFIG", reason: err.message };
    throw err;
  }
  const kind = request?.operation?.kind;
  if (!OP_KIND_NAMES.includes(kind))
    return {
      ok: false,
      code: "WRONG_KIND",
      reason: `the request has no operation kind ${OP_KIND_NAMES.map((k) => JSON.stringify(k)).join(", ")} (got ${String(kind)})`,
    };
  if (!(bytes instanceof Uint8Array)) return { ok: false, code: "NotBytes", reason: "the proof must be a Uint8Array" };
  const limit = maxProofBytes(kind, cfg);
  if (bytes.byteLength > limit) {
    return {
      ok: false,
      code: "PROOF_TOO_LARGE",
      reason: `the proof has ${bytes.byteLength} bytes; a valid ${kind} proof at depth ${cfg.depth}, leaf bound ${cfg.leafMaxFields} has at most ${limit}`,
    };
  }
  let decoded: EncodedResult;
  try {
    decoded = decodeProof(bytes);
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, code: err.code, reason: err.message };
    throw err;
  }
  const differences = declaredIdentityDifferences(decoded.identity, kind, cfg);
  if (differences.length > 0) {
    return {
      ok: false,
      code: "IDENTITY_MISMATCH",
      reason: `the proof was made for another circuit: ${differences.join(", ")} (proof ≠ request)`,
    };
  }
  const prepared = (options.cache ?? defaultPreparedCache).get(kind, cfg);
  return verifyDecoded(prepared, request, decoded);
}
