/**
 * A mirror's writes: one committed batch per batch of the primary, holding the listed updates of
 * its verified block links in order (or none, for a batch that left the root as it was), the
 * verified block proofs themselves (so the mirror serves `/v1/blocks` and `/v1/consistency` as the
 * primary does) and the primary's signed checkpoint of that size — the mirror's position — all in
 * the batch's one write transaction. A root other than the checkpoint's aborts the transaction:
 * nothing of the batch is written.
 */
import type { Database } from "lmdb" with { "resolution-mode": "require" };
import { digestEquals, type Digest } from "../hash/digest.js";
import { formatRoot } from "../registry/root.js";
import { blockUpdateOf, type BlockUpdate } from "../registry/name-block.js";
import { applyEpoch, leafHasherOf, type EpochWrite, type KeyIndex } from "../registry/sequencer/epoch.js";
import type { VerifiedV3Block } from "../registry/verify-block.js";
import type { Leaf } from "../smt/leaf.js";
import { RegistryError } from "../registry/errors.js";
import { nameKeys } from "../registry/hashing/name-keys.js";
import type { NameStore } from "../registry/store/name-store.js";
import { linkBlockAndProof, type ConsistencyLink } from "../registry/consistency/verify-consistency.js";
import { bytesOfBase64 } from "../registry/checkpoint/note.js";
import { MirrorError } from "./errors.js";

/** The table of the mirror's rows (`NameStore.sideTable`). */
export const MIRROR_TABLE = "mirror";

/** The key of the checkpoint row of a size (twelve decimal digits: key order is size order). */
export function checkpointKey(size: number): Buffer {
  return Buffer.from(`checkpoint:${String(size).padStart(12, "0")}`, "latin1");
}

/** The mirror's rows of a registry: the primary's signed checkpoints it verified, by size. */
export class MirrorRows {
  private readonly table: Database<Buffer, Buffer>;

  /** @throws MirrorError `MIRROR_DB_MISMATCH` when a read-only registry holds no mirror table. */
  constructor(readonly store: NameStore) {
    const t = store.sideTable(MIRROR_TABLE);
    if (t === undefined)
      throw new MirrorError("MIRROR_DB_MISMATCH", `registry at ${store.dir} is not a mirror (it has no mirror rows)`);
    this.table = t;
  }

  /** The stored checkpoint text of a size, or undefined. */
  checkpoint(size: number): string | undefined {
    const v = this.table.get(checkpointKey(size));
    return v === undefined ? undefined : Buffer.from(v).toString("utf8");
  }

  /** Inside a write transaction: stores the checkpoint of a size. */
  putCheckpoint(size: number, text: string): void {
    this.table.putSync(checkpointKey(size), Buffer.from(text, "utf8"));
  }

  /** Stores the checkpoint of the registry's head (size 0 of a new mirror) in its own write transaction. */
  recordStart(size: number, text: string): void {
    this.table.putSync(checkpointKey(size), Buffer.from(text, "utf8"));
  }
}

/** What the mirror reads of a block.json. */
export interface BlockJson {
  readonly depth?: unknown;
  readonly leaf_max_fields?: unknown;
  readonly updates: unknown[];
}

/**
 * A verified batch of the primary: its number, its links (verified), its checkpoint (verified)
 * and, optionally, each link's block.json parsed from the text that was verified (undefined for
 * an unchanged link; without it each block is read from its link).
 */
export interface VerifiedBatch {
  readonly batch: number;
  readonly links: readonly ConsistencyLink[];
  readonly blocks?: readonly (BlockJson | undefined)[];
  readonly checkpoint: string;
  readonly root: Digest;
  /**
   * Optionally, per link, what its block proof was checked against (`verifyConsistency`'s
   * `onBlock`; undefined for an unchanged link): the updates are then applied with the keys and
   * new leaves of those statements (no name or record hashed again), else read from each block.
   */
  readonly verified?: readonly (VerifiedV3Block | undefined)[];
}

/** A batch's updates with what the apply would otherwise compute: their keys and, per update, its new leaf's digest (none for a delete). */
export interface KnownWrites {
  readonly updates: readonly BlockUpdate[];
  readonly keys: Float64Array;
  readonly digests: readonly (Uint32Array | undefined)[];
}

/**
 * The updates of a batch's verified blocks, in order, with each one's key and new leaf digest
 * taken from the statement its proof was checked against (key: the name's; new leaf: the name's
 * record with the listed value, whose digest is hashed here from the leaf, with no Keccak-256).
 * Undefined when a block link has no verified block (the caller then reads the blocks).
 * Reference: `batchUpdates`, `nameKeys` and the epoch's own leaf hashing (test/mirror/apply-known.test.ts).
 */
