/**
 * The write path of the name-keyed store (name-store.ts): a batch's commit in one write
 * transaction (its tree rows, each overwritten row's earlier value kept in the batch's chunks,
 * its change log, the new head and history row), the retention window moved forward and the kept
 * rows no provable root reads pruned inside each commit, the retention setting, the pending block
 * rows of block directories being written (pending-block.ts), and the block proofs kept with
 * their batches (block-rows.ts).
 */
import { resolve as resolvePath } from "node:path";
import type { Transaction } from "lmdb" with { "resolution-mode": "require" };
import { digestEquals } from "../../hash/digest.js";
import { RegistryError } from "../errors.js";
import { blockParts, maxBlockUpdates } from "../block-size.js";
import { writeSlotKey } from "./record-codec.js";
import { seal, sealInto, sealedLength, unseal } from "./row-seal.js";
import { formatRoot } from "../root.js";
import {
  PRUNE_BUDGET_ROWS,
  advanceWindow,
  checkRetention,
  encodeRetention,
  encodeWindow,
  type Retention,
} from "./name-versions.js";
import { leafDelta } from "./leaf-delta.js";
import {
  KEPT_CHUNK_ROWS,
  KeptChunkBuilder,
  T_KEPT,
  keptIndexKey,
  keptKey,
  keptRows,
  type KeptRow,
} from "./kept-chunks.js";
import {
  BLOCK_ROW_PREFIX,
  BLOCK_SUMMARY_PREFIX,
  blockRowKey,
  encodeBlockRow,
  encodeBlockSummary,
  type StoredBlockSummary,
} from "./block-rows.js";
import { changeRowName, encodeChanges, encodeCreatedChanges, type LoggedChange } from "./change-log.js";
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
import {
  CREATED_BYTES,
  KEY_HEAD,
  KEY_RETENTION,
  KEY_WINDOW,
  T_BRANCH,
  T_CHANGES,
  T_LEAF,
  T_META,
  checkLeafValue,
  createdOf,
  encodeHead,
  encodeHistory,
  keptRowName,
  readVolatile,
} from "./name-rows.js";
import type { NameReads } from "./name-reads.js";
import type { BatchRows, NameBatch, NameHead, NameHistoryEntry, NameTables, NameWriter } from "./name-types.js";

const APPEND = { append: true };

/** One number per tree row (h ≤ 48, p < 2^(48 − h)): 2^(49 − h) + p. */
function nodeNumber(h: number, p: number): number {
  if (!(h >= 0 && h <= 48 && p >= 0 && p < 2 ** (48 - h)))
    throw new RegistryError("DB_CORRUPT", `no tree row has height ${h} and prefix ${p}`);
  return 2 ** (49 - h) + p;
}

