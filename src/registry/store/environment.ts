/**
 * The LMDB environment of a registry directory, as both stores use it (the slot store,
 * store.ts, and the name-keyed store, name-store.ts): opening it (data.mdb's header checked
 * before LMDB maps it, lmdb-header.ts), its tables, read snapshots and write transactions, the
 * batch tail every commit ends with (the `head` row of `meta` and the batch's `history` row),
 * reading the history back, its size on disk and closing it once.
 *
 * The two stores seal their rows differently (row-checksum.ts for the slot store, row-seal.ts
 * with table tags for the name-keyed store); each passes its `RowSealing`, so every byte on disk
 * stays the store's own.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
// Types from lmdb's CommonJS declaration: its ESM one uses `export =`, which a consumer's
// `module: nodenext` program rejects (TS1203).
import type { Database, RootDatabase, Transaction } from "lmdb" with { "resolution-mode": "require" };
import { RegistryError } from "../errors.js";
import { checkLmdbFile } from "./lmdb-header.js";

/** The tables every registry has besides its tree and record tables. */
export type SealedTable = "meta" | "history";

/** How a store seals the rows of its `meta` and `history` tables. */
export interface RowSealing {
  /** The stored value of `value` under `key` in `table` (value ‖ checksum). */
  seal(table: SealedTable, key: Uint8Array, value: Uint8Array): Buffer;
  /**
   * The value of a stored row, its checksum checked and stripped.
   * @throws RegistryError `DB_CORRUPT` naming the row (`what`).
   */
  open(table: SealedTable, key: Uint8Array, row: Uint8Array, what: string | (() => string)): Uint8Array;
  /** How an error names the history row stored under `key`. */
  historyRowName(key: Uint8Array): string;
}

/** Options both stores open their environments with (binary keys and values, no compression). */
const LMDB_OPTIONS = {
  noSubdir: false,
  maxDbs: 12,
  encoding: "binary",
  keyEncoding: "binary",
  compression: false,
} as const;

/** Key of batch `batch`'s history row: the batch number, 4-byte big-endian. */
export function historyKey(batch: number): Buffer {
  const k = Buffer.allocUnsafe(4);
  k.writeUInt32BE(batch);
  return k;
}

/**
 * An open LMDB environment of one registry directory. Closing is idempotent.
 * @example
 *   const env = RegistryEnvironment.open("./registry", true, sealing);
 *   console.log(env.bytesOnDisk());
 *   env.closeSync();
 */
export class RegistryEnvironment {
  /** The registry directory (data.mdb, lock.mdb). */
  readonly dir: string;
  /** The LMDB root database. */
  readonly root: RootDatabase<Buffer, Buffer>;
  private readonly sealing: RowSealing;
  private closed = false;
  /** Whether the environment was opened read-only (no write transaction can run). */
  readonly readOnly: boolean;

  private constructor(dir: string, root: RootDatabase<Buffer, Buffer>, sealing: RowSealing, readOnly: boolean) {
    this.dir = dir;
    this.root = root;
    this.sealing = sealing;
    this.readOnly = readOnly;
  }

  /**
   * Opens the environment of an existing (or, with write access, a new) registry directory.
   * @param pageSize the page size in bytes of a new environment (a power of two; default the
   *   operating system's, 4,096 here); an existing environment keeps the page size it was created with.
   * @throws RegistryError `DB_CORRUPT` (data.mdb is not an LMDB file, or LMDB cannot open it).
   */
  static open(dir: string, readOnly: boolean, sealing: RowSealing, pageSize?: number): RegistryEnvironment {
    const data = join(dir, "data.mdb");
    if (existsSync(data)) checkLmdbFile(data);
    try {
      return new RegistryEnvironment(
        dir,
        open<Buffer, Buffer>({ path: dir, ...LMDB_OPTIONS, readOnly, ...(pageSize !== undefined ? { pageSize } : {}) }),
        sealing,
        readOnly,
      );
    } catch (e) {
      throw new RegistryError("DB_CORRUPT", `cannot open the registry database at ${dir}: ${(e as Error).message}`, {
        dir,
      });
    }
  }

  /**
   * Creates the environment in the empty directory `dir`, each commit flushed before it returns
   * (so the directory is complete on disk once the creating transaction has returned).
   * @throws RegistryError `DB_CORRUPT` (LMDB cannot create it).
   */
  static create(dir: string, sealing: RowSealing): RegistryEnvironment {
    try {
      return new RegistryEnvironment(
        dir,
        open<Buffer, Buffer>({ path: dir, ...LMDB_OPTIONS, overlappingSync: false }),
        sealing,
        false,
      );
    } catch (e) {
      throw new RegistryError("DB_CORRUPT", `cannot create the registry database in ${dir}: ${(e as Error).message}`, {
        dir,
      });
    }
  }

