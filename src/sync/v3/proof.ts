/**
 * Profile v3 proofs (docs/profile-v3.md §5): an aggregate of n operations of one kind (n ≤ 4,096,
 * padded to K = 2^k copies with the prepared dummy), proved by GKR over the copies with the
 * committed halves of the input vector committed by WHIR before the first challenge and opened at
 * the GKR's two input points. The verifier holds only the statements: it builds the public halves
 * itself and never sees a sibling, accumulator or permutation state.
 *
 * Transcript (§5.2): new(`statesync-gkr/v3`); observe profile 3, proof kind, op kind tag, depth,
 * leaf bound, n, K, input width bits + k, layer count, per layer width bits + k; the circuit
 * commitment; the n statement digests (8 lanes each); then the WHIR commitment (docs/pcs.md §6.1:
 * its root, then its out-of-domain samples and answers); the GKR schedule (the claimed outputs are
 * zero by definition, a constant of the circuit, and are not absorbed); the WHIR opening of the two committed claims (§5.3).
 */
import { SsgkrError } from "../../errors.js";
import { digestEquals, type Digest } from "../../hash/digest.js";
import { evaluateStructuredCopies, proveCopiesGkr, residentCopies } from "../../gkr/structured/dp-prover.js";
import { verifyGkr, ZERO_OUTPUTS } from "../../gkr/verifier.js";
import { decodeWhirCommitment, decodeWhirProof, encodeWhirCommitment, encodeWhirProof } from "../../pcs/codec.js";
import { DEFAULT_WHIR_SET } from "../../pcs/params.js";
import { releaseWhirState, whirCommitOn, whirOpenOn } from "../../pcs/prover.js";
import { whirReadCommitmentOn, whirVerifyOn } from "../../pcs/verifier.js";
import type { OpRequest } from "../../smt/operation.js";
import { committedHalves } from "../../smt/v3/input.js";
import type { V3OldLeafRule, V3Statement } from "../../smt/v3/statement.js";
import { SyncError } from "../../statement/errors.js";
import { OpKind } from "../../statement/types.js";
import { V3_PROOF_KIND_AGGREGATE, V3_PROOF_KIND_BLOCK } from "../../codec/v3/layout.js";
import {
  decodeV3Message,
  decodeV3ZkMessage,
  encodeV3Message,
  hasV3ZkEncoding,
  type V3Message,
  type V3ZkMessage,
} from "../../codec/v3/message.js";
import { V3DecodeError } from "../../codec/v3/errors.js";
import { proveZkMessage, verifyV3ZkMessage } from "./zk-proof.js";
import {
  buildV3Witness,
  publicTableOf,
  reject,
  reportTimings,
  statementChecksOf,
  statementTranscript,
  type V3ProveOptions,
  type V3VerifyOptions,
  v3Identity,
} from "./message-steps.js";
import type { V3Verdict } from "./verdict.js";
import { verifyV3Flow, type V3VerifyMode } from "./verify-flow.js";
import type { GkrProof } from "../../gkr/proof.js";
import type { WhirCommitment, WhirProof } from "../../pcs/types.js";
import { committedClaims, publicEvals } from "./input-claims.js";
import type { PreparedV3 } from "./prepared.js";

export type { V3ProveOptions, V3Timings, V3VerifyOptions } from "./message-steps.js";
export { v3Identity } from "./message-steps.js";

/**
 * Proves the statements of `requests` in one inner-proof-v3 message (shared by aggregates and
 * blocks). Invalid witnesses are proved as they are (the verifier rejects them).
 */
function proveMessage(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  proofKind: 1 | 2,
  roots: readonly Digest[],
  options: V3ProveOptions,
): Uint8Array {
  const t0 = performance.now();
  const layout = prepared.compiled.layout;
  const { n, k, input, halves, digests } = buildV3Witness(prepared, requests, options);
  const t1 = performance.now();
  const transcript = statementTranscript(prepared, proofKind, n, k, digests);
  const state = whirCommitOn(transcript, committedHalves(layout, input), { set: options.pcsSet ?? DEFAULT_WHIR_SET });
  const t2 = performance.now();
  let gkr, t3: number, t4: number, opening: Uint8Array;
  try {
    const keep = residentCopies();
    try {
      const layers = evaluateStructuredCopies(prepared.compiled.circuit, k, input, keep);
      t3 = performance.now();
      gkr = proveCopiesGkr(prepared.compiled.circuit, k, layers, transcript);
    } finally {
      keep?.recycle();
    }
    t4 = performance.now();
    const claim = gkr.inputClaim;
    const [pubX, pubY] = publicEvals(layout, publicTableOf(prepared, halves, k), [claim.x, claim.y]);
    const split = committedClaims(k, claim, pubX!, pubY!);
    const claims = "claims" in split ? split.claims : [];
    opening = encodeWhirProof(whirOpenOn(transcript, state, claims));
  } finally {
    // the commitment's copies go back to the thread's recycled arrays for the next proof
    releaseWhirState(state);
  }
  const t5 = performance.now();
  const bytes = encodeV3Message({
    identity: v3Identity(prepared),
    proofKind,
    statementChecks: statementChecksOf(digests, n),
    roots,
    commitment: encodeWhirCommitment(state.commitment),
    proof: gkr.proof,
    opening,
  });
  reportTimings(options, n, k, [t0, t1, t2, t3, t4, t5]);
  return bytes;
}