/** The writes of one open name-keyed store, on its tables; reads through its `NameReads`. */
export class NameWrites {
  constructor(
    private readonly t: NameTables,
    private readonly r: NameReads,
  ) {}

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
    const kept = new Set<number>();
    let chunk = new KeptChunkBuilder();
    let chunkNo = 0;
    let chunkKey = keptKey(batch, chunkNo);
    const flushKept = (): void => {
      if (chunk.rows === 0) return;
      const k = chunkKey;
      if ((this.t.kept.putSync(k, seal(T_KEPT, k, chunk.bytes()), APPEND) as unknown) === false)
        throw new RegistryError("DB_CORRUPT", `kept rows of batch ${batch} are not above the stored ones`, {
          batch,
        });
      chunkNo++;
      chunkKey = keptKey(batch, chunkNo);
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
    const keep = (height: number, prefix: number, value: Uint8Array, size = value.length): void => {
      const node = nodeNumber(height, prefix);
      if (kept.has(node)) return;
      kept.add(node);
      if (chunk.rows === KEPT_CHUNK_ROWS) flushKept();
      chunk.add(height, prefix, value, size);
      this.t.keptIndex.putSync(keptIndexKey(height, prefix), chunkKey);
    };
    return {
      putLeaf: (key, row, digest, append, absent) => {
        writeSlotKey(key8, 0, key);
        let created = batch;
        if (append !== true && absent !== true) {
          const old = this.t.leaves.get(key8);
          if (old !== undefined) {
            const what = `leaf row of key ${key}`;
            const v = unseal(T_LEAF, key8, old, what);
            checkLeafValue(v, what);
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
          if ((this.t.leaves.putSync(key8, v, APPEND) as unknown) === false)
            throw new RegistryError("DB_CORRUPT", `leaf row of key ${key} is not above the stored keys`);
        } else this.t.leaves.putSync(key8, v);
      },
      putBranch: (h, p, digest, append, absent) => {
        key9[0] = h;
        writeSlotKey(key9, 1, p);
        if (append !== true && absent !== true) {
          const old = readVolatile(this.t.branches, key9);
          if (old !== undefined) {
            const n = sealedLength(T_BRANCH, key9, old);
            if (n >= 0) keep(h, p, old, n);
            else keep(h, p, unseal(T_BRANCH, key9, old, `branch row (height ${h}, prefix ${p})`));
          }
        }
        digestAt(digest, 0);
        const v = buf.subarray(0, sealInto(T_BRANCH, key9, buf, 32));
        if (append === true) {
          if ((this.t.branches.putSync(key9, v, APPEND) as unknown) === false)
            throw new RegistryError(
              "DB_CORRUPT",
              `branch row (height ${h}, prefix ${p}) is not above the stored branches`,
            );
        } else this.t.branches.putSync(key9, v);
      },
      source: this.r.source(),
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
      if ((this.t.changes.putSync(key, seal(T_CHANGES, key, value), APPEND) as unknown) === false)
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
    this.t.env.putHeadAndHistory(
      this.t.meta,
      this.t.historyDb,
      KEY_HEAD,
      encodeHead(next),
      next.batch,
      encodeHistory(entry),
    );
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
    const retention = this.r.retention();
    const oldest = this.r.oldestBatch();
    let moved = advanceWindow(oldest, head, now, retention, (b) => Date.parse(this.r.historyEntry(b).committedAt));
    if (moved > oldest && this.r.blockProofs({ limit: 1 }).length > 0)
      for (let b = oldest; b < moved; b++)
        if (this.blockPending(b + 1)) {
          moved = b;
          break;
        }
    if (moved !== oldest) this.t.meta.putSync(KEY_WINDOW, seal(T_META, KEY_WINDOW, encodeWindow(moved)));
    const chunks: { key: Buffer; rows: KeptRow[] }[] = [];
    let rows = 0;
    for (const { key, value } of this.t.kept.getRange({ start: keptKey(0, 0), end: keptKey(moved + 1, 0) })) {
      const k = Buffer.from(key as Buffer);
      const list = [...keptRows(Buffer.from(unseal(T_KEPT, k, value, keptRowName(k))), keptRowName(k))];
      if (chunks.length > 0 && rows + list.length > PRUNE_BUDGET_ROWS) break;
      chunks.push({ key: k, rows: list });
      rows += list.length;
    }
    for (const { key, rows: list } of chunks) {
      for (const row of list) this.t.keptIndex.removeSync(keptIndexKey(row.height, row.prefix), key);
      this.t.kept.removeSync(key);
    }
  }

  private expectHead(expectBatch: number | undefined): NameHead {
    const head = this.r.head();
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
    return this.t.env.write(() => {
      const head = this.expectHead(batch.expectBatch);
      if (batch.pending !== undefined) this.markPendingCommitted(batch.pending, head);
      const w = this.writer(head.batch + 1);
      const rows = batch.write(w, head);
      w.flushKept();
      return this.finishBatch(batch, head, rows, w.logged());
    });
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
    return await (this.t.env.write(async () => {
      const head = this.expectHead(batch.expectBatch);
      const w = this.writer(head.batch + 1);
      const rows = await batch.write(w, head);
      w.flushKept();
      return this.finishBatch(batch, head, rows, w.logged());
    }) as unknown as Promise<NameHistoryEntry>);
  }

  /**
   * Changes the retention of earlier roots (one write transaction); the next commit applies it.
   * @throws RegistryError `BAD_CONFIG`.
   */
  setRetention(retention: Partial<Retention>): Retention {
    const r = checkRetention({ ...this.r.retention(), ...retention });
    this.t.env.write(() => this.t.meta.putSync(KEY_RETENTION, seal(T_META, KEY_RETENTION, encodeRetention(r))));
    return r;
  }

  /** The pending block rows (pending-block.ts), in pid order. @throws RegistryError `DB_CORRUPT`. */
  pendingBlocks(txn?: Transaction): PendingBlock[] {
    const out: PendingBlock[] = [];
    const range = {
      start: Buffer.from(PENDING_BLOCK_PREFIX),
      end: Buffer.from(PENDING_BLOCK_PREFIX.slice(0, -1) + ";"),
      ...(txn ? { transaction: txn } : {}),
    };
    for (const { key, value } of this.t.meta.getRange(range)) {
      const what = `meta row ${Buffer.from(key as Buffer).toString("latin1")}`;
      out.push(decodePendingBlock(unseal(T_META, key as Buffer, value, what), what, this.t.dir));
    }
    return out;
  }

  /**
   * Records, in its own write transaction, that this process is about to write the block
   * directory `dir` for the next batch (docs/registry.md "Block proofs"). Commit the block with
   * `pending` set to the returned record and remove it with `clearPendingBlock`.
   */
  recordPendingBlock(dir: string): PendingBlock {
    return this.t.env.write(() => {
      const pending: PendingBlock = {
        dir: resolvePath(dir),
        batch: this.r.head().batch + 1,
        pid: process.pid,
        token: newPendingToken(),
        committed: false,
      };
      const key = pendingBlockKey(pending.pid);
      this.t.meta.putSync(key, seal(T_META, key, encodePendingBlock(pending)));
      return pending;
    });
  }

  /** Removes a pending block row (only the row of the same writer and token). */
  clearPendingBlock(pending: PendingBlock): void {
    this.t.env.write(() => {
      const key = pendingBlockKey(pending.pid);
      const row = this.pendingRow(pending.pid);
      if (row !== undefined && row.token === pending.token) this.t.meta.removeSync(key);
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
      this.t.env.write(() => {
        const p = this.pendingRow(seen.pid);
        if (p === undefined || p.token !== seen.token || writerAlive(p)) return;
        done.push({ block: p, outcome: settlePendingBlock(p, this.r.head().batch) });
        this.t.meta.removeSync(pendingBlockKey(p.pid));
      });
    }
    return done;
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
    this.t.meta.putSync(key, seal(T_META, key, encodePendingBlock({ ...row, committed: true })));
  }

  private pendingRow(pid: number): PendingBlock | undefined {
    const key = pendingBlockKey(pid);
    const raw = this.t.meta.get(key);
    if (raw === undefined) return undefined;
    const what = `meta row ${key.toString("latin1")}`;
    return decodePendingBlock(unseal(T_META, key, raw, what), what, this.t.dir);
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
    this.t.meta.putSync(key, seal(T_META, key, encodeBlockRow(blockJson, proof)));
    this.t.meta.putSync(sk, seal(T_META, sk, encodeBlockSummary(summary)));
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
    return this.t.env.write(() => {
      const b = summary.batch;
      const after = this.r.historyEntry(b),
        before = this.r.historyEntry(b - 1);
      // A part of a batch proved in parts starts where the part before ended (stored first) and
      // the first starts, the last ends, at the batch's roots.
      const part = summary.part ?? 0,
        parts = summary.parts ?? 1;
      const from =
        part === 0
          ? formatRoot(before.root)
          : (this.r.blockProofSummary(b, part - 1)?.to_root ?? "the part before, not kept");
      const to = part === parts - 1 ? formatRoot(after.root) : summary.to_root;
      if (to !== summary.to_root || from !== summary.from_root)
        throw new RegistryError(
          "BAD_BLOCK",
          parts === 1
            ? `the block of batch ${b} does not go from the root of batch ${b - 1} to the root of batch ${b}`
            : `part ${part} of ${parts} of the block of batch ${b} does not go on from ${part === 0 ? `the root of batch ${b - 1}` : `where part ${part - 1} ended`}${part === parts - 1 ? ` to the root of batch ${b}` : ""}`,
          { batch: b, part },
        );
      if (this.t.meta.get(blockRowKey(BLOCK_SUMMARY_PREFIX, b, summary.part)) !== undefined) return false;
      this.recordBlockProof(summary, blockJson, proof);
      return true;
    });
  }

  /** Whether batch `batch` changed the root, has its change log, and lacks a stored block proof of some part. */
  private blockPending(batch: number): boolean {
    const header = this.r.changeHeader(batch);
    if (header === undefined || header.updates === 0) return false;
    const parts = blockParts(
      header.updates,
      maxBlockUpdates(this.t.config.depth, undefined, this.t.config.leafMaxFields),
    );
    return this.r.blockProofs({ after: batch - 1, limit: parts }).filter((s) => s.batch === batch).length < parts;
  }
}
