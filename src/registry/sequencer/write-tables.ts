/**
 * The sequencer's two LMDB tables, in the registry's environment beside the tree's:
 *
 * - `seq-accepted`: writes accepted but not yet applied (answered `202` under
 *   `Prefer: respond-async`), key the acceptance number (u64 big-endian, so in arrival order),
 *   value the write as JSON. A row is written, in one transaction, before its 202 is sent, and
 *   deleted by the commit transaction of the epoch that applies it; on start-up the rows left are
 *   applied first, in order.
 * - `seq-keys` and `seq-key-order`: `Idempotency-Key` → the write's fingerprint and result
 *   (batch, position, root, or its error), written by the epoch's commit transaction, with an
 *   order table (u64 big-endian number → key) so the oldest are pruned first: a key is kept for
 *   `keepMs` (default 24 h) and at most `keepKeys` (default 100,000) keys are kept.
 *
 * Rows are JSON (small, rare next to the tree's rows); a row that does not parse is `DB_CORRUPT`.
 */
import type { Database } from "lmdb";
import { RegistryError } from "../errors.js";
import type { RecordValue } from "../mapping.js";
import type { NameUpdateKind } from "../name-operations.js";
import type { NameStore } from "../store/name-store.js";
import type { EpochWrite, EpochWriteOp } from "./epoch.js";

/** A write accepted before it is applied (a row of `seq-accepted`). */
export interface AcceptedWrite extends EpochWrite {
  /** Its acceptance number (the row's key). */
  readonly seq: number;
  readonly idempotencyKey?: string | undefined;
  readonly fingerprint?: string | undefined;
}

/** What a write came to, as an `Idempotency-Key` row keeps it. */
export type StoredResult =
  | {
      readonly ok: true;
      readonly op: NameUpdateKind;
      readonly batch: number;
      readonly position: number;
      /** The batch's root, `0x…` hex. */
      readonly root: string;
    }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** An `Idempotency-Key` row. */
export interface KeyRow {
  readonly fingerprint: string;
  /** When the write's epoch committed (ms since 1970). */
  readonly at: number;
  /** Its number in the order table. */
  readonly order: number;
  readonly result: StoredResult;
}

/** How long, and how many, `Idempotency-Key` rows are kept. */
export interface KeyRetention {
  /** Default 24 h. */
  readonly keepMs: number;
  /** Default 100,000. */
  readonly keepKeys: number;
}

/** The default retention of idempotency keys: 24 h, at most 100,000 keys. */
export const DEFAULT_KEY_RETENTION: KeyRetention = { keepMs: 24 * 3600 * 1000, keepKeys: 100_000 };

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function parseRow<T>(raw: Uint8Array, what: string): T {
  try {
    return JSON.parse(Buffer.from(raw).toString("utf8")) as T;
  } catch {
    throw new RegistryError("DB_CORRUPT", `${what} is not valid JSON`, { row: what });
  }
}

/** The sequencer's tables of one registry (opened, or created, for writing). */
export class WriteTables {
  private readonly accepted: Database<Buffer, Buffer>;
  private readonly keys: Database<Buffer, Buffer>;
  private readonly order: Database<Buffer, Buffer>;
  private keyCount: number;

  constructor(
    private readonly store: NameStore,
    readonly retention: KeyRetention = DEFAULT_KEY_RETENTION,
  ) {
    const open = (name: string) => {
      const t = store.sideTable(name);
      if (t === undefined)
        throw new RegistryError("DB_CORRUPT", `the registry at ${store.dir} cannot hold the table ${name}`, {});
      return t;
    };
    this.accepted = open("seq-accepted");
    this.keys = open("seq-keys");
    this.order = open("seq-key-order");
    this.keyCount = this.order.getCount();
  }

  /** The last key of a u64-keyed table (0 when empty), as the current transaction sees it. */
  private static last(db: Database<Buffer, Buffer>): number {
    for (const k of db.getKeys({ reverse: true, limit: 1 })) return Number((k as Buffer).readBigUInt64BE(0));
    return 0;
  }

