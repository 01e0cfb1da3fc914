/**
 * The persistent name-keyed registry (mapping `record-leaf-v2`, docs/registry.md §"Name-keyed
 * registries"): a compact sparse Merkle tree (name-tree.ts) on LMDB whose keys are the names'
 * Keccak-256 prefixes (name-key.ts), so the root commits to names and a name has one place.
 *
 * One environment directory (data.mdb, lock.mdb, and the marker file MAPPING naming the mapping)
 * with eight tables; every row value ends with a
 * CRC-32 of table, key and value (row-seal.ts), checked on every read:
 * - `meta`: `config` (JSON: format, version 4, mapping, depth, leafMaxFields), `head` (JSON:
 *   batch, root, records, live, deleted), `retention` (JSON: commits, days), `window` (JSON: the
 *   oldest provable batch) and, while a block is written, `pending-block:<pid>`
 *   (pending-block.ts);
 * - `leaves`: key (8-byte BE) → record row (record-codec.ts) ‖ leaf digest (8 × u32 LE) ‖ the
 *   batch that created the row (u32 LE);
 * - `branches`: height byte ‖ prefix (8-byte BE) → digest of a node whose two children hold
 *   records (8 × u32 LE);
 * - `history`: batch number (4-byte BE) → the head after the batch, its kind and size (binary,
 *   name-history.ts);
 * - `kept` and `kept-index`: the superseded tree rows of the retention window, packed per batch
 *   (kept-chunks.ts), and the chunks that keep an earlier value of each row (name-versions.ts);
 * - `changes`: each batch's ordered updates (change-log.ts).
 *
 * Creation is atomic: the environment is created and initialised in a temporary sibling
 * directory that is renamed into place, so a directory either holds a complete registry or was
 * never created. Each batch is one LMDB write transaction (records, branches, head and history
 * entry together); readers see snapshots.
 *
 * This file opens and creates the store, checks and parses its configuration, and holds the
 * `NameStore` class, whose methods run on its parts: the read path (name-reads.ts), the write
 * path (name-writes.ts) and the full check (name-check.ts), all on the rows of name-rows.ts; the
 * upgrade of an older format is name-upgrade.ts.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Database, Transaction } from "lmdb" with { "resolution-mode": "require" };
import { compress, digestEquals, type Digest } from "../../hash/digest.js";
import { DEFAULT_LEAF_MAX_FIELDS, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { parseMetadataJson } from "./metadata-json.js";
import { DEFAULT_NAME_DEPTH, MAX_NAME_DEPTH, NAME_MAPPING_ID } from "../name-key.js";
import type { NonNfcRecord } from "./check.js";
import type { StoredRecord } from "./record-codec.js";
import { seal, unseal } from "./row-seal.js";
import { checkLeafMaxFields, defaultDigests } from "./store.js";
import { EnvironmentStore, RegistryEnvironment } from "./environment.js";
import { Compressor, nodeDigest, prefixOf, type CompactPath, type CompactSource } from "../hashing/name-tree.js";
import { defaultPermutation } from "../hashing/permutation.js";
import { checkRetention, encodeRetention, encodeWindow, type Retention } from "./name-versions.js";
import type { StoredBlock, StoredBlockSummary } from "./block-rows.js";
import type { ChangeHeader, LoggedChange } from "./change-log.js";
import { writerAlive, type PendingBlock, type PendingOutcome } from "./pending-block.js";
import {
  FORMAT,
  FORMAT_VERSION,
  KEY_CONFIG,
  KEY_HEAD,
  KEY_RETENTION,
  KEY_WINDOW,
  NAME_SEALING,
  T_META,
  encodeHead,
  encodeHistory,
  leafKey,
} from "./name-rows.js";
import { NameReads } from "./name-reads.js";
import { NameWrites } from "./name-writes.js";
import { checkNameStore } from "./name-check.js";
import type {
  BatchRows,
  BatchView,
  LeafRow,
  NameBatch,
  NameCreateOptions,
  NameHead,
  NameHistoryEntry,
  NameLookup,
  NameRegistryConfig,
  NameState,
  NameTables,
  NameWriter,
  ProvableWindow,
} from "./name-types.js";

export type {
  BatchRows,
  BatchView,
  LeafRow,
  NameBatch,
  NameCreateOptions,
  NameHead,
  NameHistoryEntry,
  NameLookup,
  NameRegistryConfig,
  NameState,
  NameWriter,
  ProvableWindow,
} from "./name-types.js";

/**
 * LMDB page size of a new name-keyed registry. A single-record commit copies about 40 pages (the
 * branches on its path, its leaf, the kept-index rows, the tails of the appended tables) and
 * splits a leaf page when its row grows; with 2 KiB pages the copies and splits cost half the
 * bytes of 4 KiB pages, while a kept chunk of a single-record batch (about 700 bytes) still fits
 * a page. A registry created with another page size keeps it.
 */
