/**
 * The persistent registry: a sparse Merkle tree of slots (compat-v1 §6, empty-subtree defaults
 * of §20.7) with its records and name index, on LMDB (`lmdb`). docs/registry.md describes the
 * layout and why LMDB.
 *
 * One environment directory (data.mdb, lock.mdb) with five tables:
 * - `meta`: `config` (JSON: format, version, depth, leafMaxFields, tileHeight, mapping) and
 *   `head` (JSON: batch, root, nextSlot, live, deleted), encoded by slot-metadata.ts;
 * - `records`: slot (8-byte BE) → record row (record-codec.ts);
 * - `names`: UTF-8 name → slot (8-byte BE), for every name ever registered (deleted ones too);
 * - `tiles`: tile key → tile row (tiles.ts), non-default nodes only;
 * - `history`: batch number (4-byte BE) → JSON of the head after that batch, its kind and size
 *   (slot-metadata.ts).
 *
 * Every stored value carries a checksum of its key and content (row-checksum.ts), checked when
 * the row is read: a damaged row is `DB_CORRUPT` naming the row. A registry directory is
 * created complete in a hidden sibling and renamed into place (atomic-create.ts), so a creator
 * killed at any point leaves either no registry or a complete one. data.mdb's header is checked
 * before LMDB maps it (lmdb-header.ts).
 *
 * Every batch is one LMDB write transaction: leaves, nodes, records, name index, head and
 * history entry become visible together. LMDB readers see a snapshot, so a concurrent reader
 * sees the old or the new root and the matching nodes, never a mix; a process killed in the
 * middle of a batch leaves the last committed batch intact.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
// Types from lmdb's CommonJS declaration: its ESM one uses `export =`, which a consumer's
// `module: nodenext` program rejects (TS1203).
import type { Database, Transaction } from "lmdb" with { "resolution-mode": "require" };
import { compress, digestEquals, type Digest } from "../../hash/digest.js";
import { DEFAULT_LEAF_MAX_FIELDS, EMPTY, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import { DEFAULT_DEPTH } from "../../smt/path.js";
import { MAX_CONFIG_LEAF_MAX_FIELDS } from "../../sync/limits.js";
import { RegistryError } from "../errors.js";
import { parseMetadataJson } from "./metadata-json.js";
import { MAPPING_ID, MIN_REGISTRY_LEAF_MAX_FIELDS, nameBytes, recordLeaf } from "../mapping.js";
import { RecordState, decodeRecord, readSlotKey, slotKey, type StoredRecord } from "./record-codec.js";
import { Tile, TILE_HEIGHT, layerPositions, tileKey } from "./tiles.js";
import { TreeUpdate } from "./tree-update.js";
import { openRow, sealRow, tryOpenRow } from "./row-checksum.js";
import { createDirectoryAtomically, creationInProgress } from "./atomic-create.js";
import { defaultPermutation, type BatchPermutation } from "../hashing/permutation.js";
import { EnvironmentStore, RegistryEnvironment, type RowSealing } from "./environment.js";
import {
  FORMAT,
  FORMAT_VERSION,
  KEY_CONFIG,
  KEY_HEAD,
  configRow,
  decodeHead,
  decodeHistory,
  encodeHead,
  encodeHistory,
  parseConfigRow,
} from "./slot-metadata.js";
import type { HistoryEntry, RegistryConfig, RegistryHead } from "./slot-types.js";

export type { HistoryEntry, RegistryConfig, RegistryHead } from "./slot-types.js";

/** Largest registry depth (slot numbers stay exact JavaScript numbers). */
export const MAX_REGISTRY_DEPTH = 48;

/** A consistent view of one slot. */
export interface SlotState {
  readonly slot: number;
  /** Empty (never used), Tombstone (deleted) or the record's Occupied leaf. */
  readonly leaf: Leaf;
  /** The stored record (absent for a never-used slot). */
  readonly record?: StoredRecord;
  /** `depth` sibling digests, leaf level first. */
  readonly siblings: Digest[];
  /** The head the view was read at. */
  readonly head: RegistryHead;
}

