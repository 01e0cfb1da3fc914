/** Domain tags of compat-v1 §1 (ASCII). */
export const PROOF_DOMAIN_TAG = "statesync-gkr/v0.1";
/** Domain tag of the circuit commitment (compat-v1 §12). */
export const COMMITMENT_DOMAIN_TAG = "ssgkr/circuit-commitment/v1";
/** Domain tag of the proof digest. */
export const PROOF_DIGEST_DOMAIN_TAG = "ssgkr/proof-digest/v0";
/** Domain tag of a standalone WHIR commitment and its openings (docs/pcs.md §6). */
export const PCS_DOMAIN_TAG = "ssgkr/pcs/whir/v1";
/** Domain tag of a standalone hiding WHIR commitment and its masked openings (docs/pcs.md §12.4). */
export const PCS_HIDING_DOMAIN_TAG = "ssgkr/pcs/whir-hiding/v1";