  /**
   * A table, binary keys and values (undefined when a read-only environment does not hold it).
   * `sortedFixedValues`: each key holds a sorted set of values of one fixed length (LMDB
   * `MDB_DUPSORT | MDB_DUPFIXED`, stored without a node per value); a table is always opened
   * with the flags it was created with.
   */
  table(name: string, sortedFixedValues = false): Database<Buffer, Buffer> | undefined {
    const db = this.root.openDB<Buffer, Buffer>({
      name,
      encoding: "binary",
      keyEncoding: "binary",
      ...(sortedFixedValues ? { dupSort: true, dupFixed: true } : {}),
    } as never) as Database<Buffer, Buffer> | undefined;
    // lmdb 3.5 positions `getValues(key, { start })` only through the table's encoder, which a
    // binary table lacks (it throws reading `encoder.writeKey`); an identity encoder set after
    // opening (so values are still read as raw bytes) makes it take its binary path.
    if (db !== undefined && sortedFixedValues) Object.assign(db, { encoder: { encode: (v: Buffer) => v } });
    return db;
  }

  /** Runs fn in one read snapshot (all reads see the same committed batch). */
  read<T>(fn: (txn: Transaction) => T): T {
    const txn = this.root.useReadTransaction();
    try {
      return fn(txn);
    } finally {
      txn.done();
    }
  }

  /** Runs the async fn in one read snapshot held until it settles. */
  async readAsync<T>(fn: (txn: Transaction) => Promise<T>): Promise<T> {
    const txn = this.root.useReadTransaction();
    try {
      return await fn(txn);
    } finally {
      txn.done();
    }
  }

  /** Runs fn in one write transaction: everything it writes commits together, or nothing if it throws. */
  write<T>(fn: () => T): T {
    return this.root.transactionSync(fn);
  }

  /**
   * The batch tail (inside the batch's write transaction): the new head under `headKey` in
   * `meta` and batch `batch`'s history entry in `history`, both sealed.
   */
  putHeadAndHistory(
    meta: Database<Buffer, Buffer>,
    history: Database<Buffer, Buffer>,
    headKey: Buffer,
    head: Uint8Array,
    batch: number,
    entry: Uint8Array,
  ): void {
    meta.putSync(headKey, this.sealing.seal("meta", headKey, head));
    const hk = historyKey(batch);
    history.putSync(hk, this.sealing.seal("history", hk, entry));
  }

  /**
   * Every history entry, oldest first, read in one snapshot.
   * @param decode decodes one entry (the row's value, its checksum checked and stripped).
   * @throws RegistryError `DB_CORRUPT` naming the first damaged row.
   */
  history<E>(history: Database<Buffer, Buffer>, decode: (value: Uint8Array) => E): E[] {
    return this.read((txn) => {
      const out: E[] = [];
      for (const { key, value } of history.getRange({ transaction: txn })) {
        out.push(decode(this.sealing.open("history", key, value, () => this.sealing.historyRowName(key))));
      }
      return out;
    });
  }

  /** Bytes of the files in the registry directory. */
  bytesOnDisk(): number {
    let total = 0;
    for (const f of readdirSync(this.dir)) total += statSync(join(this.dir, f)).size;
    return total;
  }

  /** Closes the environment (waits for pending flushes); a second close does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }

  /** Closes without waiting; a second close does nothing. */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    void this.root.close();
  }
}

/**
 * What both stores share of their environment: the directory, read snapshots, size on disk and
 * closing (idempotent). A store's constructor takes the opened environment.
 */
export abstract class EnvironmentStore {
  /** The registry directory. */
  readonly dir: string;
  protected readonly env: RegistryEnvironment;

  protected constructor(env: RegistryEnvironment) {
    this.dir = env.dir;
    this.env = env;
  }

  /** Whether the store was opened read-only. */
  get readOnly(): boolean {
    return this.env.readOnly;
  }

  /** Runs fn in one read snapshot (all reads see the same committed batch). */
  read<T>(fn: (txn: Transaction) => T): T {
    return this.env.read(fn);
  }

  /**
   * Starts the next reads on a fresh snapshot, which sees every batch committed so far (by this
   * thread, another thread or another process); reads otherwise reuse the thread's snapshot
   * until the event loop turns.
   */
  renewReadSnapshot(): void {
    this.env.root.resetReadTxn();
  }

  /** Bytes of the database files on disk. */
  bytesOnDisk(): number {
    return this.env.bytesOnDisk();
  }

  /** Closes the environment (waits for pending flushes). */
  async close(): Promise<void> {
    await this.env.close();
  }

  /** Closes without waiting. */
  closeSync(): void {
    this.env.closeSync();
  }
}