/**
 * Proves n = requests.length operations (1..4096) of the prepared kind in one inner-proof-v3
 * aggregate (proof_kind 1), verifiable from the statements alone (`verifyAggregateV3`).
 * @throws SyncError `BAD_AGGREGATE` (count), `WRONG_KIND{operation}`, `WITNESS{operation}`; PcsError
 *   `PCS_UNKNOWN_SET`, `PCS_TOO_LARGE`.
 * @example
 *   const bytes = proveAggregateV3(prepareV3("membership"), requests);
 */
export function proveAggregateV3(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  options: V3ProveOptions = {},
): Uint8Array {
  return (options.zk === true ? proveZkMessage : proveMessage)(
    prepared,
    requests,
    V3_PROOF_KIND_AGGREGATE,
    [],
    options,
  );
}

/**
 * Proves a block of n chained updates (update i's new root = update i + 1's old root) as one
 * inner-proof-v3 block (proof_kind 2), carrying the n − 1 intermediate roots; verifiable from the
 * two outer roots and the updates (`verifyBlockV3`).
 * @throws SyncError `BAD_BLOCK{operation}` (not chained), and what `proveAggregateV3` throws.
 */
export function proveBlockV3(
  prepared: PreparedV3,
  requests: readonly OpRequest[],
  options: V3ProveOptions = {},
): Uint8Array {
  if (prepared.kind !== OpKind.Update)
    throw new SyncError("WRONG_KIND", `a block is made of updates; the prepared circuit is of kind ${prepared.kind}`);
  if (!Array.isArray(requests) || requests.length < 1)
    throw new SyncError("BAD_BLOCK", "a block has at least one update");
  for (let i = 1; i < requests.length; i++) {
    if (!digestEquals(requests[i - 1]!.publicInputs.newRoot, requests[i]!.publicInputs.oldRoot)) {
      throw new SyncError("BAD_BLOCK", `update ${i}'s old root is not update ${i - 1}'s new root`, { operation: i });
    }
  }
  const roots = requests.slice(0, -1).map((r) => Uint32Array.from(r.publicInputs.newRoot));
  return (options.zk === true ? proveZkMessage : proveMessage)(prepared, requests, V3_PROOF_KIND_BLOCK, roots, options);
}

/** A decoded message of either mode. */
export type DecodedV3 = { readonly zk: false; readonly m: V3Message } | { readonly zk: true; readonly m: V3ZkMessage };

/** Decodes a v3 or v3-zk message (the mode read from its encoding version) of one proof kind, or the rejection. */
export function decodeV3OrReject(bytes: Uint8Array, proofKind: 1 | 2): DecodedV3 | V3Verdict {
  let m: V3Message | V3ZkMessage;
  const zk = hasV3ZkEncoding(bytes);
  try {
    m = zk ? decodeV3ZkMessage(bytes) : decodeV3Message(bytes);
  } catch (e) {
    if (e instanceof V3DecodeError) return reject(`DECODE_${e.code}`, e.message);
    throw e;
  }
  if (m.proofKind !== proofKind)
    return reject(
      "PROOF_KIND",
      `the proof is ${m.proofKind === V3_PROOF_KIND_BLOCK ? "a block" : "an aggregate"} (proof_kind ${m.proofKind}); ${proofKind === V3_PROOF_KIND_BLOCK ? "a block" : "an aggregate"} was expected`,
    );
  return zk ? { zk: true, m: m as V3ZkMessage } : { zk: false, m: m as V3Message };
}

/** Verifies a decoded message of either mode. */
export function verifyDecodedV3(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  d: DecodedV3,
  options: V3VerifyOptions,
): V3Verdict {
  return d.zk
    ? verifyV3ZkMessage(prepared, statements, d.m, options)
    : verifyV3Message(prepared, statements, d.m, options);
}