const PAGE_SIZE = 2048;

/**
 * Validates a name-keyed configuration.
 * @throws RegistryError `BAD_CONFIG`.
 */
export function checkNameConfig(config: Partial<NameRegistryConfig> = {}): NameRegistryConfig {
  const depth = config.depth ?? DEFAULT_NAME_DEPTH;
  const leafMaxFields = config.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_NAME_DEPTH) {
    throw new RegistryError(
      "BAD_CONFIG",
      `a name-keyed registry's depth must be an integer in [1, ${MAX_NAME_DEPTH}], got ${depth}`,
      { depth },
    );
  }
  checkLeafMaxFields(leafMaxFields);
  return { depth, leafMaxFields };
}

function isDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

const CREATING = ".creating-";

/** Removes temporary creation directories next to dir left by processes that no longer run. */
function removeStaleCreations(dir: string): void {
  const parent = dirname(dir);
  const prefix = basename(dir) + CREATING;
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const e of entries) {
    if (!e.startsWith(prefix)) continue;
    const pid = Number(e.slice(prefix.length).split("-")[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === "EPERM";
    }
    if (!alive) rmSync(join(parent, e), { recursive: true, force: true });
  }
}

/** Marker file of a name-keyed registry directory (written before the directory is renamed into place). */
export const MAPPING_FILE = "MAPPING";

/**
 * The mapping of a registry directory: `record-leaf-v2` when it holds the MAPPING marker of a
 * name-keyed registry, `record-leaf-v1` for a slot registry (no marker), undefined when the
 * directory holds no registry database. Reads no database page.
 */
export function peekRegistryMapping(dir: string): string | undefined {
  if (!isDir(dir) || !existsSync(join(dir, "data.mdb"))) return undefined;
  const marker = join(dir, MAPPING_FILE);
  if (!existsSync(marker)) return "record-leaf-v1";
  try {
    return readFileSync(marker, "utf8").trim();
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `cannot read ${marker}: ${(e as Error).message}`, { dir });
  }
}

/**
 * A name-keyed registry (record-leaf-v2) on LMDB: a record's key is the first `depth` bits of Keccak-256 of its name, so a proof also shows the name is held nowhere else (docs/registry.md). A failing operation changes nothing.
 * @throws RegistryError (`RegistryErrorCode`): `DB_MISSING`, `DB_CORRUPT`, `WRONG_MAPPING`, `CONFIG_MISMATCH`, …
 * @example
 *   const store = NameStore.openOrCreate("./names", { depth: 48 });
 *   console.log(store.lookup("left-pad"));
 *   store.closeSync();
 */
export class NameStore extends EnvironmentStore {
  readonly config: NameRegistryConfig;
  readonly mapping = NAME_MAPPING_ID;
  /** default_h for h = 0..depth. */
  readonly defaults: readonly Digest[];
  readonly tombstoneDigest: Digest;
  private readonly meta: Database<Buffer, Buffer>;
  private readonly leaves: Database<Buffer, Buffer>;
  private readonly branches: Database<Buffer, Buffer>;
  private readonly historyDb: Database<Buffer, Buffer>;
  private readonly kept: Database<Buffer, Buffer>;
  private readonly keptIndex: Database<Buffer, Buffer>;
  private readonly changes: Database<Buffer, Buffer>;
  private compressor: Compressor | undefined;
  /** The tables and fixed values the parts below work on. */
  private readonly tables: NameTables;
  private readonly reads: NameReads;
  private readonly writes: NameWrites;

