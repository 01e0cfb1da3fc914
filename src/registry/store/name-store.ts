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
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import type { Database, Transaction } from "lmdb" with { "resolution-mode": "require" };
import { compress, digestEquals, type Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { DEFAULT_LEAF_MAX_FIELDS, EMPTY, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson, rootFromJson } from "./metadata-json.js";
import { nameBytes, recordLeaf } from "../mapping.js";
import { DEFAULT_NAME_DEPTH, MAX_NAME_DEPTH, NAME_MAPPING_ID, keyOfDigest } from "../name-key.js";
import { blockParts, maxBlockUpdates } from "../block-size.js";
import { nfcFormOf } from "../name-form.js";
import type { NonNfcRecord } from "./check.js";
import { keccak256 } from "../../kernels/keccak-batch.js";
import { RecordState, decodeRecord, writeSlotKey, readSlotKey, type StoredRecord } from "./record-codec.js";
import { seal, sealInto, unseal } from "./row-seal.js";
import { checkLeafMaxFields, defaultDigests } from "./store.js";
import { EnvironmentStore, RegistryEnvironment, historyKey, type RowSealing } from "./environment.js";
import {
  Compressor,
  NO_STORED_ROWS,
  nodeDigest,
  pathOf,
  prefixOf,
  updateCompact,
  type CompactPath,
  type CompactSource,
} from "../hashing/name-tree.js";
import { defaultPermutation } from "../hashing/permutation.js";
import { formatRoot } from "../root.js";
import {
  DEFAULT_RETENTION,
  PRUNE_BUDGET_ROWS,
  T_PRUNING,
  T_VERSION,
  advanceWindow,
  checkRetention,
  decodeRetention,
  decodeWindow,
  encodeRetention,
  encodeWindow,
  pruningBatch,
  rowKeyLength,
  versionKey,
  type Retention,
} from "./name-versions.js";
import { leafDelta, recordRowOfDelta } from "./leaf-delta.js";
import { decodeHistoryJson, decodeHistoryRow, encodeHistoryRow } from "./name-history.js";
import {
  KEPT_CHUNK_ROWS,
  KeptChunkBuilder,
  T_KEPT,
  keptIndexKey,
  keptKey,
  keptKeyParts,
  keptRows,
  type KeptRow,
} from "./kept-chunks.js";
import {
  BLOCK_ROW_PREFIX,
  BLOCK_SUMMARY_PREFIX,
  blockRowKey,
  decodeBlockRow,
  decodeBlockSummary,
  encodeBlockRow,
  encodeBlockSummary,
  type StoredBlock,
  type StoredBlockSummary,
} from "./block-rows.js";
import {
  CHANGE_PART_UPDATES,
  CHANGES_PREFIX,
  changeKeyOfMetaKey,
  changeRowName,
  encodeChanges,
  encodeCreatedChanges,
  changeHeaderKey,
  changePartKey,
  decodeChangeHeader,
  decodeChangePart,
  type ChangeHeader,
  type LoggedChange,
} from "./change-log.js";
import {
  PENDING_BLOCK_PREFIX,
  decodePendingBlock,
  encodePendingBlock,
  forgetPendingToken,
  newPendingToken,
  pendingBlockKey,
  settlePendingBlock,
  writerAlive,
  type PendingBlock,
  type PendingOutcome,
} from "./pending-block.js";

const FORMAT = "ssgkr-registry";
const FORMAT_VERSION = 4;
const T_META = 1;
const T_LEAF = 2;
const T_BRANCH = 3;
const T_HISTORY = 4;
/** Row-seal tag of a change-log row (tags 5 and 6 were format 3's versions and pruning lists, 7 is a kept chunk). */
const T_CHANGES = 8;
const KEY_CONFIG = Buffer.from("config");
const KEY_HEAD = Buffer.from("head");
const KEY_RETENTION = Buffer.from("retention");
const KEY_WINDOW = Buffer.from("window");
/**
 * LMDB page size of a new name-keyed registry. A single-record commit copies about 40 pages (the
 * branches on its path, its leaf, the kept-index rows, the tails of the appended tables) and
 * splits a leaf page when its row grows; with 2 KiB pages the copies and splits cost half the
 * bytes of 4 KiB pages, while a kept chunk of a single-record batch (about 700 bytes) still fits
 * a page. A registry created with another page size keeps it.
 */
const PAGE_SIZE = 2048;
/** Bytes of a leaf row's creating batch. */
const CREATED_BYTES = 4;
const APPEND = { append: true };

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
   */
  putLeaf(key: number, recordRow: Uint8Array, digest: ArrayLike<number>, append?: boolean): void;
  /** Stores a branch row; `append` as for `putLeaf`, in (height, prefix) order. */
  putBranch(h: number, p: number, digest: ArrayLike<number>, append?: boolean): void;
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

/** 8-byte BE key of a tree key. */
export function leafKey(key: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  writeSlotKey(b, 0, key);
  return b;
}

function branchKey(h: number, p: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = h;
  writeSlotKey(b, 1, p);
  return b;
}

/** The name-keyed store's row sealing: a checksum over table tag, key and value (row-seal.ts). */
const NAME_SEALING: RowSealing = {
  seal: (table, key, value) => seal(table === "meta" ? T_META : T_HISTORY, key, value),
  open: (table, key, row, what) =>
    unseal(table === "meta" ? T_META : T_HISTORY, key, row, typeof what === "string" ? what : what()),
  historyRowName: (key) => `history row ${Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(0)}`,
};

function readDigest(bytes: Uint8Array, at: number, what: string): Digest {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 32);
  const d = new Uint32Array(8);
  for (let k = 0; k < 8; k++) {
    const w = view.getUint32(4 * k, true);
    if (w >= P) throw new RegistryError("DB_CORRUPT", `${what} holds a non-canonical word ${w}`, { row: what });
    d[k] = w;
  }
  return d;
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
    const o = txn ? { transaction: txn } : undefined;
    const one = (opts: object): number | undefined => {
      for (const k of this.leaves.getKeys({ ...opts, ...(o ?? {}), limit: 1 } as never))
        return readSlotKey(k as Buffer);
      return undefined;
    };
    return {
      firstKeyIn: (lo, hi) => one({ start: leafKey(lo), end: leafKey(hi) }),
      lastKeyIn: (lo, hi) =>
        one(
          lo === 0
            ? { start: leafKey(hi - 1), reverse: true }
            : { start: leafKey(hi - 1), end: leafKey(lo - 1), reverse: true },
        ),
      leafDigest: (key) => this.leafRow(key, txn)!.digest,
      branch: (h, p) => {
        const k = branchKey(h, p);
        const raw = this.branches.get(k, o);
        const what = `branch row (height ${h}, prefix ${p})`;
        if (raw === undefined) throw new RegistryError("DB_CORRUPT", `${what} is missing`, { row: what });
        const v = unseal(T_BRANCH, k, raw, what);
        if (v.length !== 32)
          throw new RegistryError("DB_CORRUPT", `${what} has ${v.length} bytes, expected 32`, { row: what });
        return readDigest(v, 0, what);
      },
    };
  }

  /** The stored record and leaf digest at a key, or undefined. */
  leafRow(key: number, txn?: Transaction): LeafRow | undefined {
    const k = leafKey(key);
    const raw = this.leaves.get(k, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return undefined;
    return decodeLeafRow(k, raw, key);
  }

  private checkHead(): void {
    this.read((txn) => {
      const head = this.head(txn);
      const d = this.config.depth;
      const src = this.source(txn);
      const c = this.compressorOf();
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
    const raw = this.meta.get(KEY_HEAD, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.dir} has no head`, { row: "meta row head" });
    return decodeHead(unseal(T_META, KEY_HEAD, raw, "meta row head"), this.dir);
  }

  /** Every committed batch, oldest first. */
  history(): NameHistoryEntry[] {
    return this.env.history(this.historyDb, (value) => decodeHistory(value, this.dir));
  }

  /** The key of a name in this registry. @throws RegistryError `BAD_NAME`. */
  keyOf(name: string): number {
    return keyOfDigest(keccak256(nameBytes(name)), this.config.depth);
  }

  /** What is stored at a name's key. @throws RegistryError `BAD_NAME`. */
  lookup(name: string, txn?: Transaction): NameLookup {
    const key = this.keyOf(name);
    const row = this.leafRow(key, txn);
    if (row === undefined) return { name, key, record: undefined, other: undefined, leaf: EMPTY };
    if (row.record.name !== name)
      return { name, key, record: undefined, other: row.record, leaf: this.leafOf(row.record) };
    return { name, key, record: row.record, other: undefined, leaf: this.leafOf(row.record) };
  }

  /** Leaf of a stored record. */
  leafOf(record: StoredRecord): Leaf {
    return record.state === RecordState.Deleted
      ? TOMBSTONE
      : recordLeaf(record.name, record.value, this.config.leafMaxFields);
  }

  /** `depth` siblings of a key, leaf level first, recomputed from the stored rows. */
  path(key: number, txn?: Transaction): CompactPath {
    return pathOf(this.source(txn), this.compressorOf(), this.defaults, this.config.depth, key);
  }

  /** Name, leaf, path and head from one snapshot. @throws RegistryError `BAD_NAME`. */
  nameState(name: string): NameState {
    return this.read((txn) => {
      const l = this.lookup(name, txn);
      return { ...l, path: this.path(l.key, txn), head: this.head(txn) };
    });
  }

  /**
   * All stored keys, ascending (the importer's in-memory index). `inWrite`: as the current write
   * transaction sees them (`writeTransaction`), not a read snapshot.
   */
  keys(inWrite = false): Float64Array {
    const scan = (txn: Transaction | undefined) => {
      const n = this.head(txn).records;
      const out = new Float64Array(n);
      let i = 0;
      for (const k of this.leaves.getKeys(txn ? { transaction: txn } : {})) {
        if (i >= n)
          throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: more leaf rows than the head's ${n} records`);
        out[i++] = readSlotKey(k as Buffer);
      }
      if (i !== n) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: ${i} leaf rows, the head says ${n}`);
      return out;
    };
    return inWrite ? scan(undefined) : this.read(scan);
  }

  /** The compressor the store hashes nodes with (WASM kernel when available). */
  hasher(): Compressor {
    return this.compressorOf();
  }

  /**
   * Row writers of the current write transaction, for batch `batch` (scratch buffers: LMDB
   * copies keys and values on put). A row it overwrites is kept first, once per batch: its
   * earlier value goes into the batch's chunks in `kept` and the row's `kept-index` entry names
   * the chunk (kept-chunks.ts); `flushKept` writes the last chunk.
   */
  private writer(batch: number): NameWriter & {
    readonly flushKept: () => void;
    readonly logged: () => readonly LoggedChange[] | { readonly created: number } | undefined;
  } {
    const key8 = Buffer.alloc(8);
    const key9 = Buffer.alloc(9);
    let buf = Buffer.alloc(4096);
    const kept = new Set<string>();
    let chunk = new KeptChunkBuilder();
    let chunkNo = 0;
    const flushKept = (): void => {
      if (chunk.rows === 0) return;
      const k = keptKey(batch, chunkNo);
      if ((this.kept.putSync(k, seal(T_KEPT, k, chunk.bytes()), APPEND) as unknown) === false)
        throw new RegistryError("DB_CORRUPT", `kept rows of batch ${batch} are not above the stored ones`, {
          batch,
        });
      chunkNo++;
      chunk = new KeptChunkBuilder();
    };
    let logged: LoggedChange[] | { created: number } | undefined;
    const digestAt = (d: ArrayLike<number>, at: number) => {
      for (let w = 0; w < 8; w++) {
        const x = d[w]!;
        buf[at] = x & 0xff;
        buf[at + 1] = (x >>> 8) & 0xff;
        buf[at + 2] = (x >>> 16) & 0xff;
        buf[at + 3] = x >>> 24;
        at += 4;
      }
    };
    /** Keeps the value row (height, prefix) had before this batch (the first overwrite in the batch only). */
    const keep = (height: number, prefix: number, value: Uint8Array): void => {
      const id = keptIndexKey(height, prefix);
      const s = id.toString("latin1");
      if (kept.has(s)) return;
      kept.add(s);
      if (chunk.rows === KEPT_CHUNK_ROWS) flushKept();
      chunk.add(height, prefix, value);
      this.keptIndex.putSync(id, keptKey(batch, chunkNo));
    };
    return {
      putLeaf: (key, row, digest, append) => {
        writeSlotKey(key8, 0, key);
        let created = batch;
        if (append !== true) {
          const old = this.leaves.get(key8);
          if (old !== undefined) {
            const what = `leaf row of key ${key}`;
            const v = unseal(T_LEAF, key8, old, what);
            if (v.length < 32 + CREATED_BYTES + 4)
              throw new RegistryError("DB_CORRUPT", `${what} is too short (${v.length} bytes)`, { row: what });
            created = createdOf(v);
            keep(0, key, leafDelta(v, what));
          }
        }
        const n = row.length + 32 + CREATED_BYTES;
        if (buf.length < n + 4) buf = Buffer.alloc(2 * (n + 4));
        buf.set(row, 0);
        digestAt(digest, row.length);
        buf.writeUInt32LE(created, row.length + 32);
        const v = buf.subarray(0, sealInto(T_LEAF, key8, buf, n));
        if (append === true) {
          if ((this.leaves.putSync(key8, v, APPEND) as unknown) === false)
            throw new RegistryError("DB_CORRUPT", `leaf row of key ${key} is not above the stored keys`);
        } else this.leaves.putSync(key8, v);
      },
      putBranch: (h, p, digest, append) => {
        key9[0] = h;
        writeSlotKey(key9, 1, p);
        if (append !== true) {
          const old = this.branches.get(key9);
          if (old !== undefined) keep(h, p, unseal(T_BRANCH, key9, old, `branch row (height ${h}, prefix ${p})`));
        }
        digestAt(digest, 0);
        const v = buf.subarray(0, sealInto(T_BRANCH, key9, buf, 32));
        if (append === true) {
          if ((this.branches.putSync(key9, v, APPEND) as unknown) === false)
            throw new RegistryError(
              "DB_CORRUPT",
              `branch row (height ${h}, prefix ${p}) is not above the stored branches`,
            );
        } else this.branches.putSync(key9, v);
      },
      source: this.source(),
      flushKept,
      logChanges: (changes) => {
        if (logged !== undefined && !Array.isArray(logged))
          throw new RegistryError("DB_CORRUPT", "a batch logs its changes as a list or as its created rows, not both");
        logged = [...(logged ?? []), ...changes];
      },
      logCreatedRows: (count) => {
        if (logged !== undefined)
          throw new RegistryError("DB_CORRUPT", "a batch logs its changes as a list or as its created rows, not both");
        logged = { created: count };
      },
      logged: () => logged,
    };
  }

  private finishBatch(
    batch: { kind: string; name?: string },
    head: NameHead,
    r: BatchRows,
    logged: readonly LoggedChange[] | { readonly created: number } | undefined,
  ): NameHistoryEntry {
    const next: NameHead = {
      batch: head.batch + 1,
      root: r.root,
      records: head.records + r.newRecords,
      live: head.live + r.liveDelta,
      deleted: head.deleted + r.deletedDelta,
    };
    const changes = logged ?? (digestEquals(r.root, head.root) ? [] : undefined);
    const rows =
      changes === undefined
        ? []
        : Array.isArray(changes)
          ? encodeChanges(next.batch, changes as readonly LoggedChange[])
          : [encodeCreatedChanges(next.batch, (changes as { created: number }).created)];
    for (const { key, value } of rows)
      if ((this.changes.putSync(key, seal(T_CHANGES, key, value), APPEND) as unknown) === false)
        throw new RegistryError("DB_CORRUPT", `${changeRowName(key)} is not above the stored change log`, {
          batch: next.batch,
        });
    const now = Date.now();
    const entry: NameHistoryEntry = {
      ...next,
      kind: batch.kind,
      written: r.written,
      committedAt: new Date(now).toISOString(),
      ...(batch.name !== undefined ? { name: batch.name } : {}),
    };
    this.env.putHeadAndHistory(this.meta, this.historyDb, KEY_HEAD, encodeHead(next), next.batch, encodeHistory(entry));
    this.prune(next.batch, now);
    return entry;
  }

  /**
   * Inside a commit of batch `head`: moves the oldest provable batch forward by the retention
   * and deletes up to `PRUNE_BUDGET_ROWS` kept versions no provable root reads. In a registry
   * whose batches get block proofs (it holds one), the window never passes the tree a pending
   * block still needs: the tree after batch b stays while batch b + 1 changed the root and has
   * no block proof yet, however far proving lags behind the commits.
   */
  private prune(head: number, now: number): void {
    const retention = this.retention();
    const oldest = this.oldestBatch();
    let moved = advanceWindow(oldest, head, now, retention, (b) => Date.parse(this.historyEntry(b).committedAt));
    if (moved > oldest && this.blockProofs({ limit: 1 }).length > 0)
      for (let b = oldest; b < moved; b++)
        if (this.blockPending(b + 1)) {
          moved = b;
          break;
        }
    if (moved !== oldest) this.meta.putSync(KEY_WINDOW, seal(T_META, KEY_WINDOW, encodeWindow(moved)));
    const chunks: { key: Buffer; rows: KeptRow[] }[] = [];
    let rows = 0;
    for (const { key, value } of this.kept.getRange({ start: keptKey(0, 0), end: keptKey(moved + 1, 0) })) {
      const k = Buffer.from(key as Buffer);
      const list = [...keptRows(Buffer.from(unseal(T_KEPT, k, value, keptRowName(k))), keptRowName(k))];
      if (chunks.length > 0 && rows + list.length > PRUNE_BUDGET_ROWS) break;
      chunks.push({ key: k, rows: list });
      rows += list.length;
    }
    for (const { key, rows: list } of chunks) {
      for (const row of list) this.keptIndex.removeSync(keptIndexKey(row.height, row.prefix), key);
      this.kept.removeSync(key);
    }
  }

  /** The retention of earlier roots. */
  retention(txn?: Transaction): Retention {
    const raw = this.meta.get(KEY_RETENTION, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return DEFAULT_RETENTION;
    return decodeRetention(unseal(T_META, KEY_RETENTION, raw, "meta row retention"), this.dir);
  }

  /**
   * Changes the retention of earlier roots (one write transaction); the next commit applies it.
   * @throws RegistryError `BAD_CONFIG`.
   */
  setRetention(retention: Partial<Retention>): Retention {
    const r = checkRetention({ ...this.retention(), ...retention });
    this.env.write(() => this.meta.putSync(KEY_RETENTION, seal(T_META, KEY_RETENTION, encodeRetention(r))));
    return r;
  }

  /** The oldest provable batch. */
  private oldestBatch(txn?: Transaction): number {
    const raw = this.meta.get(KEY_WINDOW, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.dir} has no window row`, { row: "meta row window" });
    return decodeWindow(unseal(T_META, KEY_WINDOW, raw, "meta row window"), this.dir);
  }

  /** One history entry. @throws RegistryError `DB_CORRUPT` when it is missing. */
  private historyEntry(batch: number, txn?: Transaction): NameHistoryEntry {
    const k = historyKey(batch);
    const raw = this.historyDb.get(k, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.dir} has no history row of batch ${batch}`, {
        row: `history row ${batch}`,
      });
    return decodeHistory(unseal(T_HISTORY, k, raw, `history row ${batch}`), this.dir);
  }

  /** The history entry of one batch. @throws RegistryError `DB_CORRUPT` when the batch is past the head or its row is missing. */
  batchEntry(batch: number): NameHistoryEntry {
    return this.historyEntry(batch);
  }

  /**
   * The change-log header of a batch (change-log.ts): its count of updates and parts, or
   * undefined when the batch's changes were not recorded (committed before the registry kept them).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  changeHeader(batch: number, txn?: Transaction): ChangeHeader | undefined {
    const key = changeHeaderKey(batch);
    const raw = this.changes.get(key, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return undefined;
    const what = changeRowName(key);
    return decodeChangeHeader(unseal(T_CHANGES, key, raw, what), what);
  }

  /**
   * Part `part` of a batch's logged updates, in order.
   * @throws RegistryError `CHANGES_NOT_RECORDED` (no change log for the batch), `DB_CORRUPT`.
   */
  changePart(batch: number, part: number, txn?: Transaction): LoggedChange[] {
    const header = this.changeHeader(batch, txn);
    if (header?.created === true) return this.createdPart(batch, part, header, txn);
    const key = changePartKey(batch, part);
    const raw = this.changes.get(key, txn ? { transaction: txn } : undefined);
    const what = changeRowName(key);
    if (raw === undefined) {
      if (header === undefined)
        throw new RegistryError(
          "CHANGES_NOT_RECORDED",
          `the changes of batch ${batch} were not recorded (the batch was committed before this registry kept its change log), so no block proof of it can be made`,
          { batch },
        );
      throw new RegistryError("DB_CORRUPT", `${what} is missing`, { row: what });
    }
    return decodeChangePart(unseal(T_CHANGES, key, raw, what), what);
  }

  /**
   * The keys holding a record after batch `batch` (live or deleted), ascending, in one scan of
   * the leaf rows (of their keys only at the head).
   * @throws RegistryError `DB_CORRUPT` (a count that differs from the batch's history entry).
   */
  leafKeysAt(batch: number): Float64Array {
    return this.read((t) => {
      const head = this.head(t);
      const atHead = batch === head.batch;
      const n = (atHead ? head : this.historyEntry(batch, t)).records;
      const out = new Float64Array(n);
      let i = 0;
      const add = (key: Buffer) => {
        if (i === n)
          throw new RegistryError("DB_CORRUPT", `more leaf rows than the ${n} records of batch ${batch}`, { batch });
        out[i++] = readSlotKey(key);
      };
      if (atHead) for (const key of this.leaves.getKeys({ transaction: t } as never)) add(key as Buffer);
      else
        for (const { key, value } of this.leaves.getRange({ transaction: t } as never))
          if (
            createdOf(
              unseal(T_LEAF, key as Buffer, value as Buffer, `leaf row of key ${readSlotKey(key as Buffer)}`),
            ) <= batch
          )
            add(key as Buffer);
      if (i !== n)
        throw new RegistryError("DB_CORRUPT", `${i} leaf rows hold a record at batch ${batch}, its history says ${n}`, {
          batch,
        });
      return out;
    });
  }

  /**
   * Every logged update of a batch logged as its created rows (an import into an empty key
   * range): the inserts of those rows in key order, each with its value at the batch, in one scan
   * of the leaf rows (`changePart` scans once per part).
   * @throws RegistryError `DB_CORRUPT` (a row count that differs from the header's).
   */
  createdChanges(batch: number): LoggedChange[] {
    return this.read((t) => {
      const header = this.changeHeader(batch, t);
      const out: LoggedChange[] = [];
      for (const row of this.leafRows(t)) {
        if (row.created !== batch) continue;
        const at = this.leafRowAt(row.key, t, batch)!;
        out.push({ op: "insert", name: at.record.name, value: at.record.value });
      }
      if (header?.created !== true || out.length !== header.updates)
        throw new RegistryError(
          "DB_CORRUPT",
          `batch ${batch} created ${out.length} leaf rows that are still stored, its change log says ${header?.updates ?? "nothing"}`,
          { batch },
        );
      return out;
    });
  }

  /** Part `part` of a batch logged as its created rows: the inserts of those rows, in key order, each with its value at the batch. */
  private createdPart(batch: number, part: number, header: ChangeHeader, txn?: Transaction): LoggedChange[] {
    const run = (t: Transaction): LoggedChange[] => {
      const out: LoggedChange[] = [];
      let seen = 0;
      const skip = part * CHANGE_PART_UPDATES;
      for (const row of this.leafRows(t)) {
        if (row.created !== batch) continue;
        if (seen++ < skip) continue;
        const at = this.leafRowAt(row.key, t, batch)!;
        out.push({ op: "insert", name: at.record.name, value: at.record.value });
        if (out.length === CHANGE_PART_UPDATES) break;
      }
      const want = Math.min(CHANGE_PART_UPDATES, header.updates - skip);
      if (out.length !== want)
        throw new RegistryError(
          "DB_CORRUPT",
          `batch ${batch} created ${seen} leaf rows that are still stored, its change log says ${header.updates}`,
          { batch },
        );
      return out;
    };
    return txn ? run(txn) : this.read(run);
  }

  /**
   * Reads the tree as it was after batch `batch`, in one snapshot: row access (`source`) and the
   * leaf row of a key (`leafRow`) at that batch, and its history entry.
   * @throws RegistryError `ROOT_NOT_PROVABLE` (the batch is before the oldest provable batch: its
   *   rows are pruned; `details` name the oldest), `DB_CORRUPT` (a batch past the head).
   */
  readAtBatch<T>(
    batch: number,
    fn: (at: {
      readonly source: CompactSource;
      readonly leafRow: (key: number) => LeafRow | undefined;
      readonly entry: NameHistoryEntry;
    }) => T,
  ): T {
    return this.read((txn) => {
      const head = this.head(txn);
      const oldest = this.oldestBatch(txn);
      if (batch > head.batch)
        throw new RegistryError("DB_CORRUPT", `batch ${batch} is past the head's batch ${head.batch}`, { batch });
      if (batch < oldest) {
        const o = this.historyEntry(oldest, txn);
        throw new RegistryError(
          "ROOT_NOT_PROVABLE",
          `the tree of batch ${batch} is no longer kept: the oldest provable batch is ${oldest} (root ${formatRoot(o.root)})`,
          { batch, oldestRoot: formatRoot(o.root), oldestSize: oldest },
        );
      }
      const entry = this.historyEntry(batch, txn);
      const source = batch === head.batch ? this.source(txn) : this.sourceAt(txn, batch);
      const leafRow = (key: number) =>
        batch === head.batch ? this.leafRow(key, txn) : this.leafRowAt(key, txn, batch);
      return fn({ source, leafRow, entry });
    });
  }

  /** The provable roots: the oldest provable batch and its root, the head batch and the retention. */
  window(txn?: Transaction): ProvableWindow {
    const run = (t: Transaction): ProvableWindow => {
      const oldest = this.oldestBatch(t);
      return {
        oldestBatch: oldest,
        oldestRoot: this.historyEntry(oldest, t).root,
        headBatch: this.head(t).batch,
        retention: this.retention(t),
      };
    };
    return txn ? run(txn) : this.read(run);
  }

  /**
   * The latest provable batch whose root is `root` (the head's entry for the head root).
   * @throws RegistryError `ROOT_NOT_PROVABLE` (a root of the history before the oldest provable
   * batch; `details` name the oldest provable root and batch), `ROOT_UNKNOWN` (not a root of the
   * history).
   */
  provableBatch(root: ArrayLike<number>, txn?: Transaction): NameHead {
    const run = (t: Transaction): NameHead => {
      const head = this.head(t);
      if (digestEquals(head.root as Digest, root as Digest)) return head;
      const oldest = this.oldestBatch(t);
      const shown = formatRoot(root);
      const batch = this.latestBatchOf(shown, head.batch, t);
      if (batch !== undefined && batch >= oldest) {
        const e = this.historyEntry(batch, t);
        return { batch: e.batch, root: e.root, records: e.records, live: e.live, deleted: e.deleted };
      }
      if (batch !== undefined) {
        const o = this.historyEntry(oldest, t);
        const r = this.retention(t);
        throw new RegistryError(
          "ROOT_NOT_PROVABLE",
          `root ${shown} is the root of batch ${batch}, before the oldest provable root ${formatRoot(o.root)} (size ${oldest}); the registry keeps the roots of the last ${r.commits} batches and ${r.days} days`,
          { root: shown, batch, oldestRoot: formatRoot(o.root), oldestSize: oldest },
        );
      }
      throw new RegistryError("ROOT_UNKNOWN", `root ${shown} is not a root of this registry's history`, {
        root: shown,
      });
    };
    return txn ? run(txn) : this.read(run);
  }

  /** Roots of the history (hex) → the latest batch with that root, for batches [0, rootsIndexed). */
  private readonly rootIndex = new Map<string, number[]>();
  private rootsIndexed = 0;

  /**
   * The latest batch ≤ `head` whose root is `shown` (hex), or undefined. History rows never
   * change once committed, so the index of roots is read once and extended by later batches.
   */
  private latestBatchOf(shown: string, head: number, txn: Transaction): number | undefined {
    if (this.rootsIndexed <= head) {
      for (const { key, value } of this.historyDb.getRange({
        start: historyKey(this.rootsIndexed),
        end: historyKey(head + 1),
        transaction: txn,
      })) {
        const e = decodeHistory(
          unseal(T_HISTORY, key as Buffer, value, NAME_SEALING.historyRowName(key as Buffer)),
          this.dir,
        );
        const hex = formatRoot(e.root);
        const list = this.rootIndex.get(hex);
        if (list === undefined) this.rootIndex.set(hex, [e.batch]);
        else list.push(e.batch);
        this.rootsIndexed = e.batch + 1;
      }
    }
    const list = this.rootIndex.get(shown);
    if (list === undefined) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]! <= head) return list[i]!;
    return undefined;
  }

  /**
   * Name, leaf, path and head at a provable root (the head when `root` is undefined), from one
   * snapshot.
   * @throws RegistryError `BAD_NAME`, `ROOT_NOT_PROVABLE`, `ROOT_UNKNOWN`.
   */
  nameStateAt(name: string, root: ArrayLike<number> | undefined): NameState {
    if (root === undefined) return this.nameState(name);
    return this.read((txn) => {
      const at = this.provableBatch(root, txn);
      if (at.batch === this.head(txn).batch) {
        const l = this.lookup(name, txn);
        return { ...l, path: this.path(l.key, txn), head: at };
      }
      const key = this.keyOf(name);
      const row = this.leafRowAt(key, txn, at.batch);
      const l: NameLookup =
        row === undefined
          ? { name, key, record: undefined, other: undefined, leaf: EMPTY }
          : row.record.name !== name
            ? { name, key, record: undefined, other: row.record, leaf: this.leafOf(row.record) }
            : { name, key, record: row.record, other: undefined, leaf: this.leafOf(row.record) };
      return {
        ...l,
        path: pathOf(this.sourceAt(txn, at.batch), this.compressorOf(), this.defaults, this.config.depth, key),
        head: at,
      };
    });
  }

  /**
   * The earlier-root rows (in the check's snapshot): every leaf row's creating batch is at most
   * the head's, every kept chunk is of a batch up to the head's and decodes (its leaf rows too),
   * every row it keeps is named by its `kept-index` entry and the index names nothing else, and
   * the top of the tree at each provable batch recomputes that batch's root.
   * @throws RegistryError `DB_CORRUPT`.
   */
  private checkVersions(txn: Transaction, head: NameHead): void {
    for (const row of this.leafRows(txn))
      if (row.created > head.batch)
        throw new RegistryError(
          "DB_CORRUPT",
          `leaf row of key ${row.key} was created by batch ${row.created}, after the head's batch ${head.batch}`,
          { row: `leaf row of key ${row.key}` },
        );
    const oldest = this.oldestBatch(txn);
    if (oldest > head.batch)
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${this.dir}: the oldest provable batch ${oldest} is after the head's batch ${head.batch}`,
        { row: "meta row window" },
      );
    let listed = 0;
    for (const { key, value } of this.kept.getRange({ transaction: txn })) {
      const k = key as Buffer;
      const what = keptRowName(k);
      if (k.length !== 6 || keptKeyParts(k).batch > head.batch || keptKeyParts(k).batch === 0)
        throw new RegistryError("DB_CORRUPT", `${what} is not of a batch up to the head's ${head.batch}`, {
          row: what,
        });
      for (const row of keptRows(unseal(T_KEPT, k, value, what), what)) {
        if (row.height === 0) {
          const headRow = this.leafRow(row.prefix, txn);
          if (headRow === undefined)
            throw new RegistryError("DB_CORRUPT", `${what} keeps leaf key ${row.prefix}, which holds no record`, {
              row: what,
            });
          this.keptLeaf(row.value, headRow, `leaf key ${row.prefix} in ${what}`);
        }
        const named = this.keptIndex.getValues(keptIndexKey(row.height, row.prefix), {
          start: k,
          limit: 1,
          transaction: txn,
        } as never);
        let found = false;
        for (const v of named) found = Buffer.compare(v as Buffer, k) === 0;
        if (!found)
          throw new RegistryError(
            "DB_CORRUPT",
            `${what} keeps ${row.height === 0 ? `leaf key ${row.prefix}` : `branch (height ${row.height}, prefix ${row.prefix})`}, which its index entries do not name`,
            { row: what },
          );
        listed++;
      }
    }
    let stored = 0;
    for (const _ of this.keptIndex.getRange({ transaction: txn })) stored++;
    if (stored !== listed)
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${this.dir}: ${stored} kept-index entries, the kept chunks hold ${listed} rows`,
        { row: "kept-index" },
      );
    const d = this.config.depth;
    const c = this.compressorOf();
    for (let b = oldest; b < head.batch; b++) {
      const src = this.sourceAt(txn, b);
      const top = compress(nodeDigest(src, c, this.defaults, d - 1, 0), nodeDigest(src, c, this.defaults, d - 1, 1));
      if (!digestEquals(top, this.historyEntry(b, txn).root))
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: the stored rows at batch ${b} do not recompute its root`,
          { batch: b },
        );
    }
  }

  /**
   * The kept value of row (height, prefix) at batch b (the value superseded by the first batch
   * after b that overwrote it, found through `kept-index`), or undefined when no batch after b did.
   * @param chunks the chunks already decoded in this snapshot (a path read at one batch meets the
   *   same chunks at several levels), by key, each as its rows by `height:prefix`.
   * @throws RegistryError `DB_CORRUPT` (the chunk the index names is missing, damaged or does not keep the row).
   */
  private versionAt(
    height: number,
    prefix: number,
    b: number,
    txn: Transaction,
    chunks: Map<string, Map<string, Uint8Array>> = new Map(),
  ): Uint8Array | undefined {
    for (const dup of this.keptIndex.getValues(keptIndexKey(height, prefix), {
      start: keptKey(b + 1, 0),
      limit: 1,
      transaction: txn,
    } as never)) {
      const k = Buffer.from(dup as Buffer);
      const what = keptRowName(k);
      const id = k.toString("latin1");
      let rows = chunks.get(id);
      if (rows === undefined) {
        const raw = this.kept.get(k, { transaction: txn });
        if (raw === undefined)
          throw new RegistryError("DB_CORRUPT", `${what} is missing (its index entries name it)`, { row: what });
        rows = new Map();
        for (const row of keptRows(unseal(T_KEPT, k, raw, what), what))
          rows.set(`${row.height}:${row.prefix}`, row.value);
        chunks.set(id, rows);
      }
      const value = rows.get(`${height}:${prefix}`);
      if (value !== undefined) return value;
      throw new RegistryError(
        "DB_CORRUPT",
        `${what} does not keep ${height === 0 ? `leaf key ${prefix}` : `branch (height ${height}, prefix ${prefix})`}, which the index says it does`,
        { row: what },
      );
    }
    return undefined;
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
    const row = this.leafRow(key, txn);
    if (row === undefined || row.created > b) return undefined;
    const kept = this.versionAt(0, key, b, txn, chunks);
    return kept === undefined ? row : this.keptLeaf(kept, row, `kept value of leaf key ${key}`);
  }

  /**
   * The leaf row a kept leaf value stands for (leaf-delta.ts): its record with the name of the
   * key's head row, its leaf digest recomputed, and the head row's creating batch.
   * @throws RegistryError `DB_CORRUPT` (a malformed kept value).
   */
  private keptLeaf(delta: Uint8Array, head: LeafRow, what: string): LeafRow {
    let record: StoredRecord;
    try {
      record = decodeRecord(recordRowOfDelta(delta, Buffer.from(head.record.name, "utf8"), what));
    } catch (e) {
      throw new RegistryError("DB_CORRUPT", `${what}: ${(e as Error).message}`, { row: what });
    }
    const digest =
      record.state === RecordState.Deleted
        ? this.tombstoneDigest
        : hashLeaf(this.leafOf(record), this.config.leafMaxFields);
    return { record, digest, created: head.created };
  }

  /** Row access at batch b ≤ head (in `txn`). */
  private sourceAt(txn: Transaction, b: number): CompactSource {
    const head = this.source(txn);
    const chunks = new Map<string, Map<string, Uint8Array>>();
    const existed = (key: Buffer, value: Buffer): boolean =>
      createdOf(unseal(T_LEAF, key, value, `leaf row of key ${readSlotKey(key)}`)) <= b;
    const scan = (opts: object): number | undefined => {
      for (const { key, value } of this.leaves.getRange({ ...opts, transaction: txn } as never))
        if (existed(key as Buffer, value as Buffer)) return readSlotKey(key as Buffer);
      return undefined;
    };
    return {
      firstKeyIn: (lo, hi) => scan({ start: leafKey(lo), end: leafKey(hi) }),
      lastKeyIn: (lo, hi) =>
        scan(
          lo === 0
            ? { start: leafKey(hi - 1), reverse: true }
            : { start: leafKey(hi - 1), end: leafKey(lo - 1), reverse: true },
        ),
      leafDigest: (key) => this.leafRowAt(key, txn, b, chunks)!.digest,
      branch: (h, p) => {
        const kept = this.versionAt(h, p, b, txn, chunks);
        if (kept === undefined) return head.branch(h, p);
        const what = `kept value of branch (height ${h}, prefix ${p})`;
        if (kept.length !== 32)
          throw new RegistryError("DB_CORRUPT", `${what} has ${kept.length} bytes, expected 32`, { row: what });
        return readDigest(kept, 0, what);
      },
    };
  }

  private expectHead(expectBatch: number | undefined): NameHead {
    const head = this.head();
    if (expectBatch !== undefined && head.batch !== expectBatch) {
      throw new RegistryError(
        "CONCURRENT_UPDATE",
        `the registry changed while the batch was prepared (head is batch ${head.batch}, the batch was prepared against ${expectBatch}); nothing was written`,
        { batch: head.batch },
      );
    }
    return head;
  }

  /**
   * Commits one batch in one write transaction.
   * @throws RegistryError `CONCURRENT_UPDATE` if the head moved since the batch was prepared
   * (or since its pending block was recorded).
   */
  commit(batch: NameBatch): NameHistoryEntry {
    return this.env.write(() => {
      const head = this.expectHead(batch.expectBatch);
      if (batch.pending !== undefined) this.markPendingCommitted(batch.pending, head);
      const w = this.writer(head.batch + 1);
      const rows = batch.write(w, head);
      w.flushKept();
      return this.finishBatch(batch, head, rows, w.logged());
    });
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
    const out: PendingBlock[] = [];
    const range = {
      start: Buffer.from(PENDING_BLOCK_PREFIX),
      end: Buffer.from(PENDING_BLOCK_PREFIX.slice(0, -1) + ";"),
      ...(txn ? { transaction: txn } : {}),
    };
    for (const { key, value } of this.meta.getRange(range)) {
      const what = `meta row ${Buffer.from(key as Buffer).toString("latin1")}`;
      out.push(decodePendingBlock(unseal(T_META, key as Buffer, value, what), what, this.dir));
    }
    return out;
  }

  /**
   * Records, in its own write transaction, that this process is about to write the block
   * directory `dir` for the next batch (docs/registry.md "Block proofs"). Commit the block with
   * `pending` set to the returned record and remove it with `clearPendingBlock`.
   */
  recordPendingBlock(dir: string): PendingBlock {
    return this.env.write(() => {
      const pending: PendingBlock = {
        dir: resolvePath(dir),
        batch: this.head().batch + 1,
        pid: process.pid,
        token: newPendingToken(),
        committed: false,
      };
      const key = pendingBlockKey(pending.pid);
      this.meta.putSync(key, seal(T_META, key, encodePendingBlock(pending)));
      return pending;
    });
  }

  /** Removes a pending block row (only the row of the same writer and token). */
  clearPendingBlock(pending: PendingBlock): void {
    this.env.write(() => {
      const key = pendingBlockKey(pending.pid);
      const row = this.pendingRow(pending.pid);
      if (row !== undefined && row.token === pending.token) this.meta.removeSync(key);
    });
    forgetPendingToken(pending.token);
  }

  /**
   * Settles the pending blocks of writers that no longer run (pending-block.ts): each block's
   * files by the registry's head, then its row removed, one write transaction per block.
   * A registry opened for writing does this when it opens.
   */
  recoverPendingBlocks(): { block: PendingBlock; outcome: PendingOutcome }[] {
    const done: { block: PendingBlock; outcome: PendingOutcome }[] = [];
    for (const seen of this.pendingBlocks()) {
      if (writerAlive(seen)) continue;
      this.env.write(() => {
        const p = this.pendingRow(seen.pid);
        if (p === undefined || p.token !== seen.token || writerAlive(p)) return;
        done.push({ block: p, outcome: settlePendingBlock(p, this.head().batch) });
        this.meta.removeSync(pendingBlockKey(p.pid));
      });
    }
    return done;
  }

  /**
   * Inside the write transaction of the block's batch (the `beforeCommit` of `applyNameBlock`):
   * stores the profile v3 block proof of batch `summary.batch` (block-rows.ts), which then commits
   * with the batch or not at all.
   * @throws RegistryError `BAD_BLOCK` when the summary does not describe the given bytes.
   */
  recordBlockProof(summary: StoredBlockSummary, blockJson: string, proof: Uint8Array): void {
    if (summary.proof_bytes !== proof.length || summary.json_bytes !== Buffer.byteLength(blockJson, "utf8"))
      throw new RegistryError("BAD_BLOCK", `the summary of block batch ${summary.batch} does not describe its files`, {
        batch: summary.batch,
      });
    const key = blockRowKey(BLOCK_ROW_PREFIX, summary.batch, summary.part),
      sk = blockRowKey(BLOCK_SUMMARY_PREFIX, summary.batch, summary.part);
    this.meta.putSync(key, seal(T_META, key, encodeBlockRow(blockJson, proof)));
    this.meta.putSync(sk, seal(T_META, sk, encodeBlockSummary(summary)));
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
    return this.env.write(() => {
      const b = summary.batch;
      const after = this.historyEntry(b),
        before = this.historyEntry(b - 1);
      // A part of a batch proved in parts starts where the part before ended (stored first) and
      // the first starts, the last ends, at the batch's roots.
      const part = summary.part ?? 0,
        parts = summary.parts ?? 1;
      const from =
        part === 0
          ? formatRoot(before.root)
          : (this.blockProofSummary(b, part - 1)?.to_root ?? "the part before, not kept");
      const to = part === parts - 1 ? formatRoot(after.root) : summary.to_root;
      if (to !== summary.to_root || from !== summary.from_root)
        throw new RegistryError(
          "BAD_BLOCK",
          parts === 1
            ? `the block of batch ${b} does not go from the root of batch ${b - 1} to the root of batch ${b}`
            : `part ${part} of ${parts} of the block of batch ${b} does not go on from ${part === 0 ? `the root of batch ${b - 1}` : `where part ${part - 1} ended`}${part === parts - 1 ? ` to the root of batch ${b}` : ""}`,
          { batch: b, part },
        );
      if (this.meta.get(blockRowKey(BLOCK_SUMMARY_PREFIX, b, summary.part)) !== undefined) return false;
      this.recordBlockProof(summary, blockJson, proof);
      return true;
    });
  }

  /** Whether batch `batch` changed the root, has its change log, and lacks a stored block proof of some part. */
  private blockPending(batch: number): boolean {
    const header = this.changeHeader(batch);
    if (header === undefined || header.updates === 0) return false;
    const parts = blockParts(header.updates, maxBlockUpdates(this.config.depth, undefined, this.config.leafMaxFields));
    return this.blockProofs({ after: batch - 1, limit: parts }).filter((s) => s.batch === batch).length < parts;
  }

  /** The summary of a stored part of a batch proved in parts. @throws RegistryError `DB_CORRUPT`. */
  private blockProofSummary(batch: number, part: number): StoredBlockSummary | undefined {
    const sk = blockRowKey(BLOCK_SUMMARY_PREFIX, batch, part);
    const raw = this.meta.get(sk);
    if (raw === undefined) return undefined;
    const what = `meta row ${sk.toString("latin1")}`;
    return decodeBlockSummary(unseal(T_META, sk, raw, what), what);
  }

  /**
   * The stored block proof of a batch (block.json's text and block.bin's bytes), or undefined
   * when the batch was not a profile v3 block (docs/registry.md "Block proofs"); `part` names a
   * part of a batch proved in parts (undefined: a batch of one block).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  blockProof(batch: number, part?: number): StoredBlock | undefined {
    return this.env.read((txn) => {
      const key = blockRowKey(BLOCK_ROW_PREFIX, batch, part),
        sk = blockRowKey(BLOCK_SUMMARY_PREFIX, batch, part);
      const raw = this.meta.get(key, { transaction: txn }),
        rawSummary = this.meta.get(sk, { transaction: txn });
      if (raw === undefined || rawSummary === undefined) return undefined;
      const what = `meta row ${key.toString("latin1")}`,
        whatSummary = `meta row ${sk.toString("latin1")}`;
      return {
        summary: decodeBlockSummary(unseal(T_META, sk, rawSummary, whatSummary), whatSummary),
        ...decodeBlockRow(unseal(T_META, key, raw, what), what),
      };
    });
  }

  /**
   * The summaries of the stored block proofs, in batch order (a batch proved in parts: one per
   * part, in part order): those after batch `after` (default: from the first), at most `limit`
   * (default 100).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  blockProofs(options: { readonly after?: number; readonly limit?: number } = {}): StoredBlockSummary[] {
    const limit = options.limit ?? 100;
    const out: StoredBlockSummary[] = [];
    if (limit <= 0) return out;
    const start = blockRowKey(BLOCK_SUMMARY_PREFIX, (options.after ?? -1) + 1);
    const end = Buffer.from(BLOCK_SUMMARY_PREFIX.slice(0, -1) + ";", "latin1");
    for (const { key, value } of this.meta.getRange({ start, end, limit })) {
      const what = `meta row ${Buffer.from(key as Buffer).toString("latin1")}`;
      out.push(decodeBlockSummary(unseal(T_META, key as Buffer, value, what), what));
    }
    return out;
  }

  private pendingRow(pid: number): PendingBlock | undefined {
    const key = pendingBlockKey(pid);
    const raw = this.meta.get(key);
    if (raw === undefined) return undefined;
    const what = `meta row ${key.toString("latin1")}`;
    return decodePendingBlock(unseal(T_META, key, raw, what), what, this.dir);
  }

  /** Inside a batch's transaction: marks its pending block committed. @throws RegistryError `CONCURRENT_UPDATE`. */
  private markPendingCommitted(pending: PendingBlock, head: NameHead): void {
    const row = this.pendingRow(pending.pid);
    if (row === undefined || row.token !== pending.token || row.batch !== head.batch + 1) {
      throw new RegistryError(
        "CONCURRENT_UPDATE",
        `the registry changed since the block was recorded for batch ${pending.batch} (head is batch ${head.batch}); nothing was written`,
        { batch: head.batch },
      );
    }
    const key = pendingBlockKey(pending.pid);
    this.meta.putSync(key, seal(T_META, key, encodePendingBlock({ ...row, committed: true })));
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
    return await (this.env.write(async () => {
      const head = this.expectHead(batch.expectBatch);
      const w = this.writer(head.batch + 1);
      const rows = await batch.write(w, head);
      w.flushKept();
      return this.finishBatch(batch, head, rows, w.logged());
    }) as unknown as Promise<NameHistoryEntry>);
  }

  /** Iterates every leaf row in key order (check and export). */
  *leafRows(txn: Transaction): Generator<{ key: number; record: StoredRecord; digest: Digest; created: number }> {
    for (const { key, value } of this.leaves.getRange({ transaction: txn })) {
      const k = readSlotKey(key as Buffer);
      yield { key: k, ...decodeLeafRow(key as Buffer, value, k) };
    }
  }

  /** Iterates every branch row in key order (height, then prefix). */
  *branchRows(txn: Transaction): Generator<{ h: number; p: number; digest: Digest }> {
    for (const { key, value } of this.branches.getRange({ transaction: txn })) {
      const kb = key as Buffer;
      const what = `branch row (height ${kb[0]}, prefix ${kb.length === 9 ? readSlotKey(kb.subarray(1)) : "?"})`;
      if (kb.length !== 9) throw new RegistryError("DB_CORRUPT", `${what} has a ${kb.length}-byte key`, { row: what });
      const v = unseal(T_BRANCH, kb, value, what);
      if (v.length !== 32)
        throw new RegistryError("DB_CORRUPT", `${what} has ${v.length} bytes, expected 32`, { row: what });
      yield { h: kb[0]!, p: readSlotKey(kb.subarray(1)), digest: readDigest(v, 0, what) };
    }
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
    return this.read((txn) => {
      const head = this.head(txn);
      this.history();
      const { depth, leafMaxFields: B } = this.config;
      const keys = new Float64Array(head.records);
      const digests = new Uint32Array(8 * head.records);
      let n = 0,
        live = 0,
        deleted = 0;
      const nonNfc: NonNfcRecord[] = [];
      for (const row of this.leafRows(txn)) {
        const what = `leaf row of key ${row.key}`;
        if (n >= head.records)
          throw new RegistryError("DB_CORRUPT", `${what}: more leaf rows than the head's ${head.records} records`, {
            row: what,
          });
        if (this.keyOf(row.record.name) !== row.key)
          throw new RegistryError(
            "DB_CORRUPT",
            `${what} holds ${JSON.stringify(row.record.name)}, whose key is ${this.keyOf(row.record.name)}`,
            { row: what },
          );
        const expect =
          row.record.state === RecordState.Deleted ? this.tombstoneDigest : hashLeaf(this.leafOf(row.record), B);
        if (!digestEquals(expect, row.digest))
          throw new RegistryError("DB_CORRUPT", `${what}: its stored leaf digest is not the digest of its record`, {
            row: what,
          });
        if (row.record.state === RecordState.Deleted) deleted++;
        else live++;
        const nfc = nfcFormOf(row.record.name);
        if (nfc !== undefined)
          nonNfc.push({
            name: row.record.name,
            nfc,
            key: row.key,
            state: row.record.state === RecordState.Deleted ? "deleted" : "live",
          });
        keys[n] = row.key;
        digests.set(row.digest, 8 * n);
        n++;
        if (onProgress && n % 100_000 === 0) onProgress(n);
      }
      if (n !== head.records || live !== head.live || deleted !== head.deleted) {
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: ${n} leaf rows (${live} live, ${deleted} deleted); the head says ${head.records} (${head.live} live, ${head.deleted} deleted)`,
          { row: "meta row head" },
        );
      }
      const u =
        n === 0
          ? {
              root: this.defaults[depth]!,
              branches: {
                count: 0,
                heights: new Uint8Array(0),
                prefixes: new Float64Array(0),
                digests: new Uint32Array(0),
              },
            }
          : updateCompact(
              depth,
              this.defaults,
              this.compressorOf(),
              new Float64Array(0),
              0,
              keys,
              digests,
              NO_STORED_ROWS,
            );
      let i = 0;
      for (const b of this.branchRows(txn)) {
        const what = `branch row (height ${b.h}, prefix ${b.p})`;
        if (i >= u.branches.count || u.branches.heights[i] !== b.h || u.branches.prefixes[i] !== b.p)
          throw new RegistryError("DB_CORRUPT", `${what} is not a branch of the records' tree`, { row: what });
        if (!digestEquals(b.digest, u.branches.digests.subarray(8 * i, 8 * i + 8)))
          throw new RegistryError("DB_CORRUPT", `${what} does not match the digest recomputed from the records`, {
            row: what,
          });
        i++;
      }
      if (i !== u.branches.count)
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: ${u.branches.count - i} branch rows are missing (first: height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})`,
          { row: `branch row (height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})` },
        );
      if (!digestEquals(u.root, head.root))
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: the root recomputed from the records differs from the head root of batch ${head.batch}`,
          { row: "meta row head" },
        );
      this.checkVersions(txn, head);
      return { records: n, branches: i, root: u.root, nonNfc };
    });
  }
}

