/**
 * The slot-mapped registry's configuration, committed head and history entry: the types the store
 * (store.ts) and its metadata rows (slot-metadata.ts) share.
 */
import type { Digest } from "../../hash/digest.js";

/** The configuration of a slot-mapped registry (slot-v1), fixed when it is created. */
export interface RegistryConfig {
  /** Tree depth, 1..48 (default 24): 2^depth slots. */
  readonly depth: number;
  /** Leaf bound B, 20..63 (default 31). */
  readonly leafMaxFields: number;
}

/** The committed state. */
export interface RegistryHead {
  /** Number of the last committed batch (0 = creation). */
  readonly batch: number;
  /** Root digest, 8 canonical elements. */
  readonly root: Digest;
  /** Next slot the registry assigns (= number of slots ever used). */
  readonly nextSlot: number;
  /** Slots holding a live record. */
  readonly live: number;
  /** Slots holding a deleted record (Tombstone leaf). */
  readonly deleted: number;
}

/** One committed batch. */
export interface HistoryEntry extends RegistryHead {
  /** "create", "import", "insert", "replace", "delete" or "restore". */
  readonly kind: string;
  /** Records written by the batch. */
  readonly records: number;
  /** ISO 8601 commit time. */
  readonly committedAt: string;
  /** The slot of a single-record batch. */
  readonly slot?: number;
}