  private constructor(dir: string, env: RegistryEnvironment) {
    super(env);
    const sub = (name: string) => env.table(name)!;
    this.meta = sub("meta");
    this.leaves = sub("leaves");
    this.branches = sub("branches");
    this.historyDb = sub("history");
    this.kept = sub("kept");
    this.keptIndex = env.table("kept-index", true)!;
    this.changes = sub("changes");
    const raw = this.meta.get(KEY_CONFIG);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `${dir} is an LMDB environment without a registry configuration`, { dir });
    this.config = parseConfig(unseal(T_META, KEY_CONFIG, raw, "meta row config"), dir);
    this.defaults = defaultDigests(this.config.depth, this.config.leafMaxFields);
    this.tombstoneDigest = hashLeaf(TOMBSTONE, this.config.leafMaxFields);
    this.tables = {
      env,
      dir: this.dir,
      config: this.config,
      defaults: this.defaults,
      tombstoneDigest: this.tombstoneDigest,
      meta: this.meta,
      leaves: this.leaves,
      branches: this.branches,
      historyDb: this.historyDb,
      kept: this.kept,
      keptIndex: this.keptIndex,
      changes: this.changes,
      compressor: () => this.compressorOf(),
    };
    this.reads = new NameReads(this.tables);
    this.writes = new NameWrites(this.tables, this.reads);
  }

  private static build(dir: string, readOnly: boolean): NameStore {
    const env = RegistryEnvironment.open(dir, readOnly, NAME_SEALING, PAGE_SIZE);
    try {
      const store = new NameStore(dir, env);
      store.checkHead();
      if (store.pendingBlocks().some((p) => !writerAlive(p))) {
        if (!readOnly) store.recoverPendingBlocks();
        else {
          // Settling writes the registry: a read-only open settles through a writable one first.
          env.closeSync();
          try {
            NameStore.build(dir, false).closeSync();
          } catch {
            // not writable here (permissions, read-only media): the next writable open settles it
          }
          return NameStore.build(dir, true);
        }
      }
      return store;
    } catch (e) {
      env.closeSync();
      if (e instanceof RegistryError) throw e;
      throw new RegistryError("DB_CORRUPT", `cannot read the registry database at ${dir}: ${(e as Error).message}`, {
        dir,
      });
    }
  }

  /**
   * Opens an existing name-keyed registry.
   * @throws RegistryError `DB_MISSING`, `DB_CORRUPT` (damaged rows, inconsistent head),
   * `WRONG_MAPPING` (a slot registry: open it with `RegistryStore.open` or `openRegistry`).
   */
  static open(dir: string, options: { readOnly?: boolean } = {}): NameStore {
    if (!isDir(dir) || !existsSync(join(dir, "data.mdb"))) {
      throw new RegistryError(
        "DB_MISSING",
        `no registry database at ${dir} (expected ${join(dir, "data.mdb")}); create one with \`ssgkr registry import\``,
        { dir },
      );
    }
    const mapping = peekRegistryMapping(dir);
    if (mapping !== NAME_MAPPING_ID) {
      throw new RegistryError(
        "WRONG_MAPPING",
        `registry at ${dir} has mapping ${mapping ?? "(unknown)"}, not the name-keyed ${NAME_MAPPING_ID}: ${mapping === "record-leaf-v1" ? "it is a slot registry; open it with RegistryStore.open or openRegistry (open-any.ts)" : "open it with openRegistry (open-any.ts)"}`,
        { dir, mapping, expected: NAME_MAPPING_ID },
      );
    }
    return NameStore.build(dir, options.readOnly === true);
  }

  /**
   * Opens the registry at dir, creating it atomically (temporary directory renamed into place)
   * if dir does not exist or is empty.
   * @throws RegistryError `BAD_CONFIG`, `CONFIG_MISMATCH`, `DB_CORRUPT`.
   */
  static openOrCreate(dir: string, config: NameCreateOptions = {}): NameStore {
    const retention = checkRetention(config.retention);
    const wanted = checkNameConfig(config);
    if (isDir(dir) && existsSync(join(dir, "data.mdb"))) {
      const store = NameStore.open(dir);
      const c = store.config;
      if (
        (config.depth !== undefined && c.depth !== wanted.depth) ||
        (config.leafMaxFields !== undefined && c.leafMaxFields !== wanted.leafMaxFields)
      ) {
        store.closeSync();
        throw new RegistryError(
          "CONFIG_MISMATCH",
          `registry at ${dir} has depth ${c.depth} and leaf bound ${c.leafMaxFields}; asked for depth ${wanted.depth} and leaf bound ${wanted.leafMaxFields}`,
          { stored: c, wanted },
        );
      }
      return store;
    }
    if (existsSync(dir)) {
      if (!isDir(dir)) throw new RegistryError("DB_CORRUPT", `${dir} is a file, not a registry directory`, { dir });
      const entries = readdirSync(dir);
      if (entries.length > 0)
        throw new RegistryError(
          "DB_CORRUPT",
          `${dir} is not empty and holds no registry database (found ${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""})`,
          { dir },
        );
    }
    mkdirSync(dirname(dir), { recursive: true });
    removeStaleCreations(dir);
    const tmp = `${dir}${CREATING}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    try {
      mkdirSync(tmp);
      const env = RegistryEnvironment.open(tmp, false, NAME_SEALING, PAGE_SIZE);
      try {
        initialize(env, wanted, retention);
      } finally {
        env.closeSync();
      }
      writeFileSync(join(tmp, MAPPING_FILE), NAME_MAPPING_ID + "\n");
      if (existsSync(dir)) rmdirSync(dir);
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (e instanceof RegistryError) throw e;
      throw new RegistryError("DB_CORRUPT", `cannot create the registry at ${dir}: ${(e as Error).message}`, { dir });
    }
    return NameStore.build(dir, false);
  }

  private compressorOf(): Compressor {
    this.compressor ??= new Compressor(defaultPermutation());
    return this.compressor;
  }

  /** Row access for the tree computations (inside `txn`, or the current write transaction). */
  source(txn?: Transaction): CompactSource {
    return this.reads.source(txn);
  }

  /** The stored record and leaf digest at a key, or undefined. */
  leafRow(key: number, txn?: Transaction): LeafRow | undefined {
    return this.reads.leafRow(key, txn);
  }

  private checkHead(): void {
    this.read((txn) => {
      const head = this.head(txn);
      const d = this.config.depth;
      const src = this.reads.source(txn);
      const c = this.tables.compressor();
      const top = compress(nodeDigest(src, c, this.defaults, d - 1, 0), nodeDigest(src, c, this.defaults, d - 1, 1));
      if (!digestEquals(top, head.root))
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: head root of batch ${head.batch} does not match the stored tree`,
          { batch: head.batch },
        );
    });
  }

  /** The committed head. */
  head(txn?: Transaction): NameHead {
    return this.reads.head(txn);
  }

  /** Every committed batch, oldest first. */
  history(): NameHistoryEntry[] {
    return this.reads.history();
  }

  /** The key of a name in this registry. @throws RegistryError `BAD_NAME`. */
  keyOf(name: string): number {
    return this.reads.keyOf(name);
  }

  /** What is stored at a name's key. @throws RegistryError `BAD_NAME`. */
  lookup(name: string, txn?: Transaction): NameLookup {
    return this.reads.lookup(name, txn);
  }

  /** Leaf of a stored record. */
  leafOf(record: StoredRecord): Leaf {
    return this.reads.leafOf(record);
  }

  /** `depth` siblings of a key, leaf level first, recomputed from the stored rows. */
  path(key: number, txn?: Transaction): CompactPath {
    return this.reads.path(key, txn);
  }

  /** Name, leaf, path and head from one snapshot. @throws RegistryError `BAD_NAME`. */
  nameState(name: string): NameState {
    return this.reads.nameState(name);
  }

  /**
   * All stored keys, ascending (the importer's in-memory index). `inWrite`: as the current write
   * transaction sees them (`writeTransaction`), not a read snapshot.
   */
  keys(inWrite = false): Float64Array {
    return this.reads.keys(inWrite);
  }

  /** The compressor the store hashes nodes with (WASM kernel when available). */
  hasher(): Compressor {
    return this.tables.compressor();
  }

  /** The retention of earlier roots. */
  retention(txn?: Transaction): Retention {
    return this.reads.retention(txn);
  }

  /**
   * Changes the retention of earlier roots (one write transaction); the next commit applies it.
   * @throws RegistryError `BAD_CONFIG`.
   */
  setRetention(retention: Partial<Retention>): Retention {
    return this.writes.setRetention(retention);
  }

  /** The history entry of one batch. @throws RegistryError `DB_CORRUPT` when the batch is past the head or its row is missing. */
  batchEntry(batch: number): NameHistoryEntry {
    return this.reads.historyEntry(batch);
  }

  /**
   * The change-log header of a batch (change-log.ts): its count of updates and parts, or
   * undefined when the batch's changes were not recorded (committed before the registry kept them).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  changeHeader(batch: number, txn?: Transaction): ChangeHeader | undefined {
    return this.reads.changeHeader(batch, txn);
  }

  /**
   * Part `part` of a batch's logged updates, in order.
   * @throws RegistryError `CHANGES_NOT_RECORDED` (no change log for the batch), `DB_CORRUPT`.
   */
  changePart(batch: number, part: number, txn?: Transaction): LoggedChange[] {
    return this.reads.changePart(batch, part, txn);
  }

  /**
   * The keys holding a record after batch `batch` (live or deleted), ascending, in one scan of
   * the leaf rows (of their keys only at the head).
   * @throws RegistryError `DB_CORRUPT` (a count that differs from the batch's history entry).
   */
  leafKeysAt(batch: number): Float64Array {
    return this.reads.leafKeysAt(batch);
  }

  /**
   * Every logged update of a batch logged as its created rows: the inserts of those rows in key
   * order, each with its value at the batch, in one scan of the leaf rows.
   * @throws RegistryError `DB_CORRUPT` (a row count that differs from the header's).
   */
  createdChanges(batch: number): LoggedChange[] {
    return this.reads.createdChanges(batch);
  }

  /**
   * Reads the tree as it was after batch `batch`, in one snapshot: row access (`source`) and the
   * leaf row of a key (`leafRow`) at that batch, and its history entry.
   * @throws RegistryError `ROOT_NOT_PROVABLE` (the batch is before the oldest provable batch: its
   *   rows are pruned; `details` name the oldest), `DB_CORRUPT` (a batch past the head).
   */
  readAtBatch<T>(batch: number, fn: (at: BatchView) => T): T {
    return this.reads.readAtBatch(batch, fn);
  }

  /** The provable roots: the oldest provable batch and its root, the head batch and the retention. */
  window(txn?: Transaction): ProvableWindow {
    return this.reads.window(txn);
  }

  /**
   * The latest provable batch whose root is `root` (the head's entry for the head root).
   * @throws RegistryError `ROOT_NOT_PROVABLE` (a root of the history before the oldest provable
   * batch; `details` name the oldest provable root and batch), `ROOT_UNKNOWN` (not a root of the
   * history).
   */
  provableBatch(root: ArrayLike<number>, txn?: Transaction): NameHead {
    return this.reads.provableBatch(root, txn);
  }

  /**
   * Name, leaf, path and head at a provable root (the head when `root` is undefined), from one
   * snapshot.
   * @throws RegistryError `BAD_NAME`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`.
   */
  nameStateAt(name: string, root: ArrayLike<number> | undefined): NameState {
    return this.reads.nameStateAt(name, root);
  }

  /**
   * The leaf row of a key at batch b (undefined when the key held no record then).
   * @param chunks kept chunks already decoded in this snapshot (`versionAt`).
   */
  leafRowAt(
    key: number,
    txn: Transaction,
    b: number,
    chunks?: Map<string, Map<string, Uint8Array>>,
  ): LeafRow | undefined {
    return this.reads.leafRowAt(key, txn, b, chunks);
  }

  /**
   * Commits one batch in one write transaction.
   * @throws RegistryError `CONCURRENT_UPDATE` if the head moved since the batch was prepared
   * (or since its pending block was recorded).
   */
  commit(batch: NameBatch): NameHistoryEntry {
    return this.writes.commit(batch);
  }

  /**
   * Runs fn in one write transaction of the registry, holding LMDB's write lock: reads inside see
   * the then-current head (a commit of another process before it is seen), and a `commit` inside
   * commits with it (registry/sequencer plans each epoch this way).
   */
  writeTransaction<T>(fn: () => T): T {
    return this.env.write(fn);
  }

  /**
   * A table of this registry's environment beside the tree's (registry/sequencer's accepted
   * writes and idempotency keys), opened or created; undefined when a read-only environment does
   * not hold it.
   */
  sideTable(name: string): Database<Buffer, Buffer> | undefined {
    return this.env.table(name);
  }

  /** The pending block rows (pending-block.ts), in pid order. @throws RegistryError `DB_CORRUPT`. */
  pendingBlocks(txn?: Transaction): PendingBlock[] {
    return this.writes.pendingBlocks(txn);
  }

  /**
   * Records, in its own write transaction, that this process is about to write the block
   * directory `dir` for the next batch (docs/registry.md "Block proofs"). Commit the block with
   * `pending` set to the returned record and remove it with `clearPendingBlock`.
   */
  recordPendingBlock(dir: string): PendingBlock {
    return this.writes.recordPendingBlock(dir);
  }

  /** Removes a pending block row (only the row of the same writer and token). */
  clearPendingBlock(pending: PendingBlock): void {
    this.writes.clearPendingBlock(pending);
  }

  /**
   * Settles the pending blocks of writers that no longer run (pending-block.ts): each block's
   * files by the registry's head, then its row removed, one write transaction per block.
   * A registry opened for writing does this when it opens.
   */
  recoverPendingBlocks(): { block: PendingBlock; outcome: PendingOutcome }[] {
    return this.writes.recoverPendingBlocks();
  }

  /**
   * Inside the write transaction of the block's batch (the `beforeCommit` of `applyNameBlock`):
   * stores the profile v3 block proof of batch `summary.batch` (block-rows.ts), which then commits
   * with the batch or not at all.
   * @throws RegistryError `BAD_BLOCK` when the summary does not describe the given bytes.
   */
  recordBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): void {
    this.writes.recordBlockProof(summary, blockJson, proof);
  }

  /**
   * Stores the profile v3 block proof of an already committed batch in its own write transaction
   * (the block prover of consistency/block-prover.ts, after the commit). A batch that already has
   * one keeps it.
   * @returns whether the proof was stored.
   * @throws RegistryError `BAD_BLOCK` (the summary does not describe the bytes, or does not
   *   match the batch's history: its roots), `DB_CORRUPT`.
   */
  keepBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): boolean {
    return this.writes.keepBlockProof(summary, blockJson, proof);
  }

  /**
   * The stored block proof of a batch (block.json's text and block.bin's bytes), or undefined
   * when the batch was not a profile v3 block (docs/registry.md "Block proofs"); `part` names a
   * part of a batch proved in parts (undefined: a batch of one block).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  blockProof(batch: number, part?: number): StoredBlock | undefined {
    return this.reads.blockProof(batch, part);
  }

  /**
   * The summaries of the stored block proofs, in batch order (a batch proved in parts: one per
   * part, in part order): those after batch `after` (default: from the first), at most `limit`
   * (default 100).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  blockProofs(options: { readonly after?: number; readonly limit?: number } = {}): StoredBlockSummary[] {
    return this.reads.blockProofs(options);
  }

  /**
   * Commits one batch in one write transaction whose writes may wait for other work (the bulk
   * import writes leaf rows while the hash workers compute the tree). The transaction holds the
   * registry's write lock until it commits; if `write` rejects, nothing is written.
   * @throws RegistryError `CONCURRENT_UPDATE` if the head moved since the batch was prepared.
   */
  async commitAsync(batch: {
    readonly kind: string;
    readonly expectBatch: number;
    readonly write: (w: NameWriter, head: NameHead) => Promise<BatchRows>;
  }): Promise<NameHistoryEntry> {
    return await this.writes.commitAsync(batch);
  }

  /** Iterates every leaf row in key order (check and export). */
  *leafRows(txn: Transaction): Generator<{ key: number; record: StoredRecord; digest: Digest; created: number }> {
    yield* this.reads.leafRows(txn);
  }

  /** Iterates every branch row in key order (height, then prefix). */
  *branchRows(txn: Transaction): Generator<{ h: number; p: number; digest: Digest }> {
    yield* this.reads.branchRows(txn);
  }

  /**
   * Scans the whole store: every row's checksum, every record's key and leaf digest against its
   * name and value, the counts of the head, and the tree recomputed from the records (root and
   * every branch row). Records under names that are not in Unicode NFC are listed (`nonNfc`, by
   * key), not damage.
   * @throws RegistryError `DB_CORRUPT` naming the first damaged or inconsistent row.
   */
  check(onProgress?: (rows: number) => void): {
    records: number;
    branches: number;
    root: Digest;
    nonNfc: NonNfcRecord[];
  } {
    return checkNameStore(this.tables, this.reads, onProgress);
  }
}