/** A decoded leaf row: the record, its leaf digest and the batch that created the row. */
export interface LeafRow {
  readonly record: StoredRecord;
  readonly digest: Digest;
  readonly created: number;
}

/**
 * Converts a name-keyed registry of format 2 or 3 to format 4 in place, in one write
 * transaction. Format 2 (tree rows of the head only): every leaf row gets its creating batch
 * (the head batch, so roots before the upgrade are not provable), and the retention and window
 * rows are written. Format 3 (one `versions` row per kept value, per-batch `pruning` lists): the
 * kept values are packed per batch into `kept` with their `kept-index` entries (kept-chunks.ts)
 * and the two old tables are dropped, so every root of the window stays provable. Root, records
 * and history are unchanged. A registry already at format 4 is left as it is. The result is then
 * opened, which checks the head root.
 * @throws RegistryError `DB_MISSING`, `DB_CORRUPT` (not a format-2, 3 or 4 name-keyed registry, or a damaged kept row).
 */
export function upgradeNameRegistry(
  dir: string,
  retention: Partial<Retention> = {},
): { fromVersion: number; toVersion: number; rows: number } {
  if (!isDir(dir) || !existsSync(join(dir, "data.mdb"))) NameStore.open(dir).closeSync(); // DB_MISSING
  const r = checkRetention(retention);
  const env = RegistryEnvironment.open(dir, false, NAME_SEALING);
  let rows = 0;
  let fromVersion = FORMAT_VERSION;
  try {
    const meta = env.table("meta");
    const raw = meta?.get(KEY_CONFIG);
    if (meta === undefined || raw === undefined)
      throw new RegistryError("DB_CORRUPT", `${dir} is an LMDB environment without a registry configuration`, { dir });
    const configValue = unseal(T_META, KEY_CONFIG, raw, "meta row config");
    const c = parseMetadataJson(configValue, "configuration", dir);
    if (c["format"] === FORMAT && c["version"] === 2 && c["mapping"] === NAME_MAPPING_ID) {
      fromVersion = 2;
      const config = checkNameConfig({ depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number });
      const leaves = env.table("leaves")!;
      env.table("kept");
      env.table("kept-index", true);
      const changes = env.table("changes")!;
      const history = env.table("history")!;
      env.write(() => {
        rows += moveChangeLog(meta, changes) + rewriteHistoryRows(history, dir);
        const rawHead = meta.get(KEY_HEAD);
        if (rawHead === undefined)
          throw new RegistryError("DB_CORRUPT", `registry at ${dir} has no head`, { row: "meta row head" });
        const head = decodeHead(unseal(T_META, KEY_HEAD, rawHead, "meta row head"), dir);
        let start: Buffer | undefined;
        for (;;) {
          const chunk: { key: Buffer; value: Buffer }[] = [];
          for (const { key, value } of leaves.getRange({ ...(start ? { start } : {}), limit: 10_000 }))
            chunk.push({ key: Buffer.from(key as Buffer), value: Buffer.from(value as Buffer) });
          if (chunk.length === 0) break;
          for (const { key, value } of chunk) {
            const v = unseal(T_LEAF, key, value, `leaf row of key ${readSlotKey(key)}`);
            const created = Buffer.alloc(CREATED_BYTES);
            created.writeUInt32LE(head.batch);
            leaves.putSync(key, seal(T_LEAF, key, Buffer.concat([v, created])));
            rows++;
          }
          start = Buffer.concat([chunk[chunk.length - 1]!.key, Buffer.of(0)]);
        }
        const configJson = Buffer.from(
          JSON.stringify({
            format: FORMAT,
            version: FORMAT_VERSION,
            mapping: NAME_MAPPING_ID,
            depth: config.depth,
            leafMaxFields: config.leafMaxFields,
          }),
        );
        meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, configJson));
        meta.putSync(KEY_RETENTION, seal(T_META, KEY_RETENTION, encodeRetention(r)));
        meta.putSync(KEY_WINDOW, seal(T_META, KEY_WINDOW, encodeWindow(head.batch)));
        rows += 3;
      });
    } else if (c["format"] === FORMAT && c["version"] === 3 && c["mapping"] === NAME_MAPPING_ID) {
      fromVersion = 3;
      const versions = env.table("versions")!;
      const pruning = env.table("pruning")!;
      const kept = env.table("kept")!;
      const keptIndex = env.table("kept-index", true)!;
      const changes = env.table("changes")!;
      env.write(() => {
        rows =
          packFormat3Versions(versions, pruning, kept, keptIndex) +
          moveChangeLog(meta, changes) +
          rewriteHistoryRows(env.table("history")!, dir);
        versions.dropSync();
        pruning.dropSync();
        const config = { ...c, version: FORMAT_VERSION };
        meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, Buffer.from(JSON.stringify(config))));
        rows++;
      });
    } else if (!(c["format"] === FORMAT && c["version"] === FORMAT_VERSION && c["mapping"] === NAME_MAPPING_ID)) {
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${dir}: configuration is not a name-keyed format 2, 3 or ${FORMAT_VERSION} row`,
        { dir },
      );
    }
  } finally {
    env.closeSync();
  }
  NameStore.open(dir).closeSync();
  return { fromVersion, toVersion: FORMAT_VERSION, rows };
}

/**
 * Packs a format-3 registry's kept versions (one `versions` row per value, listed per batch in
 * `pruning` chunks) into format 4's `kept` chunks and `kept-index` entries (inside the upgrade's
 * write transaction); each pruning chunk becomes the kept chunk of the same batch and number.
 * @returns the kept rows written.
 * @throws RegistryError `DB_CORRUPT` (a damaged pruning list or version row, or a listed version that is missing).
 */
function packFormat3Versions(
  versions: Database<Buffer, Buffer>,
  pruning: Database<Buffer, Buffer>,
  kept: Database<Buffer, Buffer>,
  keptIndex: Database<Buffer, Buffer>,
): number {
  let rows = 0;
  const lists: Buffer[] = [...pruning.getKeys({})].map((k) => Buffer.from(k as Buffer));
  for (const pk of lists) {
    const c = pruningBatch(pk);
    const what = `pruning row of batch ${c}`;
    const list = unseal(T_PRUNING, pk, pruning.get(pk)!, what);
    const chunk = new KeptChunkBuilder();
    const key = keptKey(c, pk.readUInt16BE(4));
    for (let at = 0; at < list.length; ) {
      const tag = list[at]!;
      const n = rowKeyLength(tag, T_LEAF, T_BRANCH, what);
      if (at + 1 + n > list.length) throw new RegistryError("DB_CORRUPT", `${what} is truncated`, { row: what });
      const rowKey = Buffer.from(list.subarray(at + 1, at + 1 + n));
      const vk = versionKey(tag, rowKey, c);
      const raw = versions.get(vk);
      if (raw === undefined)
        throw new RegistryError("DB_CORRUPT", `${what} names a kept row that is missing`, { row: what });
      const stored = unseal(T_VERSION, vk, raw, `version row of ${what}`);
      const value = tag === T_LEAF ? leafDelta(stored, `version row of ${what}`) : stored;
      const height = tag === T_LEAF ? 0 : rowKey[0]!;
      const prefix = readSlotKey(tag === T_LEAF ? rowKey : rowKey.subarray(1));
      if (tag === T_BRANCH && value.length !== 32)
        throw new RegistryError("DB_CORRUPT", `version row of ${what} has ${value.length} bytes, expected 32`, {
          row: what,
        });
      chunk.add(height, prefix, value);
      keptIndex.putSync(keptIndexKey(height, prefix), key);
      rows++;
      at += 1 + n;
    }
    if (chunk.rows > 0) kept.putSync(key, seal(T_KEPT, key, chunk.bytes()));
  }
  return rows;
}

/**
 * Moves the change-log rows of a format-2 or 3 registry from `meta` (`changes:…` keys) into the
 * `changes` table (inside the upgrade's write transaction).
 * @returns the rows moved.
 * @throws RegistryError `DB_CORRUPT` (a damaged row, or a `changes:` key of no change-log row).
 */
function moveChangeLog(meta: Database<Buffer, Buffer>, changes: Database<Buffer, Buffer>): number {
  const keys = [
    ...meta.getKeys({ start: Buffer.from(CHANGES_PREFIX, "latin1"), end: Buffer.from("changes;", "latin1") }),
  ].map((k) => Buffer.from(k as Buffer));
  for (const mk of keys) {
    const what = `meta row ${mk.toString("latin1")}`;
    const key = changeKeyOfMetaKey(mk);
    if (key === undefined) throw new RegistryError("DB_CORRUPT", `${what} is not a change-log row`, { row: what });
    changes.putSync(key, seal(T_CHANGES, key, unseal(T_META, mk, meta.get(mk)!, what)));
    meta.removeSync(mk);
  }
  return keys.length;
}

/**
 * Rewrites the JSON history rows of a format-2 or 3 registry in binary (name-history.ts), inside
 * the upgrade's write transaction, 10,000 rows at a time.
 * @returns the rows rewritten.
 * @throws RegistryError `DB_CORRUPT` (a damaged or malformed row).
 */
function rewriteHistoryRows(history: Database<Buffer, Buffer>, dir: string): number {
  let rows = 0;
  let start: Buffer | undefined;
  for (;;) {
    const chunk: { key: Buffer; value: Buffer }[] = [];
    for (const { key, value } of history.getRange({ ...(start ? { start } : {}), limit: 10_000 }))
      chunk.push({ key: Buffer.from(key as Buffer), value: Buffer.from(value as Buffer) });
    if (chunk.length === 0) return rows;
    for (const { key, value } of chunk) {
      const entry = decodeHistoryJson(unseal(T_HISTORY, key, value, NAME_SEALING.historyRowName(key)), dir);
      history.putSync(key, seal(T_HISTORY, key, encodeHistoryRow(entry)));
      rows++;
    }
    start = Buffer.concat([chunk[chunk.length - 1]!.key, Buffer.of(0)]);
  }
}

/** How errors name a `kept` row. */
function keptRowName(key: Uint8Array): string {
  if (key.length !== 6) return "kept row (malformed key)";
  const { batch, chunk } = keptKeyParts(key);
  return `kept row of batch ${batch} (chunk ${chunk})`;
}

/** Decodes and checks a leaf row (record row ‖ digest ‖ creating batch ‖ checksum). */
function decodeLeafRow(k: Uint8Array, raw: Uint8Array, key: number): LeafRow {
  const what = `leaf row of key ${key}`;
  return decodeLeafValue(unseal(T_LEAF, k, raw, what), what);
}

/** Decodes a leaf row's value (its checksum stripped). */
function decodeLeafValue(v: Uint8Array, what: string): LeafRow {
  if (v.length < 32 + CREATED_BYTES + 4)
    throw new RegistryError("DB_CORRUPT", `${what} is too short (${v.length} bytes)`, { row: what });
  let record: StoredRecord;
  const end = v.length - CREATED_BYTES - 32;
  try {
    record = decodeRecord(v.subarray(0, end));
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: ${(e as Error).message}`, { row: what });
  }
  return { record, digest: readDigest(v, end, what), created: createdOf(v) };
}

