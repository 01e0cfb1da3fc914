/** The note that `ssgkr verify` prints after `ACCEPT` when no root was pinned, and its help text quotes. */
export const UNPINNED_NOTE =
  "roots not pinned: this proves the statement about the roots in the request; pass --expect-old-root to check them against a root you trust";
