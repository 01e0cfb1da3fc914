/** Profiles `ssgkr prove --profile` accepts. */
export const PROFILES = ["compat-v1", "v2", "v3"] as const;
