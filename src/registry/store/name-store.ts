/**
 * The persistent name-keyed registry (mapping `record-leaf-v2`, docs/registry.md §"Name-keyed
 * registries"): a compact sparse Merkle tree (name-tree.ts) on LMDB whose keys are the names'
 * Keccak-256 prefixes (name-key.ts), so the root commits to names and a name has one place.
 *
 * One environment directory (data.mdb, lock.mdb, and the marker file MAPPING naming the mapping)
 * with four tables; every row value ends with a
 * CRC-32 of table, key and value (row-seal.ts), checked on every read:
 * - `meta`: `config` (JSON: format, version 2, mapping, depth, leafMaxFields), `head` (JSON:
 *   batch, root, records, live, deleted) and, while a block is written, `pending-block:<pid>`
 *   (pending-block.ts);
 * - `leaves`: key (8-byte BE) → record row (record-codec.ts) ‖ leaf digest (8 × u32 LE);
 * - `branches`: height byte ‖ prefix (8-byte BE) → digest of a node whose two children hold
 *   records (8 × u32 LE);
 * - `history`: batch number (4-byte BE) → JSON of the head after the batch, its kind and size.
 *
 * Creation is atomic: the environment is created and initialised in a temporary sibling
 * directory that is renamed into place, so a directory either holds a complete registry or was
 * never created. Each batch is one LMDB write transaction (records, branches, head and history
 * entry together); readers see snapshots.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import type { Database, Transaction } from "lmdb" with { "resolution-mode": "require" };
import { compress, digestEquals, type Digest } from "../../hash/digest.js";
import { P } from "../../field/koalabear.js";
import { DEFAULT_LEAF_MAX_FIELDS, EMPTY, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { isCount, parseMetadataJson, rootFromJson } from "./metadata-json.js";
import { MIN_REGISTRY_LEAF_MAX_FIELDS, nameBytes, recordLeaf } from "../mapping.js";
import { MAX_CONFIG_LEAF_MAX_FIELDS } from "../../sync/limits.js";
import { DEFAULT_NAME_DEPTH, MAX_NAME_DEPTH, NAME_MAPPING_ID, keyOfDigest } from "../name-key.js";
import { nfcFormOf } from "../name-form.js";
import type { NonNfcRecord } from "./check.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { RecordState, decodeRecord, writeSlotKey, readSlotKey, type StoredRecord } from "./record-codec.js";
import { seal, sealInto, unseal } from "./row-seal.js";
import { defaultDigests } from "./store.js";
import { EnvironmentStore, RegistryEnvironment, type RowSealing } from "./environment.js";
import { Compressor, NO_STORED_ROWS, nodeDigest, pathOf, prefixOf, updateCompact, type CompactPath, type CompactSource } from "../hashing/name-tree.js";
import { defaultPermutation } from "../hashing/permutation.js";
import { PENDING_BLOCK_PREFIX, decodePendingBlock, encodePendingBlock, forgetPendingToken, newPendingToken, pendingBlockKey, settlePendingBlock, writerAlive, type PendingBlock, type PendingOutcome } from "./pending-block.js";

const FORMAT = "ssgkr-registry";
const FORMAT_VERSION = 2;
const T_META = 1;
const T_LEAF = 2;
const T_BRANCH = 3;
const T_HISTORY = 4;
const KEY_CONFIG = Buffer.from("config");
const KEY_HEAD = Buffer.from("head");
const APPEND = { append: true };

/** The configuration of a name-keyed registry (record-leaf-v2), fixed when it is created. */
export interface NameRegistryConfig {
  /** Tree depth, 1..48 (default 48): keys are the first `depth` bits of Keccak-256(name). */
  readonly depth: number;
  /** Leaf bound B, 20..63 (default 31; `MAX_CONFIG_LEAF_MAX_FIELDS`). */
  readonly leafMaxFields: number;
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
  readonly expectBatch: number;
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
    throw new RegistryError("BAD_CONFIG", `a name-keyed registry's depth must be an integer in [1, ${MAX_NAME_DEPTH}], got ${depth}`, { depth });
  }
  if (!Number.isInteger(leafMaxFields) || leafMaxFields < MIN_REGISTRY_LEAF_MAX_FIELDS || leafMaxFields > MAX_CONFIG_LEAF_MAX_FIELDS) {
    throw new RegistryError("BAD_CONFIG", `registry leaf bound must be an integer in [${MIN_REGISTRY_LEAF_MAX_FIELDS}, ${MAX_CONFIG_LEAF_MAX_FIELDS}] (a text value needs ${MIN_REGISTRY_LEAF_MAX_FIELDS} fields; ${MAX_CONFIG_LEAF_MAX_FIELDS} is the work limit of a circuit, docs/security.md), got ${leafMaxFields}`, { leafMaxFields });
  }
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
  open: (table, key, row, what) => unseal(table === "meta" ? T_META : T_HISTORY, key, row, typeof what === "string" ? what : what()),
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
  private compressor: Compressor | undefined;

  private constructor(dir: string, env: RegistryEnvironment) {
    super(env);
    const sub = (name: string) => env.table(name)!;
    this.meta = sub("meta");
    this.leaves = sub("leaves");
    this.branches = sub("branches");
    this.historyDb = sub("history");
    const raw = this.meta.get(KEY_CONFIG);
    if (raw === undefined) throw new RegistryError("DB_CORRUPT", `${dir} is an LMDB environment without a registry configuration`, { dir });
    this.config = parseConfig(unseal(T_META, KEY_CONFIG, raw, "meta row config"), dir);
    this.defaults = defaultDigests(this.config.depth, this.config.leafMaxFields);
    this.tombstoneDigest = hashLeaf(TOMBSTONE, this.config.leafMaxFields);
  }

  private static build(dir: string, readOnly: boolean): NameStore {
    const env = RegistryEnvironment.open(dir, readOnly, NAME_SEALING);
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
      throw new RegistryError("DB_CORRUPT", `cannot read the registry database at ${dir}: ${(e as Error).message}`, { dir });
    }
  }

  /**
   * Opens an existing name-keyed registry.
   * @throws RegistryError `DB_MISSING`, `DB_CORRUPT` (damaged rows, inconsistent head),
   * `WRONG_MAPPING` (a slot registry: open it with `RegistryStore.open` or `openRegistry`).
   */
  static open(dir: string, options: { readOnly?: boolean } = {}): NameStore {
    if (!isDir(dir) || !existsSync(join(dir, "data.mdb"))) {
      throw new RegistryError("DB_MISSING", `no registry database at ${dir} (expected ${join(dir, "data.mdb")}); create one with \`ssgkr registry import\``, { dir });
    }
    const mapping = peekRegistryMapping(dir);
    if (mapping !== NAME_MAPPING_ID) {
      throw new RegistryError("WRONG_MAPPING", `registry at ${dir} has mapping ${mapping ?? "(unknown)"}, not the name-keyed ${NAME_MAPPING_ID}: ${mapping === "record-leaf-v1" ? "it is a slot registry; open it with RegistryStore.open or openRegistry (open-any.ts)" : "open it with openRegistry (open-any.ts)"}`, { dir, mapping, expected: NAME_MAPPING_ID });
    }
    return NameStore.build(dir, options.readOnly === true);
  }

  /**
   * Opens the registry at dir, creating it atomically (temporary directory renamed into place)
   * if dir does not exist or is empty.
   * @throws RegistryError `BAD_CONFIG`, `CONFIG_MISMATCH`, `DB_CORRUPT`.
   */
  static openOrCreate(dir: string, config: Partial<NameRegistryConfig> = {}): NameStore {
    const wanted = checkNameConfig(config);
    if (isDir(dir) && existsSync(join(dir, "data.mdb"))) {
      const store = NameStore.open(dir);
      const c = store.config;
      if ((config.depth !== undefined && c.depth !== wanted.depth) || (config.leafMaxFields !== undefined && c.leafMaxFields !== wanted.leafMaxFields)) {
        store.closeSync();
        throw new RegistryError("CONFIG_MISMATCH", `registry at ${dir} has depth ${c.depth} and leaf bound ${c.leafMaxFields}; asked for depth ${wanted.depth} and leaf bound ${wanted.leafMaxFields}`, { stored: c, wanted });
      }
      return store;
    }
    if (existsSync(dir)) {
      if (!isDir(dir)) throw new RegistryError("DB_CORRUPT", `${dir} is a file, not a registry directory`, { dir });
      const entries = readdirSync(dir);
      if (entries.length > 0) throw new RegistryError("DB_CORRUPT", `${dir} is not empty and holds no registry database (found ${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""})`, { dir });
    }
    mkdirSync(dirname(dir), { recursive: true });
    removeStaleCreations(dir);
    const tmp = `${dir}${CREATING}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    try {
      mkdirSync(tmp);
      const env = RegistryEnvironment.open(tmp, false, NAME_SEALING);
      try {
        initialize(env, wanted);
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
      for (const k of this.leaves.getKeys({ ...opts, ...(o ?? {}), limit: 1 } as never)) return readSlotKey(k as Buffer);
      return undefined;
    };
    return {
      firstKeyIn: (lo, hi) => one({ start: leafKey(lo), end: leafKey(hi) }),
      lastKeyIn: (lo, hi) => one(lo === 0 ? { start: leafKey(hi - 1), reverse: true } : { start: leafKey(hi - 1), end: leafKey(lo - 1), reverse: true }),
      leafDigest: (key) => this.leafRow(key, txn)!.digest,
      branch: (h, p) => {
        const k = branchKey(h, p);
        const raw = this.branches.get(k, o);
        const what = `branch row (height ${h}, prefix ${p})`;
        if (raw === undefined) throw new RegistryError("DB_CORRUPT", `${what} is missing`, { row: what });
        const v = unseal(T_BRANCH, k, raw, what);
        if (v.length !== 32) throw new RegistryError("DB_CORRUPT", `${what} has ${v.length} bytes, expected 32`, { row: what });
        return readDigest(v, 0, what);
      },
    };
  }

  /** The stored record and leaf digest at a key, or undefined. */
  leafRow(key: number, txn?: Transaction): { record: StoredRecord; digest: Digest } | undefined {
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
      if (!digestEquals(top, head.root)) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: head root of batch ${head.batch} does not match the stored tree`, { batch: head.batch });
    });
  }

  /** The committed head. */
  head(txn?: Transaction): NameHead {
    const raw = this.meta.get(KEY_HEAD, txn ? { transaction: txn } : undefined);
    if (raw === undefined) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir} has no head`, { row: "meta row head" });
    return decodeHead(unseal(T_META, KEY_HEAD, raw, "meta row head"), this.dir);
  }

  /** Every committed batch, oldest first. */
  history(): NameHistoryEntry[] {
    return this.env.history(this.historyDb, (value) => decodeHistory(value, this.dir));
  }

  /** The key of a name in this registry. @throws RegistryError `BAD_NAME`. */
  keyOf(name: string): number {
    return keyOfDigest(keccak_256(nameBytes(name)), this.config.depth);
  }

  /** What is stored at a name's key. @throws RegistryError `BAD_NAME`. */
  lookup(name: string, txn?: Transaction): NameLookup {
    const key = this.keyOf(name);
    const row = this.leafRow(key, txn);
    if (row === undefined) return { name, key, record: undefined, other: undefined, leaf: EMPTY };
    if (row.record.name !== name) return { name, key, record: undefined, other: row.record, leaf: this.leafOf(row.record) };
    return { name, key, record: row.record, other: undefined, leaf: this.leafOf(row.record) };
  }

  /** Leaf of a stored record. */
  leafOf(record: StoredRecord): Leaf {
    return record.state === RecordState.Deleted ? TOMBSTONE : recordLeaf(record.name, record.value, this.config.leafMaxFields);
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

  /** All stored keys, ascending (the importer's in-memory index). */
  keys(): Float64Array {
    return this.read((txn) => {
      const n = this.head(txn).records;
      const out = new Float64Array(n);
      let i = 0;
      for (const k of this.leaves.getKeys({ transaction: txn })) {
        if (i >= n) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: more leaf rows than the head's ${n} records`);
        out[i++] = readSlotKey(k as Buffer);
      }
      if (i !== n) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: ${i} leaf rows, the head says ${n}`);
      return out;
    });
  }

  /** The compressor the store hashes nodes with (WASM kernel when available). */
  hasher(): Compressor {
    return this.compressorOf();
  }

  /** Row writers of the current write transaction (scratch buffers: LMDB copies keys and values on put). */
  private writer(): NameWriter {
    const key8 = Buffer.alloc(8);
    const key9 = Buffer.alloc(9);
    let buf = Buffer.alloc(4096);
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
    return {
      putLeaf: (key, row, digest, append) => {
        writeSlotKey(key8, 0, key);
        if (buf.length < row.length + 36) buf = Buffer.alloc(2 * (row.length + 36));
        buf.set(row, 0);
        digestAt(digest, row.length);
        const v = buf.subarray(0, sealInto(T_LEAF, key8, buf, row.length + 32));
        if (append === true) {
          if (this.leaves.putSync(key8, v, APPEND) as unknown === false) throw new RegistryError("DB_CORRUPT", `leaf row of key ${key} is not above the stored keys`);
        } else this.leaves.putSync(key8, v);
      },
      putBranch: (h, p, digest, append) => {
        key9[0] = h;
        writeSlotKey(key9, 1, p);
        digestAt(digest, 0);
        const v = buf.subarray(0, sealInto(T_BRANCH, key9, buf, 32));
        if (append === true) {
          if (this.branches.putSync(key9, v, APPEND) as unknown === false) throw new RegistryError("DB_CORRUPT", `branch row (height ${h}, prefix ${p}) is not above the stored branches`);
        } else this.branches.putSync(key9, v);
      },
      source: this.source(),
    };
  }

  private finishBatch(batch: { kind: string; name?: string }, head: NameHead, r: BatchRows): NameHistoryEntry {
    const next: NameHead = { batch: head.batch + 1, root: r.root, records: head.records + r.newRecords, live: head.live + r.liveDelta, deleted: head.deleted + r.deletedDelta };
    const entry: NameHistoryEntry = { ...next, kind: batch.kind, written: r.written, committedAt: new Date().toISOString(), ...(batch.name !== undefined ? { name: batch.name } : {}) };
    this.env.putHeadAndHistory(this.meta, this.historyDb, KEY_HEAD, encodeHead(next), next.batch, encodeHistory(entry));
    return entry;
  }

  private expectHead(expectBatch: number): NameHead {
    const head = this.head();
    if (head.batch !== expectBatch) {
      throw new RegistryError("CONCURRENT_UPDATE", `the registry changed while the batch was prepared (head is batch ${head.batch}, the batch was prepared against ${expectBatch}); nothing was written`, { batch: head.batch });
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
      return this.finishBatch(batch, head, batch.write(this.writer(), head));
    });
  }

  /** The pending block rows (pending-block.ts), in pid order. @throws RegistryError `DB_CORRUPT`. */
  pendingBlocks(txn?: Transaction): PendingBlock[] {
    const out: PendingBlock[] = [];
    const range = { start: Buffer.from(PENDING_BLOCK_PREFIX), end: Buffer.from(PENDING_BLOCK_PREFIX.slice(0, -1) + ";"), ...(txn ? { transaction: txn } : {}) };
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
      const pending: PendingBlock = { dir: resolvePath(dir), batch: this.head().batch + 1, pid: process.pid, token: newPendingToken(), committed: false };
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
      throw new RegistryError("CONCURRENT_UPDATE", `the registry changed since the block was recorded for batch ${pending.batch} (head is batch ${head.batch}); nothing was written`, { batch: head.batch });
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
  async commitAsync(batch: { readonly kind: string; readonly expectBatch: number; readonly write: (w: NameWriter, head: NameHead) => Promise<BatchRows> }): Promise<NameHistoryEntry> {
    return await (this.env.write(async () => {
      const head = this.expectHead(batch.expectBatch);
      return this.finishBatch(batch, head, await batch.write(this.writer(), head));
    }) as unknown as Promise<NameHistoryEntry>);
  }

  /** Iterates every leaf row in key order (check and export). */
  *leafRows(txn: Transaction): Generator<{ key: number; record: StoredRecord; digest: Digest }> {
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
      if (v.length !== 32) throw new RegistryError("DB_CORRUPT", `${what} has ${v.length} bytes, expected 32`, { row: what });
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
  check(onProgress?: (rows: number) => void): { records: number; branches: number; root: Digest; nonNfc: NonNfcRecord[] } {
    return this.read((txn) => {
      const head = this.head(txn);
      this.history();
      const { depth, leafMaxFields: B } = this.config;
      const keys = new Float64Array(head.records);
      const digests = new Uint32Array(8 * head.records);
      let n = 0, live = 0, deleted = 0;
      const nonNfc: NonNfcRecord[] = [];
      for (const row of this.leafRows(txn)) {
        const what = `leaf row of key ${row.key}`;
        if (n >= head.records) throw new RegistryError("DB_CORRUPT", `${what}: more leaf rows than the head's ${head.records} records`, { row: what });
        if (this.keyOf(row.record.name) !== row.key) throw new RegistryError("DB_CORRUPT", `${what} holds ${JSON.stringify(row.record.name)}, whose key is ${this.keyOf(row.record.name)}`, { row: what });
        const expect = row.record.state === RecordState.Deleted ? this.tombstoneDigest : hashLeaf(this.leafOf(row.record), B);
        if (!digestEquals(expect, row.digest)) throw new RegistryError("DB_CORRUPT", `${what}: its stored leaf digest is not the digest of its record`, { row: what });
        if (row.record.state === RecordState.Deleted) deleted++;
        else live++;
        const nfc = nfcFormOf(row.record.name);
        if (nfc !== undefined) nonNfc.push({ name: row.record.name, nfc, key: row.key, state: row.record.state === RecordState.Deleted ? "deleted" : "live" });
        keys[n] = row.key;
        digests.set(row.digest, 8 * n);
        n++;
        if (onProgress && n % 100_000 === 0) onProgress(n);
      }
      if (n !== head.records || live !== head.live || deleted !== head.deleted) {
        throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: ${n} leaf rows (${live} live, ${deleted} deleted); the head says ${head.records} (${head.live} live, ${head.deleted} deleted)`, { row: "meta row head" });
      }
      const u = n === 0 ? { root: this.defaults[depth]!, branches: { count: 0, heights: new Uint8Array(0), prefixes: new Float64Array(0), digests: new Uint32Array(0) } } : updateCompact(depth, this.defaults, this.compressorOf(), new Float64Array(0), 0, keys, digests, NO_STORED_ROWS);
      let i = 0;
      for (const b of this.branchRows(txn)) {
        const what = `branch row (height ${b.h}, prefix ${b.p})`;
        if (i >= u.branches.count || u.branches.heights[i] !== b.h || u.branches.prefixes[i] !== b.p) throw new RegistryError("DB_CORRUPT", `${what} is not a branch of the records' tree`, { row: what });
        if (!digestEquals(b.digest, u.branches.digests.subarray(8 * i, 8 * i + 8))) throw new RegistryError("DB_CORRUPT", `${what} does not match the digest recomputed from the records`, { row: what });
        i++;
      }
      if (i !== u.branches.count) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: ${u.branches.count - i} branch rows are missing (first: height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})`, { row: `branch row (height ${u.branches.heights[i]}, prefix ${u.branches.prefixes[i]})` });
      if (!digestEquals(u.root, head.root)) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir}: the root recomputed from the records differs from the head root of batch ${head.batch}`, { row: "meta row head" });
      return { records: n, branches: i, root: u.root, nonNfc };
    });
  }



}

