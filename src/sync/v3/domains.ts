/** Domain tags and versions of profile v3 (docs/profile-v3.md §1). */
export const V3_PROOF_DOMAIN_TAG = "statesync-gkr/v3";
export const V3_COMMITMENT_DOMAIN_TAG = "ssgkr/circuit-commitment/v3";
export const V3_PROFILE = 3;
/** The transcript domain tag of the zero-knowledge mode v3-zk (docs/profile-v3.md §11.1). */
export const V3ZK_PROOF_DOMAIN_TAG = "statesync-gkr/v3zk";
