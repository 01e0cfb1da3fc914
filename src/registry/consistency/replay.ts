/**
 * Replaying a committed batch (docs/registry.md "Consistency between checkpoints"): the batch's
 * logged updates (store/change-log.ts) applied in order, in memory, to the tree as it was after the
 * batch before, giving what a block proof needs per update — old and new leaf, the `depth`
 * siblings, old and new root.
 *
 * Stored rows are only read. Every node the replay needs is one of three kinds:
 * - a node that no update of the batch touches: its digest is the same before and after the
 *   batch, and is read from the stored tree **after** the batch (at the head, usually, where a
 *   node costs one range lookup and no filtering of newer rows);
 * - a node some update has already changed: kept in an overlay (by height and prefix);
 * - a node holding updates still to replay and none replayed yet: its digest before the batch,
 *   hashed up from its children (the old leaf at height 0, read at the batch before) and kept in
 *   the overlay when two or more of the batch's keys lie under it or a sibling asked for it (the
 *   height's default when the tree before the batch held no record).
 * Which kind a node is comes from the batch's keys, sorted, with a count of the updates still to
 * replay per key (a Fenwick tree). An overlay node is dropped once its parent holds no update
 * still to replay (nothing will ask for it again), so the overlay stays near the nodes shared by
 * the updates still to come instead of growing with every path replayed.
 *
 * A batch of more updates than one block proof holds at the registry's depth (`batchPartUpdates`:
 * `maxBlockUpdates` of block-size.ts, 2,048 at depth 48, 4,096 at depths up to 37) is replayed part
 * by part (`BatchReplay`), each part a block from the root the previous part left; a replay moves
 * forward only, so the parts of one batch are asked for in increasing order (an earlier part
 * starts the replay over). A part asked for past the next one skips the parts between: their
 * updates are applied to the replay's state without their paths (each key's last leaf kept, the
 * overlay's nodes above them dropped), and a node with skipped updates under it and updates still
 * to replay is hashed up from its children when asked for (a fourth kind). The workers of a proving
 * pool that share a batch's parts so replay only the parts they prove. The parts of a proof are cut from the whole change log, whatever the
 * log's own storage parts are. The replay checks itself: each update's old leaf must fit its op,
 * and the last root must be the batch's committed root (`DB_CORRUPT` otherwise).
 *
 * replay-reference.ts is the plain reference (every sibling read at the batch before), checked
 * against this one by test/registry/replay-diff.test.ts.
 */
