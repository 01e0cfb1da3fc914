/**
 * The format's bound on a registry block (docs/registry.md "Block proofs"): the most updates one
 * block file holds, which readers check before reading it. Free of imports, so the CLI's command
 * definitions can name it without loading the engine; the bound of one block proof at a depth is
 * `maxBlockUpdates` (block-size.ts).
 */

/** Most updates in one block file, and in one `prove-block` run (the largest aggregate, docs/profile-v2.md §10). */
export const MAX_BLOCK_UPDATES = 4096;