  /** Every accepted write not yet applied, in acceptance order. @throws RegistryError `DB_CORRUPT`. */
  pending(): AcceptedWrite[] {
    const out: AcceptedWrite[] = [];
    for (const { key, value } of this.accepted.getRange({})) {
      const seq = Number((key as Buffer).readBigUInt64BE(0));
      const r = parseRow<{ op: EpochWriteOp; name: string; value?: RecordValue; key?: string; fp?: string }>(
        value,
        `seq-accepted row ${seq}`,
      );
      out.push({
        seq,
        op: r.op,
        name: r.name,
        ...(r.value !== undefined ? { value: r.value } : {}),
        ...(r.key !== undefined ? { idempotencyKey: r.key, fingerprint: r.fp } : {}),
      });
    }
    return out;
  }

  /**
   * Makes writes durable as accepted, in one transaction; returns them with their numbers.
   */
  accept(writes: readonly Omit<AcceptedWrite, "seq">[]): AcceptedWrite[] {
    return this.store.writeTransaction(() => {
      // numbered inside the transaction: another process's accepted rows are never overwritten
      let next = WriteTables.last(this.accepted) + 1;
      return writes.map((w) => {
        const seq = next++;
        const row = {
          op: w.op,
          name: w.name,
          ...(w.value !== undefined ? { value: w.value } : {}),
          ...(w.idempotencyKey !== undefined ? { key: w.idempotencyKey, fp: w.fingerprint } : {}),
        };
        this.accepted.putSync(u64(seq), Buffer.from(JSON.stringify(row)));
        return { ...w, seq };
      });
    });
  }

  /** Whether an accepted write's row is still there (not yet applied), as the current snapshot sees it. */
  isAccepted(seq: number): boolean {
    return this.accepted.get(u64(seq)) !== undefined;
  }

  /** Inside the epoch's transaction: removes applied accepted writes. */
  applied(seqs: readonly number[]): void {
    for (const s of seqs) this.accepted.removeSync(u64(s));
  }

  /** The row of an idempotency key, or undefined. @throws RegistryError `DB_CORRUPT`. */
  keyRow(key: string): KeyRow | undefined {
    const raw = this.keys.get(Buffer.from(key, "latin1"));
    return raw === undefined ? undefined : parseRow<KeyRow>(raw, `seq-keys row ${JSON.stringify(key)}`);
  }

  /** Inside the epoch's transaction: keeps a key's result, then prunes the oldest past the retention. */
  keep(key: string, fingerprint: string, result: StoredResult, now: number): void {
    const k = Buffer.from(key, "latin1");
    const old = this.keys.get(k);
    if (old !== undefined) {
      this.order.removeSync(u64(parseRow<KeyRow>(old, `seq-keys row ${JSON.stringify(key)}`).order));
      this.keyCount--;
    }
    const order = WriteTables.last(this.order) + 1;
    this.keys.putSync(k, Buffer.from(JSON.stringify({ fingerprint, at: now, order, result } satisfies KeyRow)));
    this.order.putSync(u64(order), k);
    this.keyCount++;
  }

  /** Inside the epoch's transaction: drops keys older than the retention, oldest first (up to `budget` rows). */
  prune(now: number, budget = 10_000): void {
    const oldest = [...this.order.getRange({ limit: budget })].map(({ key, value }) => ({
      key: Buffer.from(key as Buffer),
      name: Buffer.from(value),
    }));
    for (const { key, name } of oldest) {
      const row = this.keys.get(name);
      const at = row === undefined ? 0 : parseRow<KeyRow>(row, "seq-keys row").at;
      if (this.keyCount <= this.retention.keepKeys && at >= now - this.retention.keepMs) break;
      this.order.removeSync(key);
      this.keys.removeSync(name);
      this.keyCount--;
    }
  }

  /** Keys kept now. */
  get keptKeys(): number {
    return this.keyCount;
  }
}