/** The leaf changes a batch makes, returned by its `write` step. */
export interface LeafChanges {
  /** Changed slots, strictly ascending, and their new leaf digests (8 words each). */
  readonly slots: ArrayLike<number>;
  readonly digests: Uint32Array;
  readonly nextSlot: number;
  readonly liveDelta: number;
  readonly deletedDelta: number;
  /** Records written. */
  readonly records: number;
}

/** What a write batch does (built by the importer and the single-record operations). */
export interface BatchChanges {
  readonly kind: string;
  /** Head batch number the batch was prepared against; the commit fails if the head moved. */
  readonly expectBatch: number;
  readonly slot?: number;
  /**
   * Writes the record rows and name-index entries (inside the transaction, given the head it
   * starts from) and returns the leaf changes. Throwing aborts the whole batch.
   */
  readonly write: (tables: WriteTables, head: RegistryHead) => LeafChanges;
}

/** The tables a batch writes its rows into (inside the batch transaction). */
export interface WriteTables {
  readonly records: Database<Buffer, Buffer>;
  readonly names: Database<Buffer, Buffer>;
}

const TABLES = ["meta", "records", "names", "tiles", "history"] as const;
/** A table of the registry (docs/registry.md, Storage). */
export type RegistryTable = (typeof TABLES)[number];

/** The slot store's row sealing: a checksum over key and value (row-checksum.ts). */
const SLOT_SEALING: RowSealing = {
  seal: (_table, key, value) => sealRow(key, value),
  open: (_table, key, row, what) => openRow(key, row, what),
  historyRowName: (key) => historyRowName(key),
};

/**
 * Checks a registry's leaf bound (either mapping): an integer from the fields a text value needs
 * to the work limit of a circuit.
 * @throws RegistryError `BAD_CONFIG`.
 */
export function checkLeafMaxFields(leafMaxFields: number): void {
  if (
    !Number.isInteger(leafMaxFields) ||
    leafMaxFields < MIN_REGISTRY_LEAF_MAX_FIELDS ||
    leafMaxFields > MAX_CONFIG_LEAF_MAX_FIELDS
  ) {
    throw new RegistryError(
      "BAD_CONFIG",
      `registry leaf bound must be an integer in [${MIN_REGISTRY_LEAF_MAX_FIELDS}, ${MAX_CONFIG_LEAF_MAX_FIELDS}] (a text value needs ${MIN_REGISTRY_LEAF_MAX_FIELDS} fields; ${MAX_CONFIG_LEAF_MAX_FIELDS} is the work limit of a circuit, docs/security.md), got ${leafMaxFields}`,
      { leafMaxFields },
    );
  }
}

/**
 * Validates a registry configuration.
 * @throws RegistryError `BAD_CONFIG`.
 */
export function checkRegistryConfig(config: Partial<RegistryConfig> = {}): RegistryConfig {
  const depth = config.depth ?? DEFAULT_DEPTH;
  const leafMaxFields = config.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_REGISTRY_DEPTH) {
    throw new RegistryError(
      "BAD_CONFIG",
      `registry depth must be an integer in [1, ${MAX_REGISTRY_DEPTH}], got ${depth}`,
      { depth },
    );
  }
  checkLeafMaxFields(leafMaxFields);
  return { depth, leafMaxFields };
}

/** default_0 = h_leaf(Empty), default_{l+1} = h_node(default_l, default_l), l = 0..depth. */
export function defaultDigests(depth: number, leafMaxFields: number): Digest[] {
  const d = [hashLeaf(EMPTY, leafMaxFields)];
  for (let l = 0; l < depth; l++) d.push(compress(d[l]!, d[l]!));
  return d;
}

/** Options of `RegistryStore.open`. */
export interface OpenOptions {
  /** Open without write access (read commands). Default false. */
  readonly readOnly?: boolean;
}

