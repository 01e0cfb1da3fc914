/**
 * Strict inner-proof-v2 decoder (docs/profile-v2.md §9): stateless, fail-closed, checks in exactly
 * the listed order; bounded before it allocates.
 */
import type { GkrProof } from "../../gkr/proof.js";
import type { PublicInputs } from "../../statement/types.js";
import { DecodeError } from "../errors.js";
import { ByteReader } from "../reader.js";
import { V2DecodeError, type V2DecodeErrorCode } from "./errors.js";
import { readHeader, V2_VERSIONS } from "./header.js";
import { readLayers } from "./layers.js";
import {
  V2_PROOF_KIND_AGGREGATE,
  V2_PROOF_KIND_SINGLE,
  V2_STATEMENT_CHECK_BYTES,
  type V2CircuitIdentity,
} from "./layout.js";

/** A single-operation message (proof_kind 0): circuit identity, public inputs and the GKR proof. */
export interface V2EncodedResult {
  readonly identity: V2CircuitIdentity;
  readonly publicInputs: PublicInputs;
  readonly proof: GkrProof;
}

/** An aggregate message (proof_kind 1): the statement checks of its n operations, in order. */
export interface V2EncodedAggregate {
  readonly identity: V2CircuitIdentity;
  /** Per operation the 2-element statement check (docs/profile-v2.md §10.3). */
  readonly statementChecks: readonly (readonly [number, number])[];
  readonly proof: GkrProof;
}

interface Decoded {
  readonly identity: V2CircuitIdentity;
  readonly statements: readonly PublicInputs[];
  readonly statementChecks: readonly (readonly [number, number])[];
  readonly proof: GkrProof;
}

function fail(code: V2DecodeErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new V2DecodeError(code, message, details);
}

/**
 * Decodes one inner-proof-v2 message. Round polynomials come back with 5 coefficients (y rounds
 * with a_3 = a_4 = 0 restored); `encodeProofV2` of the result reproduces the bytes.
 * @throws V2DecodeError (codes of §9, in order); never anything else.
 */
export function decodeProofV2(bytes: Uint8Array): V2EncodedResult {
  if (!(bytes instanceof Uint8Array))
    fail("NotBytes", `decodeProofV2 expects a Uint8Array, got ${bytes === null ? "null" : typeof bytes}`);
  const d = guarded(bytes, V2_PROOF_KIND_SINGLE);
  return { identity: d.identity, publicInputs: d.statements[0]!, proof: d.proof };
}

/**
 * Decodes one aggregate inner-proof-v2 message (proof_kind 1, docs/profile-v2.md §10.3): after the
 * identity, u32 n (n = 0 → `BadOperationCount`, n·8 > bytes left → `OversizedCount{61}`) and n
 * statement checks of 2 fe, then the layers as in a single proof.
 * @throws V2DecodeError; never anything else.
 */
export function decodeAggregateV2(bytes: Uint8Array): V2EncodedAggregate {
  if (!(bytes instanceof Uint8Array))
    fail("NotBytes", `decodeAggregateV2 expects a Uint8Array, got ${bytes === null ? "null" : typeof bytes}`);
  const d = guarded(bytes, V2_PROOF_KIND_AGGREGATE);
  return { identity: d.identity, statementChecks: d.statementChecks, proof: d.proof };
}

function guarded(bytes: Uint8Array, proofKind: number): Decoded {
  try {
    return decodeUnguarded(bytes, proofKind);
  } catch (e) {
    if (e instanceof DecodeError) throw new V2DecodeError(e.code as V2DecodeErrorCode, e.message, { ...e.details });
    throw e;
  }
}

function readStatement(r: ByteReader, idTag: number, at: number): PublicInputs {
  const oldRoot = r.digest();
  const newRoot = r.digest();
  const stTag = r.u8();
  if (stTag > 2)
    fail("UnknownOpKindTag", `statement op_kind_tag ${stTag} at offset ${at + 64} is not 0, 1 or 2`, {
      tag: stTag,
      offset: at + 64,
    });
  if (stTag !== idTag)
    fail("OpKindMismatch", `statement op_kind_tag ${stTag} differs from identity op_kind_tag ${idTag}`, {
      identity: idTag,
      statement: stTag,
    });
  const lo = r.u32();
  const hi = r.u32();
  const valueDigest = r.digest();
  return { oldRoot, newRoot, opKindTag: stTag, assetId: (BigInt(hi) << 32n) | BigInt(lo), valueDigest };
}

function decodeUnguarded(bytes: Uint8Array, proofKind: number): Decoded {
  const r = new ByteReader(bytes);
  const kindWhy = (kind: number) =>
    kind === proofKind
      ? null
      : `is not supported here (${proofKind === V2_PROOF_KIND_SINGLE ? "0, one operation" : "1, aggregate"})`;
  const { identity } = readHeader(bytes, r, V2_VERSIONS, kindWhy, fail);
  const idTag = identity.opKindTag;
  const statements: PublicInputs[] = [];
  const statementChecks: [number, number][] = [];
  if (proofKind === V2_PROOF_KIND_AGGREGATE) {
    const at = r.pos;
    const count = r.u32();
    if (count === 0) fail("BadOperationCount", `operation count at offset ${at} is 0`, { offset: at });
    if (count * V2_STATEMENT_CHECK_BYTES > r.remaining())
      fail(
        "OversizedCount",
        `operation count ${count} at offset ${at} needs at least ${count * V2_STATEMENT_CHECK_BYTES} bytes, only ${r.remaining()} remain`,
        { offset: at, count },
      );
    for (let j = 0; j < count; j++) statementChecks.push([r.fe(), r.fe()]);
  } else {
    statements.push(readStatement(r, idTag, r.pos));
  }
  const layers = readLayers(r, fail);
  const extra = r.remaining();
  if (extra !== 0) fail("TrailingBytes", `${extra} bytes follow the last layer`, { extra });
  return {
    identity,
    statements,
    statementChecks,
    proof: { layers },
  };
}
