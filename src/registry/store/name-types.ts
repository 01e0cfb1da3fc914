/**
 * The shapes of the name-keyed store (name-store.ts): its configuration, head, history entries,
 * lookups, the writers and batches of a commit, the provable window and a decoded leaf row; and
 * `NameTables`, the open store's tables and fixed values that its read path (name-reads.ts),
 * write path (name-writes.ts) and full check (name-check.ts) work on.
 */
import type { Database } from "lmdb" with { "resolution-mode": "require" };
import type { Digest } from "../../hash/digest.js";
import type { Leaf } from "../../smt/leaf.js";
import type { CompactPath, CompactSource, Compressor } from "../hashing/name-tree.js";
import type { StoredRecord } from "./record-codec.js";
import type { RegistryEnvironment } from "./environment.js";
import type { Retention } from "./name-versions.js";
import type { LoggedChange } from "./change-log.js";
import type { PendingBlock } from "./pending-block.js";

/** The configuration of a name-keyed registry (record-leaf-v2), fixed when it is created. */
export interface NameRegistryConfig {
  /** Tree depth, 1..48 (default 48): keys are the first `depth` bits of Keccak-256(name). */
  readonly depth: number;
  /** Leaf bound B, 20..63 (default 31; `MAX_CONFIG_LEAF_MAX_FIELDS`). */
  readonly leafMaxFields: number;
}

/** Options of a new name-keyed registry: its configuration and how long earlier roots stay provable. */
export interface NameCreateOptions extends Partial<NameRegistryConfig> {
  /** Retention of earlier roots (default 1,000 batches and 30 days; `setRetention` changes it). */
  readonly retention?: Partial<Retention>;
}

/** The provable roots of a name-keyed registry: from the oldest provable batch to the head. */
export interface ProvableWindow {
  /** The oldest batch whose root is provable. */
  readonly oldestBatch: number;
  /** Its root. */
  readonly oldestRoot: Digest;
  /** The head batch. */
  readonly headBatch: number;
  readonly retention: Retention;
}

/** The committed state of a name-keyed registry. */
export interface NameHead {
  readonly batch: number;
  readonly root: Digest;
  /** Keys holding a record (live or deleted). */
  readonly records: number;
  readonly live: number;
  readonly deleted: number;
}

/** One committed batch of a name-keyed registry's history: the head after it and what it did. */
export interface NameHistoryEntry extends NameHead {
  /** "create", "import", "insert", "replace", "delete" or "restore". */
  readonly kind: string;
  /** Records written by the batch. */
  readonly written: number;
  readonly committedAt: string;
  /** The name of a single-record batch. */
  readonly name?: string;
}

/** What is stored at a name's key. */
export interface NameLookup {
  readonly name: string;
  readonly key: number;
  /** The record at the key when it is this name's (live or deleted). */
  readonly record: StoredRecord | undefined;
  /** A record of another name at the same key (a key collision), or undefined. */
  readonly other: StoredRecord | undefined;
  /** Empty (never registered), Tombstone (deleted) or the record's Occupied leaf. */
  readonly leaf: Leaf;
}

/** A name, its leaf, its path and the head, read from one snapshot. */
export interface NameState extends NameLookup {
  readonly path: CompactPath;
  readonly head: NameHead;
}

/** Writes of one batch (inside its transaction). */
export interface NameWriter {
  /**
   * Stores a leaf row: record row ‖ leaf digest. `append`: the key is above every stored key
   * (LMDB append mode: no search, pages filled completely; the bulk import writes in key order).
   * `absent`: the caller read in this transaction that no row is stored under the key (a new
   * record), so there is no earlier row to keep and none is looked up.
   */
  putLeaf(key: number, recordRow: Uint8Array, digest: ArrayLike<number>, append?: boolean, absent?: boolean): void;
  /** Stores a branch row; `append` as for `putLeaf`, in (height, prefix) order; `absent`: a new branch, none is looked up. */
  putBranch(h: number, p: number, digest: ArrayLike<number>, append?: boolean, absent?: boolean): void;
  /** Reads rows as the transaction sees them (its own writes included). */
  readonly source: CompactSource;
  /**
   * Records the batch's updates in order (change-log.ts), written with the batch; call once per
   * batch, after its rows (a batch that logs nothing and leaves the root as it was logs none).
   */
  logChanges(changes: readonly LoggedChange[]): void;
  /**
   * Records that the batch's updates are the inserts of the `count` leaf rows it creates, in key
   * order (a bulk import into an empty registry: the log then holds no second copy of the records).
   */
  logCreatedRows(count: number): void;
}

/** What a batch's writes return: the new root and counts. */
export interface BatchRows {
  readonly root: Digest;
  readonly newRecords: number;
  readonly liveDelta: number;
  readonly deletedDelta: number;
  readonly written: number;
}

/** A batch: `write` stores rows and returns the new root and counts; throwing aborts it. */
export interface NameBatch {
  readonly kind: string;
  /**
   * The head the batch was prepared against; undefined: the head as the batch's transaction sees
   * it (a batch planned inside the transaction, `writeTransaction`: the sequencer's epochs).
   */
  readonly expectBatch: number | undefined;
  readonly name?: string;
  /** The pending block this batch commits (`recordPendingBlock`): its row is marked committed in the batch's transaction. */
  readonly pending?: PendingBlock;
  readonly write: (w: NameWriter, head: NameHead) => BatchRows;
}

/** A decoded leaf row: the record, its leaf digest and the batch that created the row. */
export interface LeafRow {
  readonly record: StoredRecord;
  readonly digest: Digest;
  readonly created: number;
}

/** The tree as it was after one batch, in one snapshot (`NameStore.readAtBatch`). */
export interface BatchView {
  /** Row access at that batch. */
  readonly source: CompactSource;
  /** The leaf row of a key at that batch (undefined: no record). */
  readonly leafRow: (key: number) => LeafRow | undefined;
  /** The batch's history entry. */
  readonly entry: NameHistoryEntry;
}

/**
 * The tables and fixed values of an open name-keyed store, which its parts share (one object
 * per open store, built by its constructor).
 */
export interface NameTables {
  readonly env: RegistryEnvironment;
  /** The registry directory. */
  readonly dir: string;
  readonly config: NameRegistryConfig;
  /** default_h for h = 0..depth. */
  readonly defaults: readonly Digest[];
  readonly tombstoneDigest: Digest;
  readonly meta: Database<Buffer, Buffer>;
  readonly leaves: Database<Buffer, Buffer>;
  readonly branches: Database<Buffer, Buffer>;
  readonly historyDb: Database<Buffer, Buffer>;
  readonly kept: Database<Buffer, Buffer>;
  readonly keptIndex: Database<Buffer, Buffer>;
  readonly changes: Database<Buffer, Buffer>;
  /** The compressor the store hashes nodes with (made on first use). */
  compressor(): Compressor;
}