/** How profile v3 commits, proves its layers and opens (the plain commitment; `verifyV3Flow`). */
const V3_MODE: V3VerifyMode<GkrProof, WhirCommitment, WhirProof, ReturnType<typeof whirReadCommitmentOn>, null> = {
  decodeCommitment: decodeWhirCommitment,
  commitmentProblem: (commitment, { prepared, k }) => {
    const m0 = k + prepared.compiled.layout.inputBits - 1;
    return commitment.numVariables !== m0 || commitment.width !== 1
      ? `the commitment is to ${commitment.numVariables} variables of width ${commitment.width}; the committed halves have ${m0} variables of width 1`
      : null;
  },
  decodeOpening: decodeWhirProof,
  domain: undefined,
  read: whirReadCommitmentOn,
  gkr: (shape, wiring, proof, transcript) => {
    const r = verifyGkr(shape, wiring, ZERO_OUTPUTS, proof, transcript);
    return r.ok ? { ok: true, input: r.inputClaim, more: null } : r;
  },
  open: (transcript, read, claims, _more, _at, opening) => whirVerifyOn(transcript, read, claims, opening),
  openingName: "the opening of the committed halves",
};

/** Verifies a decoded message against the statements (every check after decoding, in order). */
export function verifyV3Message(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  m: V3Message,
  options: V3VerifyOptions,
): V3Verdict {
  return verifyV3Flow(prepared, statements, m, options, V3_MODE);
}

function guarded(run: () => V3Verdict): V3Verdict {
  try {
    return run();
  } catch (err) {
    if (err instanceof SsgkrError || err instanceof TypeError || err instanceof RangeError)
      return reject("MALFORMED_REQUEST", `malformed statement or proof: ${(err as Error).message}`);
    throw err;
  }
}

/**
 * Verifies an inner-proof-v3 aggregate against the statements alone, in order: decode
 * (`DECODE_<code>`), proof kind (`PROOF_KIND`), identity (`IDENTITY_MISMATCH`), count
 * (`OPERATION_COUNT`), per statement in order its kind and form (`WRONG_KIND`, `BAD_STATEMENT`) and
 * its check (`PUBLIC_INPUTS_MISMATCH`) — these name the operation —, the commitment's set and shape
 * (`PCS_SET_NOT_ACCEPTED`, `COMMITMENT_SHAPE`), GKR (`GKR_<code>`), the input claims
 * (`INPUT_CLAIM_X`/`Y`), the opening (`PCS_<…>`). Never throws on malformed input.
 * @example
 *   verifyAggregateV3(prepared, statements, proveAggregateV3(prepared, requests)); // { ok: true }
 */
export function verifyAggregateV3(
  prepared: PreparedV3,
  statements: readonly V3Statement[],
  bytes: Uint8Array,
  options: V3VerifyOptions = {},
): V3Verdict {
  return guarded(() => {
    const d = decodeV3OrReject(bytes, V3_PROOF_KIND_AGGREGATE);
    if ("ok" in d) return d;
    return verifyDecodedV3(prepared, statements, d, options);
  });
}

/** One update of a block as the verifier knows it: the key, the new leaf and the old leaf's rule. */
export interface V3BlockUpdate {
  readonly key: bigint;
  readonly newLeaf: import("../../smt/leaf.js").Leaf;
  readonly oldLeaf: V3OldLeafRule;
}

/**
 * Verifies an inner-proof-v3 block from the two outer roots and the updates alone: update i's
 * statement takes its old root from R_A (i = 0) or the proof's root i − 1, its new root from the
 * proof's root i or R_B (i = n − 1), so the chain holds by construction; a wrong outer root, a
 * replaced, dropped, swapped or duplicated update is rejected (the statement checks name the
 * first operation whose statement differs from the prover's). Codes: `EMPTY_BLOCK`, then those of
 * `verifyAggregateV3`.
 * @example
 *   verifyBlockV3(prepared, { fromRoot, toRoot }, updates, bytes); // { ok: true }
 */
export function verifyBlockV3(
  prepared: PreparedV3,
  roots: { readonly fromRoot: Digest; readonly toRoot: Digest },
  updates: readonly V3BlockUpdate[],
  bytes: Uint8Array,
  options: V3VerifyOptions = {},
): V3Verdict {
  return guarded(() => {
    if (!Array.isArray(updates) || updates.length === 0)
      return reject("EMPTY_BLOCK", "a block has at least one update");
    const d = decodeV3OrReject(bytes, V3_PROOF_KIND_BLOCK);
    if ("ok" in d) return d;
    const m = d.m;
    if (m.roots.length !== updates.length - 1)
      return reject("OPERATION_COUNT", `the proof carries ${m.roots.length + 1} updates, ${updates.length} were given`);
    const chain = [roots.fromRoot, ...m.roots, roots.toRoot];
    const statements: V3Statement[] = updates.map((u, i) => ({
      kind: OpKind.Update,
      oldRoot: chain[i]!,
      newRoot: chain[i + 1]!,
      key: u.key,
      newLeaf: u.newLeaf,
      oldLeaf: u.oldLeaf,
    }));
    return verifyDecodedV3(prepared, statements, d, options);
  });
}