/**
 * A slot-mapped registry (slot-v1) on LMDB: records in slots of a sparse Merkle tree of depth `depth`, with history and proofs (docs/registry.md). A failing operation changes nothing.
 * @throws RegistryError (`RegistryErrorCode`): `DB_MISSING`, `DB_CORRUPT`, `DB_OUTDATED`, `CONFIG_MISMATCH`, …
 * @example
 *   const store = RegistryStore.openOrCreate("./registry", { depth: 24 });
 *   console.log(store.head().root);
 *   store.closeSync();
 */
export class RegistryStore extends EnvironmentStore {
  readonly config: RegistryConfig;
  /** default_l for l = 0..depth. */
  readonly defaults: readonly Digest[];
  private readonly meta: Database<Buffer, Buffer>;
  private readonly records: Database<Buffer, Buffer>;
  private readonly names: Database<Buffer, Buffer>;
  private readonly tiles: Database<Buffer, Buffer>;
  private readonly historyDb: Database<Buffer, Buffer>;
  private perm: BatchPermutation | undefined;

  private constructor(dir: string, env: RegistryEnvironment) {
    super(env);
    const tables = openTables(env);
    const stored = tables.meta?.get(KEY_CONFIG);
    if (stored === undefined) {
      if (TABLES.every((t) => tables[t] === undefined || tables[t]!.getKeysCount() === 0))
        throw interrupted(dir, "its LMDB environment holds no committed configuration");
      throw new RegistryError(
        "DB_CORRUPT",
        `${dir} is an LMDB environment with rows but without a registry configuration`,
        { dir },
      );
    }
    this.config = parseConfig(stored, dir);
    const missing = TABLES.filter((t) => tables[t] === undefined);
    if (missing.length > 0)
      throw new RegistryError(
        "DB_CORRUPT",
        `registry at ${dir} lacks the table${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
        { dir },
      );
    this.meta = tables.meta!;
    this.records = tables.records!;
    this.names = tables.names!;
    this.tiles = tables.tiles!;
    this.historyDb = tables.history!;
    this.defaults = defaultDigests(this.config.depth, this.config.leafMaxFields);
    this.checkHead();
  }

  private static build(dir: string, readOnly: boolean): RegistryStore {
    const env = RegistryEnvironment.open(dir, readOnly, SLOT_SEALING);
    try {
      return new RegistryStore(dir, env);
    } catch (e) {
      env.closeSync();
      if (e instanceof RegistryError) throw e;
      throw new RegistryError("DB_CORRUPT", `cannot read the registry database at ${dir}: ${(e as Error).message}`, {
        dir,
      });
    }
  }

  /**
   * Opens an existing registry.
   * @throws RegistryError `DB_MISSING` (no registry at dir), `DB_NOT_READY` (a registry being
   * created at dir, or one whose creation by an earlier version was interrupted: `registry
   * import` creates it), `DB_OUTDATED` (format version 1: run `ssgkr registry upgrade`),
   * `DB_CORRUPT` (not an LMDB environment, bad configuration, damaged row, inconsistent head),
   * `WRONG_MAPPING` (a name-keyed registry: open it with `NameStore.open` or `openRegistry`).
   */
  static open(dir: string, options: OpenOptions = {}): RegistryStore {
    const state = inspectDir(dir);
    if (state.kind === "interrupted") throw interrupted(dir, state.why);
    if (state.kind !== "database") {
      const pid = creationInProgress(dir);
      if (pid !== undefined)
        throw new RegistryError(
          "DB_NOT_READY",
          `the registry at ${dir} is being created (by process ${pid}); retry when its creation has finished`,
          { dir, pid },
        );
      throw new RegistryError(
        "DB_MISSING",
        `no registry database at ${dir} (expected ${join(dir, "data.mdb")}); create one with \`ssgkr registry import\``,
        { dir },
      );
    }
    const marker = join(dir, "MAPPING");
    if (existsSync(marker)) {
      let mapping: string;
      try {
        mapping = readFileSync(marker, "utf8").trim();
      } catch (e) {
        throw new RegistryError("DB_CORRUPT", `cannot read ${marker}: ${(e as Error).message}`, { dir });
      }
      throw new RegistryError(
        "WRONG_MAPPING",
        `registry at ${dir} is name-keyed (mapping ${mapping}), not a slot registry (record-leaf-v1): open it with NameStore.open or openRegistry (open-any.ts), or create a slot registry with \`--mapping slot-v1\``,
        { dir, mapping, expected: MAPPING_ID },
      );
    }
    return RegistryStore.build(dir, options.readOnly === true);
  }

  /**
   * Opens the registry at dir, creating it (with `config`) if dir does not exist or is empty.
   * Creation is atomic: the registry is built in a hidden sibling directory and renamed into
   * place. A directory left by an interrupted creation of an earlier version (only an empty
   * LMDB environment, or a 0-byte data.mdb) counts as not created and is created.
   * @throws RegistryError `BAD_CONFIG`, `CONFIG_MISMATCH` (config differs from the stored one),
   * `DB_OUTDATED`, `DB_CORRUPT` (dir holds other files or a damaged database).
   */
  static openOrCreate(dir: string, config: Partial<RegistryConfig> = {}): RegistryStore {
    const wanted = checkRegistryConfig(config);
    for (let attempt = 0; ; attempt++) {
      const state = inspectDir(dir);
      if (state.kind === "database") {
        let store: RegistryStore;
        try {
          store = RegistryStore.open(dir);
        } catch (e) {
          if (
            attempt === 0 &&
            e instanceof RegistryError &&
            e.code === "DB_NOT_READY" &&
            e.details["interrupted"] === true
          ) {
            removeInterrupted(dir);
            continue;
          }
          throw e;
        }
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
      if (state.kind === "file")
        throw new RegistryError("DB_CORRUPT", `${dir} is a file, not a registry directory`, { dir });
      if (state.kind === "other")
        throw new RegistryError(
          "DB_CORRUPT",
          `${dir} is not empty and holds no registry database (found ${state.entries.slice(0, 3).join(", ")}${state.entries.length > 3 ? ", …" : ""})`,
          { dir },
        );
      if (attempt > 1)
        throw new RegistryError(
          "DB_CORRUPT",
          `cannot create the registry database at ${dir}: it keeps changing while being created`,
          { dir },
        );
      if (state.kind === "interrupted") removeInterrupted(dir);
      createDirectoryAtomically(dir, (tmp) => initializeRegistry(tmp, wanted));
    }
  }

  /** Verifies on open that the stored head root equals h_node of the two top nodes. */
  private checkHead(): void {
    this.read((txn) => {
      const head = this.readHead(txn);
      const d = this.config.depth;
      const top = compress(this.nodeAt(txn, d - 1, 0), this.nodeAt(txn, d - 1, 1));
      if (!digestEquals(top, head.root)) {
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${this.dir}: head root of batch ${head.batch} does not match the stored top nodes`,
          { batch: head.batch },
        );
      }
    });
  }

  /** Runs the async fn in one read snapshot held until it settles (the full check). */
  async readAsync<T>(fn: (txn: Transaction) => Promise<T>): Promise<T> {
    return this.env.readAsync(fn);
  }

  /**
   * The rows of a table in key order, each with its checksum checked, read in `txn`; `start`
   * and `end` (exclusive) bound the keys. Values are views valid until the next row.
   * @throws RegistryError `DB_CORRUPT` naming the first damaged row.
   */
  *rows(
    table: RegistryTable,
    txn: Transaction,
    range: { start?: Buffer; end?: Buffer } = {},
  ): Generator<{ key: Buffer; value: Uint8Array }> {
    const db = {
      meta: this.meta,
      records: this.records,
      names: this.names,
      tiles: this.tiles,
      history: this.historyDb,
    }[table];
    for (const { key, value } of db.getRange({ transaction: txn, ...range })) {
      yield { key, value: openRow(key, value, () => rowName(table, key)) };
    }
  }

  /** The batched permutation the store hashes nodes with. */
  nodePermutation(): BatchPermutation {
    return this.permutation();
  }

  private readHead(txn?: Transaction): RegistryHead {
    const raw = this.meta.get(KEY_HEAD, txn ? { transaction: txn } : undefined);
    if (raw === undefined) throw new RegistryError("DB_CORRUPT", `registry at ${this.dir} has no head`);
    return decodeHead(openRow(KEY_HEAD, raw, `registry head row`), this.dir);
  }

  private loadTile(txn: Transaction | undefined, layer: number, index: number): Tile | undefined {
    const key = tileKey(layer, index);
    const raw = this.tiles.get(key, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return undefined;
    const where = `(layer ${layer}, index ${index})`;
    return Tile.decode(
      openRow(key, raw, () => `tile ${where}`),
      layerPositions(this.config.depth, layer),
      where,
    );
  }

  private nodeAt(txn: Transaction | undefined, level: number, index: number): Digest {
    const probe = new TreeUpdate(
      this.config.depth,
      this.defaults,
      (l, i) => this.loadTile(txn, l, i),
      this.permutation(),
    );
    return probe.node(level, index);
  }

  private permutation(): BatchPermutation {
    this.perm ??= defaultPermutation();
    return this.perm;
  }

  /** The committed head (read in `txn` when given). */
  head(txn?: Transaction): RegistryHead {
    return this.readHead(txn);
  }

  /** Every committed batch, oldest first. */
  history(): HistoryEntry[] {
    return this.env.history(this.historyDb, (value) => decodeHistory(value, this.dir));
  }

  /** The slot of a name ever registered (live or deleted), or undefined. @throws RegistryError `BAD_NAME`. */
  slotOf(name: string, txn?: Transaction): number | undefined {
    const key = Buffer.from(nameBytes(name));
    const raw = this.names.get(key, txn ? { transaction: txn } : undefined);
    return raw === undefined ? undefined : readNameEntry(key, raw);
  }

  /**
   * The stored record row (without its checksum) of a name given as UTF-8 bytes, and its slot,
   * or undefined when the name was never registered (import resume check).
   */
  recordRowOfName(name: Uint8Array): { slot: number; row: Uint8Array } | undefined {
    return this.read((txn) => {
      const key = Buffer.from(name.buffer, name.byteOffset, name.byteLength);
      const raw = this.names.get(key, { transaction: txn });
      if (raw === undefined) return undefined;
      const slot = readNameEntry(key, raw);
      const sk = slotKey(slot);
      const row = this.records.get(sk, { transaction: txn });
      if (row === undefined)
        throw new RegistryError(
          "DB_CORRUPT",
          `name-index row of ${shownName(key)} points at slot ${slot}, which holds no record`,
          { slot },
        );
      return { slot, row: Uint8Array.from(openRow(sk, row, () => `record row of slot ${slot}`)) };
    });
  }

  /** Whether a name (as UTF-8 bytes) is in the name index (import duplicate check). */
  hasNameBytes(name: Uint8Array): boolean {
    return this.names.get(Buffer.from(name.buffer, name.byteOffset, name.byteLength)) !== undefined;
  }

  /**
   * Checks a slot number against the tree.
   * @throws RegistryError `SLOT_OUT_OF_RANGE` unless an integer in [0, 2^depth).
   */
  checkSlot(slot: number): number {
    if (!Number.isInteger(slot) || slot < 0 || slot >= 2 ** this.config.depth) {
      throw new RegistryError(
        "SLOT_OUT_OF_RANGE",
        `slot ${slot} is outside the registry tree of depth ${this.config.depth} (slots are integers in [0, 2^${this.config.depth}))`,
        { slot, depth: this.config.depth },
      );
    }
    return slot;
  }

  /** The stored record of a slot, or undefined. */
  record(slot: number, txn?: Transaction): StoredRecord | undefined {
    this.checkSlot(slot);
    const key = slotKey(slot);
    const raw = this.records.get(key, txn ? { transaction: txn } : undefined);
    return raw === undefined
      ? undefined
      : decodeRecord(
          openRow(key, raw, () => `record row of slot ${slot}`),
          slot,
        );
  }

  /** `depth` sibling digests of a slot, leaf level first. */
  siblings(slot: number, txn?: Transaction): Digest[] {
    this.checkSlot(slot);
    const probe = new TreeUpdate(
      this.config.depth,
      this.defaults,
      (l, i) => this.loadTile(txn, l, i),
      this.permutation(),
    );
    const out: Digest[] = [];
    let index = slot;
    for (let level = 0; level < this.config.depth; level++) {
      out.push(probe.node(level, index % 2 === 0 ? index + 1 : index - 1));
      index = Math.floor(index / 2);
    }
    return out;
  }

  /** The stored digest of node (level, index), level < depth, or the default. */
  node(level: number, index: number): Digest {
    return this.read((txn) => this.nodeAt(txn, level, index));
  }

  /** The leaf of a record row (or Empty when there is none). */
  leafOf(record: StoredRecord | undefined): Leaf {
    if (record === undefined) return EMPTY;
    if (record.state === RecordState.Deleted) return TOMBSTONE;
    return recordLeaf(record.name, record.value, this.config.leafMaxFields);
  }

  /** Slot, leaf, record, path and head read from one snapshot. @throws RegistryError `SLOT_OUT_OF_RANGE`. */
  slotState(slot: number): SlotState {
    this.checkSlot(slot);
    return this.read((txn) => {
      const record = this.record(slot, txn);
      return {
        slot,
        leaf: this.leafOf(record),
        ...(record ? { record } : {}),
        siblings: this.siblings(slot, txn),
        head: this.readHead(txn),
      };
    });
  }

  /**
   * Commits one batch in one write transaction and returns its history entry. `timing.treeMs`
   * receives the time of the tree recomputation (ms).
   * @throws RegistryError `CONCURRENT_UPDATE` if the head moved since the batch was prepared;
   * nothing is written then.
   */
  commit(changes: BatchChanges, timing?: { treeMs: number }): HistoryEntry {
    return this.env.write(() => {
      const head = this.readHead();
      if (head.batch !== changes.expectBatch) {
        throw new RegistryError(
          "CONCURRENT_UPDATE",
          `the registry changed while the batch was prepared (head is batch ${head.batch}, the batch was prepared against ${changes.expectBatch}); nothing was written`,
          { batch: head.batch },
        );
      }
      const changed = changes.write({ records: this.records, names: this.names }, head);
      const t0 = performance.now();
      const update = new TreeUpdate(
        this.config.depth,
        this.defaults,
        (l, i) => this.loadTile(undefined, l, i),
        this.permutation(),
      );
      const root = changed.slots.length === 0 ? head.root : update.apply(changed.slots, changed.digests);
      if (timing) timing.treeMs = performance.now() - t0;
      for (const t of update.touched()) {
        const key = tileKey(t.layer, t.index);
        if (t.tile.mask === 0) this.tiles.removeSync(key);
        else this.tiles.putSync(key, sealRow(key, t.tile.encode()));
      }
      const next: RegistryHead = {
        batch: head.batch + 1,
        root,
        nextSlot: changed.nextSlot,
        live: head.live + changed.liveDelta,
        deleted: head.deleted + changed.deletedDelta,
      };
      const entry: HistoryEntry = {
        ...next,
        kind: changes.kind,
        records: changed.records,
        committedAt: new Date().toISOString(),
        ...(changes.slot !== undefined ? { slot: changes.slot } : {}),
      };
      this.env.putHeadAndHistory(
        this.meta,
        this.historyDb,
        KEY_HEAD,
        encodeHead(next),
        next.batch,
        encodeHistory(entry),
      );
      return entry;
    });
  }
}

type Tables = { [K in (typeof TABLES)[number]]: Database<Buffer, Buffer> | undefined };

/** The five tables (undefined for a table a read-only open does not find). */
function openTables(env: RegistryEnvironment): Tables {
  const sub = (name: string) => env.table(name);
  return {
    meta: sub("meta"),
    records: sub("records"),
    names: sub("names"),
    tiles: sub("tiles"),
    history: sub("history"),
  };
}

/**
 * Writes a new registry (configuration, head and history entry of batch 0, empty tables) into
 * the empty directory `dir` in one transaction and closes it. Commits are flushed before they
 * return, so the directory is complete on disk when this returns.
 */
function initializeRegistry(dir: string, config: RegistryConfig): void {
  const env = RegistryEnvironment.create(dir, SLOT_SEALING);
  try {
    const t = openTables(env);
    const root = defaultDigests(config.depth, config.leafMaxFields)[config.depth]!;
    const head: RegistryHead = { batch: 0, root, nextSlot: 0, live: 0, deleted: 0 };
    env.write(() => {
      t.meta!.putSync(KEY_CONFIG, configRow(config));
      env.putHeadAndHistory(
        t.meta!,
        t.history!,
        KEY_HEAD,
        encodeHead(head),
        0,
        encodeHistory({ ...head, kind: "create", records: 0, committedAt: new Date().toISOString() }),
      );
    });
  } finally {
    env.closeSync();
  }
}

/** What `upgradeRegistry` did. */
export interface UpgradeReport {
  /** Format version found (equal to `toVersion`: already current, nothing written). */
  readonly fromVersion: number;
  /** Format version of the registry now (slot registries 2, name-keyed registries 3). */
  readonly toVersion: number;
  /** Rows rewritten with their checksum. */
  readonly rows: number;
}

/**
 * Converts a format-1 slot registry (rows without checksums) to format 2 in place, in one write
 * transaction: every row gets its checksum, the configuration its new version; root, slots and
 * history are unchanged. The result is then opened, which checks the head root against the
 * stored top nodes; run `checkRegistry` for a full check. A registry already at format 2 is
 * left as it is.
 * @throws RegistryError `DB_MISSING`, `DB_NOT_READY`, `DB_CORRUPT` (not a format-1 or
 * format-2 registry).
 */
export function upgradeSlotRegistry(dir: string): UpgradeReport {
  const state = inspectDir(dir);
  if (state.kind !== "database") RegistryStore.open(dir).closeSync(); // DB_MISSING or DB_NOT_READY
  const env = RegistryEnvironment.open(dir, false, SLOT_SEALING);
  let rows = 0;
  let fromVersion = FORMAT_VERSION;
  try {
    const t = openTables(env);
    const raw = t.meta?.get(KEY_CONFIG);
    if (raw === undefined) throw interrupted(dir, "its LMDB environment holds no committed configuration");
    if (tryOpenRow(KEY_CONFIG, raw) === undefined) {
      const c = parseMetadataJson(raw, "configuration", dir);
      if (
        c["format"] !== FORMAT ||
        c["version"] !== 1 ||
        c["mapping"] !== MAPPING_ID ||
        c["tileHeight"] !== TILE_HEIGHT
      ) {
        throw new RegistryError(
          "DB_CORRUPT",
          `registry at ${dir}: configuration is neither format 1 nor a checksummed format ${FORMAT_VERSION} row`,
          { dir },
        );
      }
      let config: RegistryConfig;
      try {
        config = checkRegistryConfig({ depth: c["depth"] as number, leafMaxFields: c["leafMaxFields"] as number });
      } catch (e) {
        throw new RegistryError("DB_CORRUPT", `registry at ${dir}: ${(e as Error).message}`, { dir });
      }
      fromVersion = 1;
      env.write(() => {
        for (const name of TABLES) {
          const db = t[name];
          if (db === undefined) continue;
          let start: Buffer | undefined;
          for (;;) {
            const chunk: { key: Buffer; value: Buffer }[] = [];
            for (const { key, value } of db.getRange({ ...(start ? { start } : {}), limit: 10_000 }))
              chunk.push({ key: Buffer.from(key), value: Buffer.from(value) });
            if (chunk.length === 0) break;
            for (const { key, value } of chunk) {
              if (name === "meta" && key.equals(KEY_CONFIG)) continue;
              db.putSync(key, sealRow(key, value));
              rows++;
            }
            start = Buffer.concat([chunk[chunk.length - 1]!.key, Buffer.of(0)]);
          }
        }
        t.meta!.putSync(KEY_CONFIG, configRow(config));
        rows++;
      });
    }
  } finally {
    env.closeSync();
  }
  RegistryStore.open(dir).closeSync();
  return { fromVersion, toVersion: FORMAT_VERSION, rows };
}

type DirState =
  | { readonly kind: "absent" }
  | { readonly kind: "file" }
  | { readonly kind: "other"; readonly entries: string[] }
  | { readonly kind: "interrupted"; readonly why: string }
  | { readonly kind: "database" };

const LMDB_FILES = new Set(["data.mdb", "lock.mdb"]);

/**
 * What a directory holds: nothing (absent or empty), a database (data.mdb), what an
 * interrupted creation of an earlier version leaves (lock.mdb alone, a 0-byte data.mdb), a
 * file, or other files.
 */
function inspectDir(dir: string): DirState {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) return { kind: "file" };
    entries = readdirSync(dir);
  } catch {
    return { kind: "absent" };
  }
  if (entries.length === 0) return { kind: "absent" };
  if (entries.some((e) => !LMDB_FILES.has(e)))
    return entries.includes("data.mdb") ? { kind: "database" } : { kind: "other", entries };
  let size: number;
  try {
    size = statSync(join(dir, "data.mdb")).size;
  } catch {
    return { kind: "interrupted", why: "it holds a lock file and no data file" };
  }
  return size === 0 ? { kind: "interrupted", why: "its data.mdb is empty (0 bytes)" } : { kind: "database" };
}

function interrupted(dir: string, why: string): RegistryError {
  return new RegistryError(
    "DB_NOT_READY",
    `${dir} holds a registry whose creation did not finish (${why}); \`ssgkr registry import --db ${dir} …\` creates it`,
    { dir, interrupted: true },
  );
}

/** Removes the LMDB files of an interrupted creation (nothing else is in the directory). */
function removeInterrupted(dir: string): void {
  for (const f of LMDB_FILES) rmSync(join(dir, f), { force: true });
}

/** How errors name a row of a table. */
export function rowName(table: RegistryTable, key: Uint8Array): string {
  const k = Buffer.from(key);
  if (table === "records" && k.length === 8) return `record row of slot ${readSlotKey(k)}`;
  if (table === "names") return `name-index row of ${shownName(k)}`;
  if (table === "tiles" && k.length === 9)
    return `tile (layer ${k[0]}, index ${k.readUIntBE(1, 4) * 2 ** 32 + k.readUInt32BE(5)})`;
  if (table === "history") return historyRowName(k);
  if (table === "meta")
    return k.equals(KEY_CONFIG)
      ? "configuration row"
      : k.equals(KEY_HEAD)
        ? "registry head row"
        : `meta row ${JSON.stringify(k.toString("latin1"))}`;
  return `${table} row ${k.toString("hex")}`;
}

function historyRowName(key: Uint8Array): string {
  return key.length === 4
    ? `history row of batch ${Buffer.from(key).readUInt32BE(0)}`
    : `history row ${Buffer.from(key).toString("hex")}`;
}

function shownName(name: Uint8Array): string {
  const s = Buffer.from(name).toString("utf8");
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

/** The slot of a name-index row. @throws RegistryError `DB_CORRUPT`. */
function readNameEntry(name: Uint8Array, raw: Uint8Array): number {
  return readSlotKey(openRow(name, raw, () => `name-index row of ${shownName(name)}`));
}

/** The value of a name-index row: the slot key, sealed under the name. */
export function nameEntry(name: Uint8Array, slotKeyBytes: Uint8Array): Buffer {
  return sealRow(name, slotKeyBytes);
}

/** The configuration row, checked. @throws RegistryError `DB_CORRUPT` (`DB_OUTDATED` for format 1). */
function parseConfig(sealed: Uint8Array, dir: string): RegistryConfig {
  const c = parseConfigRow(sealed, dir);
  try {
    return checkRegistryConfig(c);
  } catch (e) {
    throw new RegistryError("DB_CORRUPT", `registry at ${dir}: ${(e as Error).message}`, { dir });
  }
}

/** Slot keys of the `records` and `names` tables, re-exported for writers. */
export { slotKey };