/** The creating batch of a leaf row's value. */
function createdOf(v: Uint8Array): number {
  const n = v.length;
  return (v[n - 4]! | (v[n - 3]! << 8) | (v[n - 2]! << 16) | (v[n - 1]! << 24)) >>> 0;
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

function encodeHead(h: NameHead): Buffer {
  return Buffer.from(
    JSON.stringify({ batch: h.batch, root: Array.from(h.root), records: h.records, live: h.live, deleted: h.deleted }),
  );
}

function decodeHead(raw: Uint8Array, dir: string): NameHead {
  const h = parseMetadataJson(raw, "head", dir);
  const root = rootFromJson(h["root"]);
  if (
    !isCount(h["batch"]) ||
    root === undefined ||
    !isCount(h["records"]) ||
    !isCount(h["live"]) ||
    !isCount(h["deleted"])
  ) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: head is malformed`, { dir });
  }
  return { batch: h["batch"], root, records: h["records"], live: h["live"], deleted: h["deleted"] };
}

function encodeHistory(e: NameHistoryEntry): Buffer {
  return encodeHistoryRow(e);
}

function decodeHistory(raw: Uint8Array, dir: string): NameHistoryEntry {
  return decodeHistoryRow(raw, `a history row of the registry at ${dir}`);
}

/** Prefix of a key at height h (re-exported for writers). */
export { prefixOf };
