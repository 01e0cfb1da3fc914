/** Domain tags and versions of profile v2 (docs/profile-v2.md §1). */
export const V2_PROOF_DOMAIN_TAG = "statesync-gkr/v2";
export const V2_COMMITMENT_DOMAIN_TAG = "ssgkr/circuit-commitment/v2";
export const V2_PROFILE = 2;
export const V2_CIRCUIT_VERSION = 2;