function initialize(env: RegistryEnvironment, config: NameRegistryConfig, retention: Retention): void {
  const meta = env.table("meta")!;
  const history = env.table("history")!;
  env.table("leaves");
  env.table("branches");
  env.table("kept");
  env.table("kept-index", true);
  env.table("changes");
  const root = defaultDigests(config.depth, config.leafMaxFields)[config.depth]!;
  const head: NameHead = { batch: 0, root, records: 0, live: 0, deleted: 0 };
  const configJson = Buffer.from(
    JSON.stringify({
      format: FORMAT,
      version: FORMAT_VERSION,
      mapping: NAME_MAPPING_ID,
      depth: config.depth,
      leafMaxFields: config.leafMaxFields,
    }),
  );
  env.write(() => {
    meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, configJson));
    meta.putSync(KEY_RETENTION, seal(T_META, KEY_RETENTION, encodeRetention(retention)));
    meta.putSync(KEY_WINDOW, seal(T_META, KEY_WINDOW, encodeWindow(0)));
    env.putHeadAndHistory(
      meta,
      history,
      KEY_HEAD,
      encodeHead(head),
      0,
      encodeHistory({ ...head, kind: "create", written: 0, committedAt: new Date().toISOString() }),
    );
  });
}

function parseConfig(raw: Uint8Array, dir: string): NameRegistryConfig {
  const c = parseMetadataJson(raw, "configuration", dir);
  if (c["format"] === FORMAT && c["version"] === 2 && c["mapping"] === NAME_MAPPING_ID) {
    throw new RegistryError(
      "DB_OUTDATED",
      `registry at ${dir} has format version 2 (tree rows of the head only); \`ssgkr registry upgrade --db ${dir}\` converts it to format ${FORMAT_VERSION} (roots before the upgrade are not provable)`,
      { dir, version: 2 },
    );
  }
  if (c["format"] === FORMAT && c["version"] === 3 && c["mapping"] === NAME_MAPPING_ID) {
    throw new RegistryError(
      "DB_OUTDATED",
      `registry at ${dir} has format version 3 (one row per kept earlier value); \`ssgkr registry upgrade --db ${dir}\` converts it to format ${FORMAT_VERSION} (every root of its window stays provable)`,
      { dir, version: 3 },
    );
  }
  if (c["format"] !== FORMAT || c["version"] !== FORMAT_VERSION || c["mapping"] !== NAME_MAPPING_ID) {
    throw new RegistryError(
      "DB_CORRUPT",
      `registry at ${dir}: not a name-keyed registry ${JSON.stringify({ format: c["format"], version: c["version"], mapping: c["mapping"] })}`,
      { dir },
    );
  }
  try {
    return checkNameConfig({ depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number });
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: ${(e as Error).message}`, { dir });
  }
}

/** Prefix of a key at height h (re-exported for writers). */
export { prefixOf };

/** 8-byte BE key of a tree key. */
export { leafKey };
