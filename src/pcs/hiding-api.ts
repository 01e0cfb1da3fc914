/**
 * The standalone hiding commitment and masked opening (docs/pcs.md §12): a transcript of its own
 * under `PCS_HIDING_DOMAIN_TAG`, commitments and proofs as bytes, the verifier's acceptance policy
 * of the plain commitment (`acceptedWhirSets`).
 */
import { P } from "../field/koalabear.js";
import { DuplexChallenger } from "../transcript/challenger.js";
import { PCS_HIDING_DOMAIN_TAG } from "../transcript/domains.js";
import { verifyStandalone, type WhirVerifyOptions } from "./acceptance.js";
import { decodeWhirHidingProof, encodeWhirHidingProof } from "./hiding-codec.js";
import {
  whirCommitHidingOn,
  whirOpenHidingOn,
  type WhirHidingCommitOptions,
  type WhirHidingProverState,
} from "./hiding-prover.js";
import { whirReadHidingCommitmentOn, whirVerifyHidingOn } from "./hiding-verifier.js";
import type { WhirOpenOptions } from "./prover.js";
import type { WhirAnyClaim, WhirHidingCommitment, WhirVerdict } from "./types.js";

/** A standalone hiding commitment's prover side: the state and the transcript right after the commitment. */
export interface WhirHidingCommitted {
  /** What to publish (encode it with `encodeWhirHidingCommitment`). */
  readonly commitment: WhirHidingCommitment;
  readonly state: WhirHidingProverState;
  readonly transcript: DuplexChallenger;
}

/**
 * Commits to a vector f of 2^m base-field values (index bit j = variable j) so that openings
 * reveal nothing of f beyond the claims they prove (docs/pcs.md §12; the bounded-query encoding
 * and masked proximity test of Aurora, Ben-Sasson et al., EUROCRYPT 2019, as Virgo, Zhang et al.,
 * S&P 2020, uses them over a hash-based commitment), on a fresh transcript under `PCS_HIDING_DOMAIN_TAG`.
 * @param evaluations 2^m canonical base-field values, m ≥ `minHidingVariables(set)` (11 for the default set).
 * @param options `set` (default `"cb100-r4-s3-l24"`), `random` (default: the platform's cryptographic generator),
 *   `layout` (default `"extra-variable"`; `"top-block"` when f's top 2^j values are free and no claim will weigh them, §12.10).
 * @returns the commitment (32-byte root, no out-of-domain answers), the prover's state and transcript.
 * @throws PcsError `PCS_BAD_POLYNOMIAL`, `PCS_TOO_SMALL_TO_HIDE`, `PCS_TOO_LARGE`, `PCS_UNKNOWN_SET`, `PCS_BAD_OPTION` (before any work).
 * @example
 *   const committed = whirCommitHiding(f);                       // f: Uint32Array of 2^16 values
 *   const bytes = encodeWhirHidingCommitment(committed.commitment);
 */
export function whirCommitHiding(evaluations: Uint32Array, options: WhirHidingCommitOptions = {}): WhirHidingCommitted {
  const transcript = DuplexChallenger.withDomain(PCS_HIDING_DOMAIN_TAG);
  const state = whirCommitHidingOn(transcript, evaluations, options);
  return { commitment: state.commitment, state, transcript };
}

/**
 * Proves claims about a hiding commitment's vector f — evaluations f̂(point) = value (point ∈ K^m)
 * block claims Σ_i u_i·f(offset + i) = value and bound-blocks claims (docs/pcs.md §4.8) — in one masked opening; returns
 * `pcs-whir-hiding-proof-v1` bytes. A hiding commitment is opened once (docs/pcs.md §12.8: τ
 * masks one opening's rows): a second call with the same `committed` is refused; a call refused
 * for its claims does not count. Claim values are not checked: a false one gives a proof that
 * does not verify, and uses the commitment up.
 * @throws PcsError `PCS_ALREADY_OPENED` (opened before), `PCS_BAD_CLAIM`; `PCS_BAD_OPTION`, `PCS_POOL_CLOSED`, `PCS_WORKER_CRASHED` (the `workers` pool).
 * @example const proof = whirOpenHiding(committed, [{ point, value }, { block: { offset: 0, weights }, value: v }]);
 */
export function whirOpenHiding(
  committed: WhirHidingCommitted,
  claims: readonly WhirAnyClaim[],
  options: WhirOpenOptions = {},
): Uint8Array {
  return encodeWhirHidingProof(whirOpenHidingOn(committed.transcript.clone(), committed.state, claims, {}, options));
}

/**
 * Verifies a standalone masked opening: the commitment (decoded with
 * `decodeWhirHidingCommitment`), the claims about f and the proof bytes. Never throws for a bad
 * proof: undecodable bytes are a `PCS_DECODE` verdict, a set the options do not accept `PCS_SET_NOT_ACCEPTED`.
 * @throws PcsError `PCS_WEAKER_THAN_ACCEPTED`, `PCS_UNKNOWN_SET` (bad options only).
 * @example
 *   const verdict = whirVerifyHiding(decodeWhirHidingCommitment(bytes), [{ point, value }], proof);
 *   if (!verdict.ok) console.log(verdict.code, verdict.reason);
 */
export function whirVerifyHiding(
  commitment: WhirHidingCommitment,
  claims: readonly WhirAnyClaim[],
  proofBytes: Uint8Array,
  options: WhirVerifyOptions = {},
): WhirVerdict {
  return verifyStandalone(commitment, proofBytes, options, {
    shapeProblem: hidingCommitmentProblem,
    proofFormat: "pcs-whir-hiding-proof-v1",
    decode: decodeWhirHidingProof,
    domain: PCS_HIDING_DOMAIN_TAG,
    read: whirReadHidingCommitmentOn,
    verify: (transcript, read, proof) => whirVerifyHidingOn(transcript, read, claims, proof),
  });
}

/** Why a value is not a decoded hiding commitment, or null. */
function hidingCommitmentProblem(commitment: WhirHidingCommitment): string | null {
  const c = commitment as Partial<WhirHidingCommitment> | null;
  return c === null ||
    typeof c !== "object" ||
    typeof c.set !== "string" ||
    !Number.isInteger(c.numVariables) ||
    (c.layout !== undefined && c.layout !== "extra-variable" && c.layout !== "top-block") ||
    !(c.root instanceof Uint32Array) ||
    c.root.length !== 8 ||
    !c.root.every((x) => x < P)
    ? "not a decoded hiding commitment (pass the commitment decoded with decodeWhirHidingCommitment)"
    : null;
}
