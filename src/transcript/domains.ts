/** Domain tags of compat-v1 §1 (ASCII). */
export const PROOF_DOMAIN_TAG = "statesync-gkr/v0.1";
export const COMMITMENT_DOMAIN_TAG = "ssgkr/circuit-commitment/v1";
export const PROOF_DIGEST_DOMAIN_TAG = "ssgkr/proof-digest/v0";
