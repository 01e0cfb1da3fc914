/**
 * The plain reference of replay.ts, kept for the differential test: replaying a committed batch (docs/registry.md "Consistency between checkpoints"): the batch's
 * logged updates (store/change-log.ts) applied in order, in memory, to the tree as it was after the
 * batch before (the store's kept versions, store/name-versions.ts), giving what a block proof needs
 * per update — old and new leaf, the `depth` siblings, old and new root.
 *
 * The tree of the batch before is read, never written: an overlay holds the nodes the replayed
 * updates have changed (every node on the path of an updated key, by height and prefix), and a
 * sibling is read from the overlay when an earlier update of the batch changed it, else from the
 * stored rows at the batch before. A batch of more updates than one block proof holds at the
 * registry's depth (`batchPartUpdates`: `maxBlockUpdates` of block-size.ts, 2,048 at depth 48,
 * 4,096 at depths up to 37) is replayed part by part, each part a block from the root the previous
 * part left (the intermediate roots). The parts of a proof are cut from the whole change log,
 * whatever the log's own storage parts are (store/change-log.ts). The replay checks itself: each update's old leaf must fit its op, and the
 * last root must be the batch's committed root (`DB_CORRUPT` otherwise).
 */
import { digestEquals, type Digest } from "../../hash/digest.js";
import { EMPTY, LeafTag, TOMBSTONE, hashLeaf, type Leaf } from "../../smt/leaf.js";
import type { UpdateRecord } from "../../smt/tree.js";
import { RegistryError } from "../errors.js";
import { nameIdentity, recordLeaf } from "../mapping.js";
import { bitAt, nodeDigest, prefixOf } from "../hashing/name-tree.js";
import { RecordState } from "../store/record-codec.js";
import type { LoggedChange } from "../store/change-log.js";
import type { NameStore } from "../store/name-store.js";
import type { BlockUpdate } from "../name-block.js";
import { blockParts } from "../block-size.js";
import { batchPartUpdates, replayableHeader, type ReplayedPart } from "./replay.js";

function leafFits(u: LoggedChange, old: Leaf, store: NameStore): boolean {
  if (u.op === "insert") return old.tag === LeafTag.Empty;
  if (u.op === "restore") return old.tag === LeafTag.Tombstone;
  if (old.tag !== LeafTag.Occupied) return false;
  // a replace or delete finds the name's own record (its identity is the name's)
  const want = nameIdentity(u.name);
  return old.identity.length === want.length && old.identity.every((b, i) => b === want[i]);
}

/** The logged changes of a batch in order, read one storage part at a time. */
function* loggedChanges(store: NameStore, batch: number, logParts: number): Generator<LoggedChange> {
  for (let p = 0; p < logParts; p++) yield* store.changePart(batch, p);
}

/**
 * The reference replay (slow: every sibling of every update is read from the stored rows at the
 * batch before): replays the parts of batch `batch` (1-based part numbers 0..parts−1) against the tree after
 * batch `batch − 1`, each part from the root the previous one left.
 * @param only replay only up to this part (0-based) and return only it (default: every part).
 * @param perPart updates per part (default `batchPartUpdates`).
 * @throws RegistryError `CHANGES_NOT_RECORDED` (the batch has no change log),
 *   `ROOT_NOT_PROVABLE` (the tree of the batch before is no longer kept: its block can no longer be
 *   made), `DB_CORRUPT` (the log does not replay to the batch's root).
 */
export function replayBatchReference(
  store: NameStore,
  batch: number,
  only?: number,
  perPart = batchPartUpdates(store),
): ReplayedPart[] {
  const header = replayableHeader(store, batch);
  const after = store.batchEntry(batch);
  const { depth, leafMaxFields: B } = store.config;
  const c = store.hasher();
  const defaults = store.defaults;
  return store.readAtBatch(batch - 1, ({ source, leafRow, entry: before }) => {
    const nodes = new Map<string, Digest>();
    const leaves = new Map<number, Leaf>();
    const node = (h: number, p: number): Digest => nodes.get(`${h}/${p}`) ?? nodeDigest(source, c, defaults, h, p);
    const leafAt = (key: number): Leaf => {
      const l = leaves.get(key);
      if (l !== undefined) return l;
      const row = leafRow(key);
      return row === undefined ? EMPTY : store.leafOf(row.record);
    };
    let root: Digest = before.root;
    const out: ReplayedPart[] = [];
    const parts = blockParts(header.updates, perPart);
    const last = only ?? parts - 1;
    const log = loggedChanges(store, batch, header.parts);
    for (let part = 0; part <= last && part < parts; part++) {
      const fromRoot = root;
      const updates: { listed: BlockUpdate; record: UpdateRecord }[] = [];
      for (let i = 0; i < perPart; i++) {
        const next = log.next();
        if (next.done === true) break;
        const u = next.value;
        const key = store.keyOf(u.name);
        const oldLeaf = leafAt(key);
        const what = `the change log of batch ${batch}: ${u.op} ${JSON.stringify(u.name)}`;
        if (!leafFits(u, oldLeaf, store))
          throw new RegistryError("DB_CORRUPT", `${what} does not fit the leaf its key held then`, { batch });
        if (u.op === "restore" || u.op === "replace" || u.op === "delete") {
          const row = leaves.has(key) ? undefined : leafRow(key);
          if (row !== undefined && row.record.name !== u.name)
            throw new RegistryError("DB_CORRUPT", `${what}: its key holds ${JSON.stringify(row.record.name)}`, {
              batch,
            });
          if (u.op === "restore" && row !== undefined && row.record.state !== RecordState.Deleted)
            throw new RegistryError("DB_CORRUPT", `${what}: the record was live`, { batch });
        }
        const newLeaf: Leaf = u.op === "delete" ? TOMBSTONE : recordLeaf(u.name, u.value!, B);
        const siblings: Digest[] = [];
        for (let h = 0; h < depth; h++) {
          const p = prefixOf(key, h);
          siblings.push(node(h, p % 2 === 0 ? p + 1 : p - 1));
        }
        let acc = newLeaf.tag === LeafTag.Tombstone ? store.tombstoneDigest : hashLeaf(newLeaf, B);
        nodes.set(`0/${key}`, acc);
        for (let h = 0; h < depth; h++) {
          acc = bitAt(key, h) === 0 ? c.one(acc, siblings[h]!) : c.one(siblings[h]!, acc);
          nodes.set(`${h + 1}/${prefixOf(key, h + 1)}`, acc);
        }
        leaves.set(key, newLeaf);
        updates.push({
          listed: u,
          record: { key: BigInt(key), oldLeaf, newLeaf, siblings, oldRoot: root, newRoot: acc },
        });
        root = acc;
      }
      if (only === undefined || part === only) out.push({ batch, part, parts, fromRoot, toRoot: root, updates });
    }
    if ((only === undefined || only >= parts - 1) && !digestEquals(root, after.root))
      throw new RegistryError("DB_CORRUPT", `the change log of batch ${batch} does not replay to the batch's root`, {
        batch,
      });
    return out;
  });
}
