/**
 * The standalone commitment scheme (docs/pcs.md §6): a transcript of its own under
 * `PCS_DOMAIN_TAG`, commitments and proofs as bytes, and the verifier's acceptance policy: only
 * named sets, none weaker than the regime the verifier asks for.
 */
import { DuplexChallenger } from "../transcript/challenger.js";
import { PCS_DOMAIN_TAG } from "../transcript/domains.js";
import { commitmentProblem } from "./checks.js";
import { decodeWhirProof, encodeWhirProof } from "./codec.js";
import {
  whirCommitOn,
  whirOpenOn,
  type WhirCommitOptions,
  type WhirOpenOptions,
  type WhirProverState,
} from "./prover.js";
import type { WhirAnyClaim, WhirCommitment, WhirVerdict } from "./types.js";
import { whirReadCommitmentOn, whirVerifyOn } from "./verifier.js";
import { verifyStandalone, type WhirVerifyOptions } from "./acceptance.js";

export { acceptedWhirSets, type WhirAcceptance, type WhirVerifyOptions } from "./acceptance.js";

/** A standalone commitment's prover side: the state and the transcript right after the commitment. */
export interface WhirCommitted {
  /** What to publish (encode it with `encodeWhirCommitment`). */
  readonly commitment: WhirCommitment;
  readonly state: WhirProverState;
  readonly transcript: DuplexChallenger;
}

/**
 * Commits to a multilinear polynomial given by its 2^m hypercube evaluations (index bit j =
 * variable j), on a fresh transcript under `PCS_DOMAIN_TAG`.
 * @param evaluations 2^m canonical base-field values (or 4·2^m words with `width: 4`).
 * `options.workers` chooses the pool that hashes the codeword's Merkle tree (see `WhirCommitOptions`).
 * @throws PcsError `PCS_BAD_POLYNOMIAL`, `PCS_TOO_LARGE` (before any work), `PCS_UNKNOWN_SET`; `PCS_BAD_OPTION`, `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (the pool).
 * @example
 *   const committed = whirCommit(evals, { set: "cb100-r4" });
 *   const bytes = encodeWhirCommitment(committed.commitment);
 */
export function whirCommit(evaluations: Uint32Array, options: WhirCommitOptions = {}): WhirCommitted {
  const transcript = DuplexChallenger.withDomain(PCS_DOMAIN_TAG);
  const state = whirCommitOn(transcript, evaluations, options);
  return { commitment: state.commitment, state, transcript };
}

/**
 * Proves the claims f(point) = value about a standalone commitment (and block claims, docs/pcs.md
 * §4.7; bound-blocks claims, §4.8, belong on a caller's transcript that fixes their weights);
 * returns `pcs-whir-proof-v1` bytes.
 * The commitment's transcript is not consumed, so one commitment can be opened several times.
 * `options.workers` chooses the pool that hashes the later codewords' Merkle trees (`null`: this
 * thread only; absent: the default pool, if installed); the bytes are the same either way.
 * @throws PcsError `PCS_BAD_CLAIM`; `PCS_BAD_OPTION`, `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (the pool).
 * @example const proof = whirOpen(committed, [{ point, value }], { workers: pool });
 */
export function whirOpen(
  committed: WhirCommitted,
  claims: readonly WhirAnyClaim[],
  options: WhirOpenOptions = {},
): Uint8Array {
  return encodeWhirProof(whirOpenOn(committed.transcript.clone(), committed.state, claims, {}, options));
}

/**
 * Verifies a standalone opening: the commitment (decoded with `decodeWhirCommitment`), the
 * claims and the proof bytes. Never throws for a bad proof: undecodable bytes are a
 * `PCS_DECODE` verdict, a set the options do not accept `PCS_SET_NOT_ACCEPTED`.
 * @example
 *   const verdict = whirVerify(decodeWhirCommitment(commitmentBytes), [{ point, value }], proof);
 *   if (!verdict.ok) console.log(verdict.code, verdict.reason);
 */
export function whirVerify(
  commitment: WhirCommitment,
  claims: readonly WhirAnyClaim[],
  proofBytes: Uint8Array,
  options: WhirVerifyOptions = {},
): WhirVerdict {
  return verifyStandalone(commitment, proofBytes, options, {
    shapeProblem: commitmentProblem,
    proofFormat: "pcs-whir-proof-v1",
    decode: decodeWhirProof,
    domain: PCS_DOMAIN_TAG,
    read: whirReadCommitmentOn,
    verify: (transcript, read, proof) => whirVerifyOn(transcript, read, claims, proof),
  });
}