export function verifiedWrites(
  links: readonly ConsistencyLink[],
  verified: readonly (VerifiedV3Block | undefined)[],
  leafMaxFields: number,
): KnownWrites | undefined {
  const updates: BlockUpdate[] = [];
  const keys: number[] = [];
  const leaves: Leaf[] = [];
  const leafOf: number[] = [];
  for (let i = 0; i < links.length; i++) {
    if (links[i]!.unchanged === true) continue;
    const b = verified[i];
    if (b === undefined || b.updates.length !== b.description.updates.length) return undefined;
    b.description.updates.forEach((u, j) => {
      const st = b.updates[j]!;
      updates.push(u);
      keys.push(Number(st.key));
      leafOf.push(u.op === "delete" ? -1 : leaves.length);
      if (u.op !== "delete") leaves.push(st.newLeaf);
    });
  }
  const hashed = leafHasherOf(leafMaxFields).hashLeaves(leaves);
  return {
    updates,
    keys: Float64Array.from(keys),
    digests: leafOf.map((j) => (j < 0 ? undefined : hashed.subarray(8 * j, 8 * j + 8))),
  };
}

/**
 * The links with each block.json as its text and each proof as its bytes, read as
 * `verifyConsistency` reads them (a block object as `JSON.stringify` writes it, a proof from its
 * base64), so that verifying, applying and storing a batch decode each block once. A link whose
 * block or proof cannot be read is kept as it is (`verifyConsistency` refuses it).
 */
export function decodedLinks(links: readonly ConsistencyLink[]): ConsistencyLink[] {
  return links.map((l) => {
    if (l === null || typeof l !== "object" || l.unchanged === true) return l;
    const { blockJson: block, proof } = linkBlockAndProof(l);
    return block === undefined || proof === undefined ? l : { ...l, block, proof };
  });
}

/** Each link's block.json parsed (undefined for an unchanged link). */
export function linkBlocks(links: readonly ConsistencyLink[]): (BlockJson | undefined)[] {
  return links.map((l) =>
    l.unchanged === true ? undefined : ((typeof l.block === "string" ? JSON.parse(l.block) : l.block) as BlockJson),
  );
}

/** The updates block.json lists, in order, over every link of a batch (`blocks`: the links' blocks, parsed). */
export function batchUpdates(
  links: readonly ConsistencyLink[],
  blocks: readonly (BlockJson | undefined)[] = linkBlocks(links),
): BlockUpdate[] {
  const out: BlockUpdate[] = [];
  for (const block of blocks) {
    if (block === undefined) continue;
    block.updates.forEach((u, i) => out.push(blockUpdateOf(u, i + 1)));
  }
  return out;
}

/**
 * Applies a verified batch as the registry's next batch (it must be batch `head + 1`), with its
 * block proofs and checkpoint, in one write transaction.
 * @param index the stored keys (kept by the caller between batches; reloaded when stale).
 * @returns the number of updates applied.
 * @throws MirrorError `MIRROR_ROOT_MISMATCH` when the updates reach another root than the
 *   checkpoint's (nothing written); RegistryError of an update that cannot be applied (nothing
 *   written), `CONCURRENT_UPDATE`.
 */
export function applyVerifiedBatch(rows: MirrorRows, v: VerifiedBatch, index: KeyIndex): number {
  const store = rows.store;
  const blocks = v.blocks ?? linkBlocks(v.links);
  const known = v.verified !== undefined ? verifiedWrites(v.links, v.verified, store.config.leafMaxFields) : undefined;
  return applyBatchUpdates(
    rows,
    index,
    v.batch,
    known?.updates ?? batchUpdates(v.links, blocks),
    v.checkpoint,
    v.root,
    () => recordProofs(store, v, blocks),
    known,
  );
}

/** A batch of the primary known by its change list and its signed checkpoint (not yet by block proofs). */
export interface CheckpointedBatch {
  readonly batch: number;
  /** The batch's updates in order (`GET /v1/changes/:batch`). */
  readonly updates: readonly BlockUpdate[];
  /** The primary's signed checkpoint of size `batch`, verified with the key. */
  readonly checkpoint: string;
  readonly root: Digest;
}