/** Decodes and checks a leaf row (record row ‖ digest ‖ checksum). */
function decodeLeafRow(k: Uint8Array, raw: Uint8Array, key: number): { record: StoredRecord; digest: Digest } {
  const what = `leaf row of key ${key}`;
  const v = unseal(T_LEAF, k, raw, what);
  if (v.length < 32 + 4) throw new RegistryError("DB_CORRUPT", `${what} is too short (${v.length} bytes)`, { row: what });
  let record: StoredRecord;
  try {
    record = decodeRecord(v.subarray(0, v.length - 32));
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `${what}: ${(e as Error).message}`, { row: what });
  }
  return { record, digest: readDigest(v, v.length - 32, what) };
}

function initialize(env: RegistryEnvironment, config: NameRegistryConfig): void {
  const meta = env.table("meta")!;
  const history = env.table("history")!;
  env.table("leaves");
  env.table("branches");
  const root = defaultDigests(config.depth, config.leafMaxFields)[config.depth]!;
  const head: NameHead = { batch: 0, root, records: 0, live: 0, deleted: 0 };
  const configJson = Buffer.from(JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, mapping: NAME_MAPPING_ID, depth: config.depth, leafMaxFields: config.leafMaxFields }));
  env.write(() => {
    meta.putSync(KEY_CONFIG, seal(T_META, KEY_CONFIG, configJson));
    env.putHeadAndHistory(meta, history, KEY_HEAD, encodeHead(head), 0, encodeHistory({ ...head, kind: "create", written: 0, committedAt: new Date().toISOString() }));
  });
}

