/** The bound on a registry block that its readers check before reading it (docs/profile-v2.md §10). */

/** Most updates in one block (the largest aggregate, docs/profile-v2.md §10). */
export const MAX_BLOCK_UPDATES = 4096;
