/**
 * The read path of the name-keyed store (name-store.ts): the head, the history and the window
 * of provable roots, a name's record, leaf and path, row access for the tree computations at the
 * head and at an earlier batch of the window (kept values found through `kept-index`,
 * name-versions.ts), the rows of a batch's change log and the stored block proofs, each in one
 * read snapshot or in the transaction it is given.
 */
import type { Transaction } from "lmdb" with { "resolution-mode": "require" };
import { digestEquals, type Digest } from "../../hash/digest.js";
import { EMPTY, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import { RegistryError } from "../errors.js";
import { recordLeaf } from "../mapping.js";
import { nameKey } from "../name-key.js";
import { RecordState, decodeRecord, readSlotKey, writeSlotKey, type StoredRecord } from "./record-codec.js";
import { sealedLength, unseal } from "./row-seal.js";
import { historyKey } from "./environment.js";
import { pathOf, type CompactPath, type CompactSource } from "../hashing/name-tree.js";
import { formatRoot } from "../root.js";
import { DEFAULT_RETENTION, decodeRetention, decodeWindow, type Retention } from "./name-versions.js";
import { recordRowOfDelta } from "./leaf-delta.js";
import { T_KEPT, keptIndexKey, keptKey, keptRows } from "./kept-chunks.js";
import {
  BLOCK_ROW_PREFIX,
  BLOCK_SUMMARY_PREFIX,
  blockRowKey,
  decodeBlockRow,
  decodeBlockSummary,
  type StoredBlock,
  type StoredBlockSummary,
} from "./block-rows.js";
import {
  CHANGE_PART_UPDATES,
  changeHeaderKey,
  changePartKey,
  changeRowName,
  decodeChangeHeader,
  decodeChangePart,
  type ChangeHeader,
  type LoggedChange,
} from "./change-log.js";
import {
  KEY_HEAD,
  KEY_RETENTION,
  KEY_WINDOW,
  NAME_SEALING,
  T_BRANCH,
  T_CHANGES,
  T_HISTORY,
  T_LEAF,
  T_META,
  canonicalDigest,
  createdOf,
  decodeHead,
  decodeHistory,
  decodeLeafRow,
  keptRowName,
  leafKey,
  leafRowDigest,
  readDigest,
  readVolatile,
} from "./name-rows.js";
import type {
  BatchView,
  LeafRow,
  NameHead,
  NameHistoryEntry,
  NameLookup,
  NameState,
  NameTables,
  ProvableWindow,
} from "./name-types.js";

/** The reads of one open name-keyed store, on its tables. */
export class NameReads {
  constructor(private readonly t: NameTables) {}

  /** Row access for the tree computations (inside `txn`, or the current write transaction). */
  source(txn?: Transaction): CompactSource {
    const o = txn ? { transaction: txn } : undefined;
    const one = (opts: object): number | undefined => {
      for (const k of this.t.leaves.getKeys({ ...opts, ...(o ?? {}), limit: 1 } as never))
        return readSlotKey(k as Buffer);
      return undefined;
    };
    const key8 = Buffer.allocUnsafe(8);
    const key9 = Buffer.allocUnsafe(9);
    return {
      firstKeyIn: (lo, hi) => one({ start: leafKey(lo), end: leafKey(hi) }),
      lastKeyIn: (lo, hi) =>
        one(
          lo === 0
            ? { start: leafKey(hi - 1), reverse: true }
            : { start: leafKey(hi - 1), end: leafKey(lo - 1), reverse: true },
        ),
      // the digest only: the row's checksum checked, its record not decoded
      leafDigest: (key) => {
        const k = key8;
        writeSlotKey(k, 0, key);
        const raw = readVolatile(this.t.leaves, k, o);
        if (raw === undefined)
          throw new RegistryError("DB_CORRUPT", `leaf row of key ${key} is missing`, { row: `leaf row of key ${key}` });
        return leafRowDigest(k, raw, key);
      },
      branch: (h, p) => {
        const k = key9;
        k[0] = h;
        writeSlotKey(k, 1, p);
        // a damaged row is read again and named below
        const fast = readVolatile(this.t.branches, k, o);
        if (fast !== undefined && sealedLength(T_BRANCH, k, fast) === 32) {
          const d = canonicalDigest(fast, 0);
          if (d !== undefined) return d;
        }
        const raw = this.t.branches.get(k, o);
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
    const raw = this.t.leaves.get(k, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return undefined;
    return decodeLeafRow(k, raw, key);
  }

  /** The committed head. */
  head(txn?: Transaction): NameHead {
    const raw: Uint8Array | undefined = this.t.meta.get(KEY_HEAD, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.t.dir} has no head`, { row: "meta row head" });
    // the row read last, decoded once: a server reads the head on every request
    let last = this.lastHead;
    if (last === undefined || !Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).equals(last.raw)) {
      last = { raw: Buffer.from(raw), head: decodeHead(unseal(T_META, KEY_HEAD, raw, "meta row head"), this.t.dir) };
      this.lastHead = last;
    }
    return { ...last.head, root: last.head.root.slice() };
  }

  /** The head row read last (its bytes, copied) and its decoded head. */
  private lastHead: { readonly raw: Buffer; readonly head: NameHead } | undefined;

  /** Every committed batch, oldest first. */
  history(): NameHistoryEntry[] {
    return this.t.env.history(this.t.historyDb, (value) => decodeHistory(value, this.t.dir));
  }

  /** The key of a name in this registry. @throws RegistryError `BAD_NAME`. */
  keyOf(name: string): number {
    return nameKey(name, this.t.config.depth);
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
      : recordLeaf(record.name, record.value, this.t.config.leafMaxFields);
  }

  /** `depth` siblings of a key, leaf level first, recomputed from the stored rows. */
  path(key: number, txn?: Transaction): CompactPath {
    return pathOf(this.source(txn), this.t.compressor(), this.t.defaults, this.t.config.depth, key);
  }

  /** Name, leaf, path and head from one snapshot. @throws RegistryError `BAD_NAME`. */
  nameState(name: string): NameState {
    return this.t.env.read((txn) => {
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
      for (const k of this.t.leaves.getKeys(txn ? { transaction: txn } : {})) {
        if (i >= n)
          throw new RegistryError(
            "DB_CORRUPT",
            `registry at ${this.t.dir}: more leaf rows than the head's ${n} records`,
          );
        out[i++] = readSlotKey(k as Buffer);
      }
      if (i !== n)
        throw new RegistryError("DB_CORRUPT", `registry at ${this.t.dir}: ${i} leaf rows, the head says ${n}`);
      return out;
    };
    return inWrite ? scan(undefined) : this.t.env.read(scan);
  }

  /** The retention of earlier roots. */
  retention(txn?: Transaction): Retention {
    const raw = this.t.meta.get(KEY_RETENTION, txn ? { transaction: txn } : undefined);
    if (raw === undefined) return DEFAULT_RETENTION;
    return decodeRetention(unseal(T_META, KEY_RETENTION, raw, "meta row retention"), this.t.dir);
  }

  /** The oldest provable batch. */
  oldestBatch(txn?: Transaction): number {
    const raw = this.t.meta.get(KEY_WINDOW, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.t.dir} has no window row`, { row: "meta row window" });
    return decodeWindow(unseal(T_META, KEY_WINDOW, raw, "meta row window"), this.t.dir);
  }

  /** One history entry. @throws RegistryError `DB_CORRUPT` when it is missing. */
  historyEntry(batch: number, txn?: Transaction): NameHistoryEntry {
    const k = historyKey(batch);
    const raw = this.t.historyDb.get(k, txn ? { transaction: txn } : undefined);
    if (raw === undefined)
      throw new RegistryError("DB_CORRUPT", `registry at ${this.t.dir} has no history row of batch ${batch}`, {
        row: `history row ${batch}`,
      });
    return decodeHistory(unseal(T_HISTORY, k, raw, `history row ${batch}`), this.t.dir);
  }

  /**
   * The change-log header of a batch (change-log.ts): its count of updates and parts, or
   * undefined when the batch's changes were not recorded (committed before the registry kept them).
   * @throws RegistryError `DB_CORRUPT` (a damaged row).
   */
  changeHeader(batch: number, txn?: Transaction): ChangeHeader | undefined {
    const key = changeHeaderKey(batch);
    const raw = this.t.changes.get(key, txn ? { transaction: txn } : undefined);
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
    const raw = this.t.changes.get(key, txn ? { transaction: txn } : undefined);
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
    return this.t.env.read((t) => {
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
      if (atHead) for (const key of this.t.leaves.getKeys({ transaction: t } as never)) add(key as Buffer);
      else
        for (const { key, value } of this.t.leaves.getRange({ transaction: t } as never))
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
    return this.t.env.read((t) => {
      const header = this.changeHeader(batch, t);
      const out: LoggedChange[] = [];
      for (const at of this.createdRows(batch, t)) out.push({ op: "insert", name: at.name, value: at.value });
      if (header?.created !== true || out.length !== header.updates)
        throw new RegistryError(
          "DB_CORRUPT",
          `batch ${batch} created ${out.length} leaf rows that are still stored, its change log says ${header?.updates ?? "nothing"}`,
          { batch },
        );
      return out;
    });
  }

  /**
   * The records of the leaf rows batch `batch` created, in key order, each as it was at that batch:
   * the row the scan read, or its kept value when a later batch overwrote it (what `leafRowAt`
   * gives, without reading the row again).
   */
  private *createdRows(batch: number, t: Transaction): Generator<StoredRecord> {
    // the leaf keys with a value kept by a batch after `batch` (one scan of the leaves' index
    // entries): only those can differ from the row the scan reads
    const later = new Set<number>();
    for (const { key, value } of this.t.keptIndex.getRange({
      start: keptIndexKey(0, 0),
      end: keptIndexKey(1, 0),
      transaction: t,
    } as never)) {
      const v = value as Buffer;
      if (v.length >= 4 && v.readUInt32BE(0) > batch) later.add((key as Buffer).readUIntBE(1, 6));
    }
    for (const row of this.leafRows(t)) {
      if (row.created !== batch) continue;
      const kept = later.has(row.key) ? this.versionAt(0, row.key, batch, t) : undefined;
      yield kept === undefined ? row.record : this.keptLeaf(kept, row, `kept value of leaf key ${row.key}`).record;
    }
  }

  /** Part `part` of a batch logged as its created rows: the inserts of those rows, in key order, each with its value at the batch. */
  private createdPart(batch: number, part: number, header: ChangeHeader, txn?: Transaction): LoggedChange[] {
    const run = (t: Transaction): LoggedChange[] => {
      const out: LoggedChange[] = [];
      let seen = 0;
      const skip = part * CHANGE_PART_UPDATES;
      for (const at of this.createdRows(batch, t)) {
        if (seen++ < skip) continue;
        out.push({ op: "insert", name: at.name, value: at.value });
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
    return txn ? run(txn) : this.t.env.read(run);
  }

  /**
   * Reads the tree as it was after batch `batch`, in one snapshot: row access (`source`) and the
   * leaf row of a key (`leafRow`) at that batch, and its history entry.
   * @throws RegistryError `ROOT_NOT_PROVABLE` (the batch is before the oldest provable batch: its
   *   rows are pruned; `details` name the oldest), `DB_CORRUPT` (a batch past the head).
   */
  readAtBatch<T>(batch: number, fn: (at: BatchView) => T): T {
    return this.t.env.read((txn) => {
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
    return txn ? run(txn) : this.t.env.read(run);
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
    return txn ? run(txn) : this.t.env.read(run);
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
      for (const { key, value } of this.t.historyDb.getRange({
        start: historyKey(this.rootsIndexed),
        end: historyKey(head + 1),
        transaction: txn,
      })) {
        const e = decodeHistory(
          unseal(T_HISTORY, key as Buffer, value, NAME_SEALING.historyRowName(key as Buffer)),
          this.t.dir,
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
    return this.t.env.read((txn) => {
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
        path: pathOf(this.sourceAt(txn, at.batch), this.t.compressor(), this.t.defaults, this.t.config.depth, key),
        head: at,
      };
    });
  }

  /**
   * The kept value of row (height, prefix) at batch b (the value superseded by the first batch
   * after b that overwrote it, found through `kept-index`), or undefined when no batch after b did.
   * @param chunks the chunks already decoded in this snapshot (a path read at one batch meets the
   *   same chunks at several levels), by key, each as its rows by `height:prefix`.
   * @throws RegistryError `DB_CORRUPT` (the chunk the index names is missing, damaged or does not keep the row).
   */
  versionAt(
    height: number,
    prefix: number,
    b: number,
    txn: Transaction,
    chunks: Map<string, Map<string, Uint8Array>> = new Map(),
  ): Uint8Array | undefined {
    for (const dup of this.t.keptIndex.getValues(keptIndexKey(height, prefix), {
      start: keptKey(b + 1, 0),
      limit: 1,
      transaction: txn,
    } as never)) {
      const k = Buffer.from(dup as Buffer);
      const what = keptRowName(k);
      const id = k.toString("latin1");
      let rows = chunks.get(id);
      if (rows === undefined) {
        const raw = this.t.kept.get(k, { transaction: txn });
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
  keptLeaf(delta: Uint8Array, head: LeafRow, what: string): LeafRow {
    let record: StoredRecord;
    try {
      record = decodeRecord(recordRowOfDelta(delta, Buffer.from(head.record.name, "utf8"), what));
    } catch (e) {
      throw new RegistryError("DB_CORRUPT", `${what}: ${(e as Error).message}`, { row: what });
    }
    const digest =
      record.state === RecordState.Deleted
        ? this.t.tombstoneDigest
        : hashLeaf(this.leafOf(record), this.t.config.leafMaxFields);
    return { record, digest, created: head.created };
  }

  /** Row access at batch b ≤ head (in `txn`). */
  sourceAt(txn: Transaction, b: number): CompactSource {
    const head = this.source(txn);
    const chunks = new Map<string, Map<string, Uint8Array>>();
    const existed = (key: Buffer, value: Buffer): boolean =>
      createdOf(unseal(T_LEAF, key, value, `leaf row of key ${readSlotKey(key)}`)) <= b;
    const scan = (opts: object): number | undefined => {
      for (const { key, value } of this.t.leaves.getRange({ ...opts, transaction: txn } as never))
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

  /** The summary of a stored part of a batch proved in parts. @throws RegistryError `DB_CORRUPT`. */
  blockProofSummary(batch: number, part: number): StoredBlockSummary | undefined {
    const sk = blockRowKey(BLOCK_SUMMARY_PREFIX, batch, part);
    const raw = this.t.meta.get(sk);
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
    return this.t.env.read((txn) => {
      const key = blockRowKey(BLOCK_ROW_PREFIX, batch, part),
        sk = blockRowKey(BLOCK_SUMMARY_PREFIX, batch, part);
      const raw = this.t.meta.get(key, { transaction: txn }),
        rawSummary = this.t.meta.get(sk, { transaction: txn });
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
    for (const { key, value } of this.t.meta.getRange({ start, end, limit })) {
      const what = `meta row ${Buffer.from(key as Buffer).toString("latin1")}`;
      out.push(decodeBlockSummary(unseal(T_META, key as Buffer, value, what), what));
    }
    return out;
  }

  /** Iterates every leaf row in key order (check and export). */
  *leafRows(txn: Transaction): Generator<{ key: number; record: StoredRecord; digest: Digest; created: number }> {
    for (const { key, value } of this.t.leaves.getRange({ transaction: txn })) {
      const k = readSlotKey(key as Buffer);
      yield { key: k, ...decodeLeafRow(key as Buffer, value, k) };
    }
  }

  /** Iterates every branch row in key order (height, then prefix). */
  *branchRows(txn: Transaction): Generator<{ h: number; p: number; digest: Digest }> {
    for (const { key, value } of this.t.branches.getRange({ transaction: txn })) {
      const kb = key as Buffer;
      const what = `branch row (height ${kb[0]}, prefix ${kb.length === 9 ? readSlotKey(kb.subarray(1)) : "?"})`;
      if (kb.length !== 9) throw new RegistryError("DB_CORRUPT", `${what} has a ${kb.length}-byte key`, { row: what });
      const v = unseal(T_BRANCH, kb, value, what);
      if (v.length !== 32)
        throw new RegistryError("DB_CORRUPT", `${what} has ${v.length} bytes, expected 32`, { row: what });
      yield { h: kb[0]!, p: readSlotKey(kb.subarray(1)), digest: readDigest(v, 0, what) };
    }
  }
}