function parseConfig(raw: Uint8Array, dir: string): NameRegistryConfig {
  const c = parseMetadataJson(raw, "configuration", dir);
  if (c["format"] !== FORMAT || c["version"] !== FORMAT_VERSION || c["mapping"] !== NAME_MAPPING_ID) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: not a name-keyed registry ${JSON.stringify({ format: c["format"], version: c["version"], mapping: c["mapping"] })}`, { dir });
  }
  try {
    return checkNameConfig({ depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number });
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: ${(e as Error).message}`, { dir });
  }
}

function encodeHead(h: NameHead): Buffer {
  return Buffer.from(JSON.stringify({ batch: h.batch, root: Array.from(h.root), records: h.records, live: h.live, deleted: h.deleted }));
}

function decodeHead(raw: Uint8Array, dir: string): NameHead {
  const h = parseMetadataJson(raw, "head", dir);
  const root = rootFromJson(h["root"]);
  if (!isCount(h["batch"]) || root === undefined || !isCount(h["records"]) || !isCount(h["live"]) || !isCount(h["deleted"])) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: head is malformed`, { dir });
  }
  return { batch: h["batch"], root, records: h["records"], live: h["live"], deleted: h["deleted"] };
}

function encodeHistory(e: NameHistoryEntry): Buffer {
  return Buffer.from(JSON.stringify({ ...e, root: Array.from(e.root) }));
}

function decodeHistory(raw: Uint8Array, dir: string): NameHistoryEntry {
  const h = parseMetadataJson(raw, "history entry", dir);
  const head = decodeHead(raw, dir);
  if (typeof h["kind"] !== "string" || !isCount(h["written"]) || typeof h["committedAt"] !== "string") {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: history entry of batch ${head.batch} is malformed`, { dir });
  }
  return { ...head, kind: h["kind"], written: h["written"], committedAt: h["committedAt"], ...(typeof h["name"] === "string" ? { name: h["name"] } : {}) };
}

/** Prefix of a key at height h (re-exported for writers). */
export { prefixOf };