import { digestEquals, type Digest } from "../../hash/digest.js";
import { EMPTY, LeafTag, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import type { UpdateRecord } from "../../smt/tree.js";
import { RegistryError } from "../errors.js";
import { nameIdentity, recordLeaf } from "../mapping.js";
import { bitAt, lcaHeight, nodeDigest, prefixOf, type CompactSource } from "../hashing/name-tree.js";
import { mergeKeys } from "../hashing/name-keys.js";
import { RecordState } from "../store/record-codec.js";
import type { ChangeHeader, LoggedChange } from "../store/change-log.js";
import type { LeafRow, NameStore } from "../store/name-store.js";
import type { ProvableBlock } from "../block-dir.js";
import type { BlockUpdate } from "../name-block.js";
import { blockParts, maxBlockUpdates } from "../block-size.js";
import { PendingKeys, lowerBound } from "./pending-keys.js";

/** A replayed part of a batch: a block to prove, and where it sits in its batch. */
export interface ReplayedPart extends ProvableBlock {
  readonly batch: number;
  /** 0-based part number. */
  readonly part: number;
  /** Parts of the batch. */
  readonly parts: number;
}

/**
 * The most updates in one block proof of a batch of this registry: `maxBlockUpdates` at its depth
 * and leaf bound with the default WHIR set (the set the block provers use).
 */
export function batchPartUpdates(store: NameStore): number {
  return maxBlockUpdates(store.config.depth, undefined, store.config.leafMaxFields);
}

/**
 * How many block proofs batch `batch` has: ⌈updates / batchPartUpdates⌉ (0 for a batch that
 * changed nothing), 1 for a batch without a change log.
 * @throws RegistryError `DB_CORRUPT` (a damaged change header).
 */
export function batchBlockParts(store: NameStore, batch: number): number {
  const header = store.changeHeader(batch);
  return header === undefined ? 1 : blockParts(header.updates, batchPartUpdates(store));
}

/**
 * Checks a logged update against the leaf its key held before it (the replay's self-check):
 * an insert finds an empty leaf, a restore a tombstone, a replace or delete the name's own live
 * record; `row` is the key's stored row at the batch before when no earlier update of the batch
 * touched the key.
 * @throws RegistryError `DB_CORRUPT` naming the update.
 */
export function checkOldLeaf(
  store: NameStore,
  batch: number,
  u: LoggedChange,
  old: Leaf,
  row: LeafRow | undefined,
): void {
  const what = `the change log of batch ${batch}: ${u.op} ${JSON.stringify(u.name)}`;
  let fits: boolean;
  if (u.op === "insert") fits = old.tag === LeafTag.Empty;
  else if (u.op === "restore") fits = old.tag === LeafTag.Tombstone;
  else if (old.tag !== LeafTag.Occupied) fits = false;
  else {
    // a replace or delete finds the name's own record (its identity is the name's)
    const want = nameIdentity(u.name);
    fits = old.identity.length === want.length && old.identity.every((b, i) => b === want[i]);
  }
  if (!fits) throw new RegistryError("DB_CORRUPT", `${what} does not fit the leaf its key held then`, { batch });
  if (row === undefined || u.op === "insert") return;
  if (row.record.name !== u.name)
    throw new RegistryError("DB_CORRUPT", `${what}: its key holds ${JSON.stringify(row.record.name)}`, { batch });
  if (u.op === "restore" && row.record.state !== RecordState.Deleted)
    throw new RegistryError("DB_CORRUPT", `${what}: the record was live`, { batch });
}

/**
 * The change header of a batch that can be replayed.
 * @throws RegistryError `DB_CORRUPT` (batch < 1: no batch before it), `CHANGES_NOT_RECORDED`.
 */
export function replayableHeader(store: NameStore, batch: number): ChangeHeader {
  if (!Number.isInteger(batch) || batch < 1)
    throw new RegistryError("DB_CORRUPT", `batch ${batch} has no batch before it to replay from`, { batch });
  const header = store.changeHeader(batch);
  if (header === undefined)
    throw new RegistryError(
      "CHANGES_NOT_RECORDED",
      `the changes of batch ${batch} were not recorded (the batch was committed before this registry kept its change log), so no block proof of it can be made`,
      { batch },
    );
  return header;
}

/** The logged changes of a batch in order: its part rows, or one scan of the leaf rows it created. */
function readLog(store: NameStore, batch: number, logParts: number, created: boolean): LoggedChange[] {
  if (!created) {
    const out: LoggedChange[] = [];
    for (let p = 0; p < logParts; p++) for (const u of store.changePart(batch, p)) out.push(u);
    return out;
  }
  return store.createdChanges(batch);
}

/**
 * A batch whose updates are at least this share of the records after it reads the stored keys
 * once into memory (one scan), instead of one range lookup per node.
 */
const SCAN_SHARE = 1 / 16;

/** Row access whose key lookups are binary searches of the stored keys (ascending). */
function withKeys(src: CompactSource, keys: Float64Array): CompactSource {
  return {
    firstKeyIn: (lo, hi) => {
      const i = lowerBound(keys, lo);
      return i < keys.length && keys[i]! < hi ? keys[i]! : undefined;
    },
    lastKeyIn: (lo, hi) => {
      const i = lowerBound(keys, hi) - 1;
      return i >= 0 && keys[i]! >= lo ? keys[i]! : undefined;
    },
    leafDigest: (key) => src.leafDigest(key),
    branch: (h, p) => src.branch(h, p),
  };
}

/** What one step of a replay reads, in one read snapshot. */
interface Reads {
  /** The stored tree after the batch. */
  readonly after: CompactSource;
  /** A key's leaf row at the batch before. */
  readonly leafBefore: (key: number) => LeafRow | undefined;
}

/**
 * A batch's replay, part by part, forward only (see the file comment). Holds the batch's log and
 * keys, the overlay and the leaves of keys with updates still to replay; each `part` call reads
 * the store in one snapshot of its own.
 */
export class BatchReplay {
  readonly batch: number;
  /** Parts of the batch (0 for a batch that changed nothing). */
  readonly parts: number;
  private readonly store: NameStore;
  private readonly perPart: number;
  private readonly log: LoggedChange[];
  private readonly keys: Float64Array;
  private pending!: PendingKeys;
  private overlay!: Map<number, Digest>[];
  private leaves!: Map<number, Leaf>;
  private root!: Digest;
  private position = 0;
  private nextPart = 0;
  private readonly fromRoot: Digest;
  private readonly toRoot: Digest;
  /** The keys stored after the batch, read once (a batch large beside its registry), or undefined. */
  private storedKeys: Float64Array | undefined;
  private readonly scanKeys: boolean;
  /** The tree before the batch is empty (an import into a new registry): every node before it is its height's default. */
  private readonly emptyBefore: boolean;
  /** Keys of the updates skipped over since the replay started (applied without replaying them), ascending. */
  private skipped: Float64Array = new Float64Array(0);

  /**
   * @param options `perPart`: updates per part (default `batchPartUpdates`); `scanKeys`: read the
   *   stored keys into memory (default: when the batch's updates are at least 1/16 of the records
   *   after it).
   * @throws RegistryError `CHANGES_NOT_RECORDED` (the batch has no change log), `DB_CORRUPT`
   *   (batch < 1, or a damaged row).
   */
  constructor(
    store: NameStore,
    batch: number,
    options: { readonly perPart?: number; readonly scanKeys?: boolean } = {},
  ) {
    const header = replayableHeader(store, batch);
    this.store = store;
    this.batch = batch;
    this.perPart = options.perPart ?? batchPartUpdates(store);
    this.parts = blockParts(header.updates, this.perPart);
    this.log = readLog(store, batch, header.parts, header.created === true);
    if (this.log.length !== header.updates)
      throw new RegistryError(
        "DB_CORRUPT",
        `the change log of batch ${batch} holds ${this.log.length} updates, its header says ${header.updates}`,
        { batch },
      );
    this.keys = Float64Array.from(this.log, (u) => store.keyOf(u.name));
    const before = store.batchEntry(batch - 1);
    this.fromRoot = before.root;
    this.emptyBefore = before.records === 0;
    const after = store.batchEntry(batch);
    this.toRoot = after.root;
    this.scanKeys = options.scanKeys ?? header.updates >= SCAN_SHARE * after.records;
    this.restart();
  }

  private restart(): void {
    this.pending = new PendingKeys(this.keys);
    this.overlay = Array.from({ length: this.store.config.depth + 1 }, () => new Map<number, Digest>());
    this.leaves = new Map();
    this.root = this.fromRoot;
    this.position = 0;
    this.nextPart = 0;
    this.skipped = new Float64Array(0);
  }

  /**
   * Part `part` (0-based) of the batch, replayed from where the replay is (from the start when the
   * part is before it).
   * @throws RegistryError `BAD_BLOCK` (no such part), `ROOT_NOT_PROVABLE` (the tree of the batch
   *   before is no longer kept), `DB_CORRUPT` (the log does not replay to the batch's root).
   */
  part(part: number): ReplayedPart {
    if (!Number.isInteger(part) || part < 0 || part >= this.parts)
      throw new RegistryError("BAD_BLOCK", `batch ${this.batch} has no part ${part}`, { batch: this.batch });
    if (part < this.nextPart) this.restart();
    const store = this.store;
    if (this.scanKeys) this.storedKeys ??= store.leafKeysAt(this.batch);
    return store.readAtBatch(this.batch, ({ source }) =>
      store.readAtBatch(this.batch - 1, ({ leafRow }) => {
        const after = this.storedKeys === undefined ? source : withKeys(source, this.storedKeys);
        const reads: Reads = { after, leafBefore: leafRow };
        if (part > this.nextPart) this.skipTo(reads, part);
        let out: ReplayedPart | undefined;
        while (out === undefined) {
          const p = this.nextPart;
          const fromRoot = this.root;
          const updates = this.replayPart(reads, p === part);
          this.nextPart++;
          if (p === part) out = { batch: this.batch, part, parts: this.parts, fromRoot, toRoot: this.root, updates };
        }
        if (this.nextPart === this.parts && !digestEquals(this.root, this.toRoot))
          throw new RegistryError(
            "DB_CORRUPT",
            `the change log of batch ${this.batch} does not replay to the batch's root`,
            { batch: this.batch },
          );
        return out;
      }),
    );
  }

  /**
   * Moves the replay to the start of part `part` without replaying the updates before it: each
   * skipped key's last leaf is kept while it has updates still to replay, the overlay's nodes above
   * the skipped keys are dropped (they no longer hold the tree where the replay is), and the root
   * is hashed up again (`node` hashes a node with skipped updates under it from its children).
   */
  private skipTo(reads: Reads, part: number): void {
    const { depth } = this.store.config;
    const end = Math.min(this.log.length, part * this.perPart);
    const added = new Float64Array(end - this.position);
    for (let n = 0; this.position < end; this.position++, n++) {
      const u = this.log[this.position]!;
      const key = this.keys[this.position]!;
      this.pending.done(key);
      if (this.pending.pendingOf(key) === 0) this.leaves.delete(key);
      else this.leaves.set(key, this.newLeaf(u));
      added[n] = key;
    }
    added.sort();
    // every ancestor of a skipped key, once: below the lowest common ancestor with the key before
    // (none for a key skipped twice)
    for (let i = 0; i < added.length; i++) {
      const key = added[i]!;
      const top = i === 0 ? depth : Math.min(depth, lcaHeight(added[i - 1]!, key) - 1);
      for (let h = 0; h <= top; h++) this.overlay[h]!.delete(prefixOf(key, h));
    }
    this.skipped = mergeKeys(this.skipped, this.skipped.length, added);
    this.nextPart = part;
    this.root = this.node(reads, depth, 0, true);
  }

  /** The leaf an update writes. */
  private newLeaf(u: LoggedChange): Leaf {
    return u.op === "delete" ? TOMBSTONE : recordLeaf(u.name, u.value!, this.store.config.leafMaxFields);
  }

  /** A leaf's digest (a Tombstone's computed once by the store). */
  private leafDigest(leaf: Leaf): Digest {
    return leaf.tag === LeafTag.Tombstone
      ? this.store.tombstoneDigest
      : hashLeaf(leaf, this.store.config.leafMaxFields);
  }

  /** Whether an update skipped over has its key in [lo, hi). */
  private skippedIn(lo: number, hi: number): boolean {
    const i = lowerBound(this.skipped, lo);
    return i < this.skipped.length && this.skipped[i]! < hi;
  }

  /** Replays the next part's updates; keeps their records when `keep`. */
  private replayPart(reads: Reads, keep: boolean): { listed: BlockUpdate; record: UpdateRecord }[] {
    const out: { listed: BlockUpdate; record: UpdateRecord }[] = [];
    const end = Math.min(this.log.length, this.position + this.perPart);
    for (; this.position < end; this.position++) {
      const rec = this.replayOne(reads, this.position);
      if (keep) out.push({ listed: this.log[this.position]!, record: rec });
    }
    return out;
  }

  /** Replays the update at log position `i`. */
  private replayOne(reads: Reads, i: number): UpdateRecord {
    const store = this.store;
    const { depth } = store.config;
    const c = store.hasher();
    const u = this.log[i]!;
    const key = this.keys[i]!;
    const earlier = this.leaves.get(key);
    const row = earlier === undefined ? reads.leafBefore(key) : undefined;
    const oldLeaf = earlier ?? (row === undefined ? EMPTY : store.leafOf(row.record));
    checkOldLeaf(store, this.batch, u, oldLeaf, row);
    const newLeaf = this.newLeaf(u);
    const siblings: Digest[] = [];
    for (let h = 0; h < depth; h++) {
      const p = prefixOf(key, h);
      siblings.push(this.node(reads, h, p % 2 === 0 ? p + 1 : p - 1, true));
    }
    let acc = this.leafDigest(newLeaf);
    const overlay = this.overlay;
    overlay[0]!.set(key, acc);
    for (let h = 0; h < depth; h++) {
      acc = bitAt(key, h) === 0 ? c.one(acc, siblings[h]!) : c.one(siblings[h]!, acc);
      overlay[h + 1]!.set(prefixOf(key, h + 1), acc);
    }
    const oldRoot = this.root;
    this.root = acc;
    this.pending.done(key);
    if (this.pending.pendingOf(key) === 0) this.leaves.delete(key);
    else this.leaves.set(key, newLeaf);
    // nodes whose parent holds no update still to replay are never asked for again
    for (let h = 0; h < depth; h++) {
      const parent = prefixOf(key, h + 1);
      if (this.pending.range(parent * 2 ** (h + 1), (parent + 1) * 2 ** (h + 1)).pending > 0) break;
      overlay[h]!.delete(2 * parent);
      overlay[h]!.delete(2 * parent + 1);
    }
    return { key: BigInt(key), oldLeaf, newLeaf, siblings, oldRoot, newRoot: acc };
  }

  /**
   * The digest of node (h, p) where the replay is. `top`: asked for as a sibling (kept in the
   * overlay when computed), not as the child of a node being computed.
   */
  private node(reads: Reads, h: number, p: number, top: boolean): Digest {
    const o = this.overlay[h]!.get(p);
    if (o !== undefined) return o;
    const span = 2 ** h;
    const { distinct, pending } = this.pending.range(p * span, (p + 1) * span);
    // no update of the batch under it (none replayed: a replayed one would be in the overlay)
    if (pending === 0) return nodeDigest(reads.after, this.store.hasher(), this.store.defaults, h, p);
    // updates still to replay under it and updates skipped over: hashed up from its children
    // (a leaf: the key's last skipped leaf), and held; none replayed or skipped: its digest before
    // the batch, held when asked for as a sibling or above several keys
    const skipped = this.skippedIn(p * span, (p + 1) * span);
    if (!skipped && this.emptyBefore) return this.store.defaults[h]!.slice();
    let d: Digest;
    if (h === 0)
      d = skipped ? this.leafDigest(this.leaves.get(p)!) : (reads.leafBefore(p)?.digest ?? this.store.defaults[0]!);
    else d = this.store.hasher().one(this.node(reads, h - 1, 2 * p, false), this.node(reads, h - 1, 2 * p + 1, false));
    if (skipped || top || distinct > 1) this.overlay[h]!.set(p, d);
    return d;
  }
}

/**
 * Replays the parts of batch `batch` against the tree after batch `batch − 1`, each part from the
 * root the previous one left.
 * @param only replay only up to this part (0-based) and return only it (default: every part).
 * @throws RegistryError `CHANGES_NOT_RECORDED` (the batch has no change log),
 *   `ROOT_NOT_PROVABLE` (the tree of the batch before is no longer kept: its block can no longer be
 *   made), `BAD_BLOCK` (`only` past the last part), `DB_CORRUPT` (the log does not replay to the
 *   batch's root).
 */
export function replayBatch(store: NameStore, batch: number, only?: number): ReplayedPart[] {
  const replay = new BatchReplay(store, batch);
  if (only !== undefined) return only < replay.parts ? [replay.part(only)] : [];
  return Array.from({ length: replay.parts }, (_, p) => replay.part(p));
}
