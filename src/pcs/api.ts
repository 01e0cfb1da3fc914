/**
 * The standalone commitment scheme (docs/pcs.md §6): a transcript of its own under
 * `PCS_DOMAIN_TAG`, commitments and proofs as bytes, and the verifier's acceptance policy: only
 * named sets, none weaker than the regime the verifier asks for.
 */
import { DuplexChallenger } from "../transcript/challenger.js";
import { PCS_DOMAIN_TAG } from "../transcript/domains.js";
import { commitmentProblem } from "./checks.js";
import { decodeWhirProof, encodeWhirProof } from "./codec.js";
import { PcsError } from "./errors.js";
import { whirParameterSet, whirParameterSets, type WhirSetId } from "./params.js";
import {
  whirCommitOn,
  whirOpenOn,
  type WhirCommitOptions,
  type WhirOpenOptions,
  type WhirProverState,
} from "./prover.js";
import type { WhirAnyClaim, WhirCommitment, WhirVerdict } from "./types.js";
import { whirReadCommitmentOn, whirVerifyOn } from "./verifier.js";

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

/** The weakest soundness regime a verifier accepts: `"conjectured"` takes the 100-bit capacity and unique-decoding sets, `"provable"` only unique decoding. */
export type WhirAcceptance = "conjectured" | "provable";

/** Options of `whirVerify`. */
export interface WhirVerifyOptions {
  /** Default `"conjectured"` (the default set's regime). */
  readonly accept?: WhirAcceptance;
  /** Sets accepted besides the policy's, e.g. `["cb90-r4"]` to check the 90-bit comparison set. */
  readonly alsoAccept?: readonly WhirSetId[];
}

/**
 * The sets a verifier with these options accepts.
 * @throws PcsError `PCS_WEAKER_THAN_ACCEPTED` for an unknown `accept` value; `PCS_UNKNOWN_SET`.
 */
export function acceptedWhirSets(options: WhirVerifyOptions = {}): WhirSetId[] {
  const accept = options.accept ?? "conjectured";
  if (accept !== "conjectured" && accept !== "provable")
    throw new PcsError("PCS_WEAKER_THAN_ACCEPTED", `accept must be "conjectured" or "provable", got ${String(accept)}`);
  const out = whirParameterSets()
    .filter((s) => s.securityBits >= 100 && (accept === "conjectured" || s.regime === "unique-decoding"))
    .map((s) => s.id);
  for (const id of options.alsoAccept ?? []) if (!out.includes(whirParameterSet(id).id)) out.push(id);
  return out;
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
  const accepted = acceptedWhirSets(options);
  const shape = commitmentProblem(commitment);
  if (shape !== null) return { ok: false, code: "PCS_SHAPE", reason: shape };
  if (!accepted.includes(commitment.set))
    return {
      ok: false,
      code: "PCS_SET_NOT_ACCEPTED",
      reason: `the commitment names set ${commitment.set}; this verifier accepts ${accepted.join(", ")}`,
    };
  if (!(proofBytes instanceof Uint8Array))
    return { ok: false, code: "PCS_DECODE", reason: "the proof must be a Uint8Array of pcs-whir-proof-v1 bytes" };
  let proof;
  try {
    proof = decodeWhirProof(proofBytes);
  } catch (e) {
    if (e instanceof PcsError) return { ok: false, code: "PCS_DECODE", reason: e.message };
    throw e;
  }
  if (proof.set !== commitment.set)
    return {
      ok: false,
      code: "PCS_SET_NOT_ACCEPTED",
      reason: `the proof names set ${proof.set}, the commitment ${commitment.set}`,
    };
  const transcript = DuplexChallenger.withDomain(PCS_DOMAIN_TAG);
  let read;
  try {
    read = whirReadCommitmentOn(transcript, commitment);
  } catch (e) {
    if (e instanceof PcsError) return { ok: false, code: "PCS_SHAPE", reason: e.message };
    throw e;
  }
  return whirVerifyOn(transcript, read, claims, proof);
}