/**
 * Applies a batch from its change list as the registry's next batch, kept only when the root its
 * updates reach is the signed checkpoint's (the root binds the whole tree, so the copy is then
 * the state the primary signed): what a registry worker does for batches whose blocks are not
 * proved yet (docs/scale-out.md "Registry proof jobs"). No block proof is stored for it.
 * @param index the stored keys (kept by the caller between batches; reloaded when stale).
 * @returns the number of updates applied.
 * @throws as `applyVerifiedBatch`.
 */
export function applyCheckpointedBatch(rows: MirrorRows, c: CheckpointedBatch, index: KeyIndex): number {
  return applyBatchUpdates(rows, index, c.batch, c.updates, c.checkpoint, c.root, () => {});
}

/**
 * One write transaction: the updates in order, the root check, `extra`, the checkpoint. The
 * updates go through the sequencer's batched path (registry/sequencer/epoch.ts: each changed key's
 * leaf hashed once, the tree above them recomputed level by level against `index`, the stored keys
 * kept between batches), logged in order as the batch's change log.
 */
function applyBatchUpdates(
  rows: MirrorRows,
  index: KeyIndex,
  batch: number,
  updates: readonly BlockUpdate[],
  checkpoint: string,
  expected: Digest,
  extra: () => void,
  known?: KnownWrites,
): number {
  const store = rows.store;
  if (updates.length === 0) {
    store.commit({
      kind: "unchanged",
      expectBatch: batch - 1,
      write: (_w, head) => {
        if (!digestEquals(head.root, expected)) throw rootMismatch(batch, head.root, expected);
        extra();
        rows.putCheckpoint(batch, checkpoint);
        return { root: head.root, newRecords: 0, liveDelta: 0, deletedDelta: 0, written: 0 };
      },
    });
    return 0;
  }
  // names of a verified block or a checkpointed change list are hashed at once (a name that is
  // not a record name's form is refused here, before anything is written); a verified block's
  // statements give the keys and new leaf digests already
  const keys =
    known?.keys ??
    nameKeys(
      updates.map((u) => u.name),
      store.config.depth,
    );
  const writes = updates.map(
    (u, i): EpochWrite => ({
      op: u.op === "insert" || u.op === "replace" ? "put" : u.op,
      name: u.name,
      key: keys[i]!,
      ...(u.value !== undefined ? { value: u.value } : {}),
      ...(known?.digests[i] !== undefined ? { digest: known.digests[i] } : {}),
    }),
  );
  applyEpoch(store, index, writes, {
    kind: "block",
    inside: (o) => {
      if (o.before.batch !== batch - 1)
        throw new RegistryError(
          "CONCURRENT_UPDATE",
          `the mirror's registry is at batch ${o.before.batch}, batch ${batch} follows ${batch - 1}; nothing was written`,
          { batch: o.before.batch },
        );
      o.results.forEach((r, i) => {
        if (!r.ok) throw r.error;
        if (r.op !== updates[i]!.op)
          throw new RegistryError(
            "BAD_BLOCK",
            `batch ${batch}: update ${i + 1} (${updates[i]!.op} ${JSON.stringify(updates[i]!.name)}) applied as a ${r.op}`,
            { batch },
          );
      });
      if (!digestEquals(o.entry!.root, expected)) throw rootMismatch(batch, o.entry!.root, expected);
      extra();
      rows.putCheckpoint(batch, checkpoint);
    },
  });
  return updates.length;
}

function rootMismatch(batch: number, root: Digest, expected: Digest): MirrorError {
  return new MirrorError(
    "MIRROR_ROOT_MISMATCH",
    `batch ${batch}: its updates reach root ${formatRoot(root)}, not the checkpoint's ${formatRoot(expected)}; nothing of it was written`,
    { batch },
  );
}

/** Inside the batch's write transaction: the verified block proofs of its links. */
function recordProofs(store: NameStore, v: VerifiedBatch, blocks: readonly (BlockJson | undefined)[]): void {
  v.links.forEach((l, i) => {
    if (l.unchanged === true) return;
    const blockJson = typeof l.block === "string" ? l.block : JSON.stringify(l.block);
    const proof = l.proof instanceof Uint8Array ? l.proof : bytesOfBase64(l.proof as string)!;
    const ops = blocks[i]!.updates.length;
    store.recordBlockProof(
      {
        batch: v.batch,
        profile: "v3",
        operations: ops,
        from_root: l.from_root,
        to_root: l.to_root,
        proof_bytes: proof.length,
        json_bytes: Buffer.byteLength(blockJson, "utf8"),
        ...(l.parts !== undefined ? { part: l.part!, parts: l.parts } : {}),
      },
      blockJson,
      proof,
    );
  });
}
