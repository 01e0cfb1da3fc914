/**
 * The shapes of commitments, claims and opening proofs (docs/pcs.md §6–7).
 */
import type { Ext } from "../field/extension.js";
import type { WhirSetId } from "./params.js";

/**
 * Where a hiding commitment puts τ (docs/pcs.md §12.3, §12.10): `"extra-variable"` — f′(X, Y) =
 * f(X) + Y·τ(X), one variable more than f (width code 5); `"top-block"` — f′ = f + E·τ inside f's
 * own 2^m values, τ's values in the top 2^j of them, which the claims must not weigh (width code 6).
 */
export type WhirHidingLayout = "extra-variable" | "top-block";

/** 1: the committed values are base-field elements; 4: degree-4 extension elements. */
export type CommittedWidth = 1 | 4;

/** What a prover publishes when it commits (docs/pcs.md §6.1): the codeword's Merkle root and its out-of-domain answers. */
export interface WhirCommitment {
  readonly set: WhirSetId;
  /** Variables m of the committed multilinear polynomial (2^m values). */
  readonly numVariables: number;
  readonly width: CommittedWidth;
  /** The Merkle root of the first codeword (8 canonical words). */
  readonly root: Uint32Array;
  /** F(z_j) at the out-of-domain points z_j the transcript draws right after the root. */
  readonly oodAnswers: readonly Ext[];
}

/** One claim f(point) = value about the committed polynomial (point ∈ K^m, variable j = bit j of a hypercube index). */
export interface WhirClaim {
  readonly point: readonly Ext[];
  readonly value: Ext;
}

/**
 * An aligned block of weights (docs/pcs.md §4.7): it covers 2^b lanes (1 ≤ 2^b ≤ 2^m) from
 * `offset`, a multiple of 2^b below 2^m, so the block is the subcube whose top m − b index bits
 * are offset's. With `unit` "lane" (the default) `weights` has 2^b entries, one per lane; with
 * `unit` "ext" it has 2^(b−2) entries, one per extension element stored in four consecutive lanes
 * (coordinates c0..c3): lane offset + 4c + t weighs weights[c]·X^t (§4.8), so the block weighs
 * Σ_c weights[c]·E_c with E_c the element of lanes offset + 4c … offset + 4c + 3. An "ext" block
 * is the "lane" block of those expanded weights in every respect (transcript included); its weight
 * costs the verifier a quarter of the products.
 */
export interface WhirWeightBlock {
  readonly offset: number;
  readonly weights: readonly Ext[];
  /** "lane" (default): one weight per lane; "ext": one weight per extension element of four lanes. */
  readonly unit?: "lane" | "ext";
}

/** One claim Σ_i weights[i]·f(offset + i) = value about the committed polynomial's hypercube values (docs/pcs.md §4.7, block weights). */
export interface WhirBlockClaim {
  readonly block: WhirWeightBlock;
  readonly value: Ext;
}

/**
 * One claim Σ_s Σ_i blocks[s].weights[i]·f(blocks[s].offset + i) = value: a sum over aligned
 * blocks whose weights the transcript already binds (docs/pcs.md §4.8). The opening absorbs the
 * blocks' places and the value but not the weights, so use it only on a caller's transcript and
 * only for weights that are a function of what that transcript has absorbed and drawn before the
 * opening (a GKR's challenges, say); any other claim belongs in a `WhirBlockClaim`.
 */
export interface WhirBoundBlocksClaim {
  readonly blocks: readonly WhirWeightBlock[];
  readonly value: Ext;
}

/** Any kind of claim an opening proves: an evaluation at a point, block weights, or bound blocks. */
export type WhirAnyClaim = WhirClaim | WhirBlockClaim | WhirBoundBlocksClaim;

/** One WHIR iteration of an opening proof (docs/pcs.md §7.2). */
export interface WhirRoundProof {
  /** [h(0), h(2)] of each of the k_i sumcheck rounds. */
  readonly sumcheck: readonly (readonly [Ext, Ext])[];
  /** One grinding witness per sumcheck round when the round's fold grinding is > 0 bits, else empty. */
  readonly foldWitnesses: readonly number[];
  /** Root of f_(i+1)'s codeword (absent in the last iteration). */
  readonly nextRoot: Uint32Array | null;
  /** Out-of-domain answers of f_(i+1) (empty in the last iteration). */
  readonly nextOodAnswers: readonly Ext[];
  /** The final polynomial's 2^(m_M) coefficients, interleaved extension words (last iteration only). */
  readonly finalCoefficients: Uint32Array | null;
  /** The query grinding witness (null when the round grinds 0 bits). */
  readonly queryWitness: number | null;
  /** Number of distinct rows opened. */
  readonly rowCount: number;
  /** The opened rows in ascending index order: rowCount × 2^k_i values × width words. */
  readonly rows: Uint32Array;
  /** The multiproof's sibling digests (8 words each). */
  readonly siblings: Uint32Array;
}

/** An opening proof (docs/pcs.md §7). */
export interface WhirProof {
  readonly set: WhirSetId;
  readonly numVariables: number;
  readonly width: CommittedWidth;
  readonly rounds: readonly WhirRoundProof[];
  /** [h(0), h(2)] of the final sumcheck's m_M rounds. */
  readonly finalSumcheck: readonly (readonly [Ext, Ext])[];
}

/** The verdict of an opening. */
export type WhirVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: import("./errors.js").PcsRejectCode; readonly reason: string };

/**
 * A hiding commitment (docs/pcs.md §12.3, `pcs-whir-hiding-commitment-v1`): the one Merkle root
 * over the rows of F′ (the bounded-query encoding of f) and G′ (the random mask). It carries no
 * out-of-domain answers: they would be values of f′.
 */
export interface WhirHidingCommitment {
  readonly set: WhirSetId;
  /** Variables m of the committed vector f (2^m base-field values); f′ and g′ have m + 1 ("extra-variable") or m ("top-block"). */
  readonly numVariables: number;
  /** Where τ lies (docs/pcs.md §12.3, §12.10); absent is read as "extra-variable". */
  readonly layout?: WhirHidingLayout;
  /** The Merkle root (8 canonical words). */
  readonly root: Uint32Array;
}

/** A masked opening (docs/pcs.md §12.4–12.5, `pcs-whir-hiding-proof-v1`). */
export interface WhirHidingProof {
  readonly set: WhirSetId;
  /** Variables m of the committed vector f. */
  readonly numVariables: number;
  /** The commitment's layout (docs/pcs.md §12.10). */
  readonly layout: WhirHidingLayout;
  /** σ′_c = Σ_b w_c(b)·g′(b) for each claim c, in claim order. */
  readonly maskedValues: readonly Ext[];
  /** The grinding witness before ρ (null when the hiding schedule grinds 0 bits there). */
  readonly batchWitness: number | null;
  /** H(z_j) = ρ·F′(z_j) + G′(z_j) at h's s_0 out-of-domain points. */
  readonly oodAnswers: readonly Ext[];
  /** The WHIR iterations on h; the first iteration's rows are F′'s row (2^k_0 words) then G′'s (4·2^k_0 words). */
  readonly rounds: readonly WhirRoundProof[];
  readonly finalSumcheck: readonly (readonly [Ext, Ext])[];
}
