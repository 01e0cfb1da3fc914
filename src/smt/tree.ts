/**
 * In-memory sparse Merkle tree with empty-subtree defaults (compat-v1 §20.7):
 * default_0 = h_leaf(Empty), default_{l+1} = h_node(default_l, default_l). A never-written slot is
 * Empty, so its non-membership verifies against the root; deleting writes a Tombstone (which
 * differs from Empty), so a deleted slot never returns to the default subtree.
 *
 * Levels: level 0 holds leaf digests, level `depth` holds the root; the node at level l with
 * index i has children 2i (left) and 2i + 1 (right) at level l − 1. Only non-default nodes are stored.
 */
import { compress, type Digest } from "../hash/digest.js";
import { SmtError, type SmtErrorCode } from "./errors.js";
import {
  DEFAULT_LEAF_MAX_FIELDS,
  EMPTY,
  LeafTag,
  TOMBSTONE,
  checkLeafBound,
  describeLeaf,
  hashLeaf,
  occupied,
  type Leaf,
  type OccupiedLeaf,
} from "./leaf.js";
import { DEFAULT_DEPTH, checkDepth, checkKeyInRange, keyBit } from "./path.js";

/** What a mutating operation did: the Update request data (old/new leaf, shared siblings, roots). */
export interface UpdateRecord {
  readonly key: bigint;
  readonly oldLeaf: Leaf;
  readonly newLeaf: Leaf;
  /** `depth` sibling digests, leaf level first (the same before and after). */
  readonly siblings: Digest[];
  readonly oldRoot: Digest;
  readonly newRoot: Digest;
}

/** Options of `SparseMerkleTree`: depth (1..64, default 24) and leaf bound B (default 31). */
export interface TreeOptions {
  /** 1..64, default 24. */
  readonly depth?: number;
  /** Leaf bound B, 10..65535, default 31. */
  readonly leafMaxFields?: number;
}

/**
 * A sparse Merkle tree of 2^depth slots keyed by u64 bigints.
 *
 * Mutations validate first and change nothing on error. Errors (SmtError): `BAD_DEPTH`,
 * `BAD_LEAF_BOUND`, `BAD_KEY`, `KEY_OUT_OF_RANGE`, `LEAF_ENCODING` (payload too long for B),
 * `BAD_LEAF`, `SLOT_NOT_EMPTY` (insert into an occupied or tombstoned slot), `SLOT_NOT_OCCUPIED`
 * (replace or delete of a slot that is not live), `SLOT_NOT_TOMBSTONE` (restore of a slot that is
 * not a tombstone); FieldError for non-canonical payload values.
 */
export class SparseMerkleTree {
  readonly depth: number;
  readonly leafMaxFields: number;
  private readonly defaults: Digest[];
  /** nodes[l]: index → digest, non-default nodes of level l. */
  private readonly nodes: Map<bigint, Digest>[];
  private readonly leaves = new Map<bigint, Leaf>();

  constructor(options: TreeOptions = {}) {
    this.depth = checkDepth(options.depth ?? DEFAULT_DEPTH);
    this.leafMaxFields = checkLeafBound(options.leafMaxFields ?? DEFAULT_LEAF_MAX_FIELDS);
    this.defaults = [hashLeaf(EMPTY, this.leafMaxFields)];
    for (let l = 0; l < this.depth; l++) this.defaults.push(compress(this.defaults[l]!, this.defaults[l]!));
    this.nodes = Array.from({ length: this.depth + 1 }, () => new Map());
  }

  /** default_l: the root digest of an all-Empty subtree of height l (0 ≤ l ≤ depth). */
  defaultDigest(level: number): Digest {
    if (!Number.isInteger(level) || level < 0 || level > this.depth) {
      throw new SmtError("BAD_DEPTH", `level must be an integer in [0, ${this.depth}], got ${level}`);
    }
    return this.defaults[level]!.slice();
  }

  /** Number of slots that are not Empty (occupied or tombstoned). */
  get size(): number {
    return this.leaves.size;
  }

  /** Current root digest. */
  root(): Digest {
    return this.node(this.depth, 0n).slice();
  }

  /** The leaf at a key (Empty if never written). @throws SmtError `BAD_KEY`, `KEY_OUT_OF_RANGE`. */
  get(key: bigint): Leaf {
    checkKeyInRange(key, this.depth);
    return this.leaves.get(key) ?? EMPTY;
  }

  /** Keys of every non-Empty slot, ascending. */
  keys(): bigint[] {
    return [...this.leaves.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The path of a key: `depth` sibling digests, leaf level first. @throws SmtError `BAD_KEY`, `KEY_OUT_OF_RANGE`. */
  path(key: bigint): Digest[] {
    checkKeyInRange(key, this.depth);
    const siblings: Digest[] = [];
    for (let l = 0; l < this.depth; l++) siblings.push(this.node(l, (key >> BigInt(l)) ^ 1n).slice());
    return siblings;
  }

  /** Empty → Occupied{payload, identity}. */
  insert(key: bigint, payload: ArrayLike<number>, identity: Uint8Array): UpdateRecord {
    return this.write(key, occupied(payload, identity), LeafTag.Empty, "SLOT_NOT_EMPTY", "insert needs an Empty slot");
  }

  /** Occupied → Occupied{payload, identity}. */
  replace(key: bigint, payload: ArrayLike<number>, identity: Uint8Array): UpdateRecord {
    return this.write(
      key,
      occupied(payload, identity),
      LeafTag.Occupied,
      "SLOT_NOT_OCCUPIED",
      "replace needs an Occupied slot",
    );
  }

  /** Occupied → Tombstone. */
  delete(key: bigint): UpdateRecord {
    return this.write(key, TOMBSTONE, LeafTag.Occupied, "SLOT_NOT_OCCUPIED", "delete needs an Occupied slot");
  }

  /** Tombstone → Occupied{payload, identity}. */
  restore(key: bigint, payload: ArrayLike<number>, identity: Uint8Array): UpdateRecord {
    return this.write(
      key,
      occupied(payload, identity),
      LeafTag.Tombstone,
      "SLOT_NOT_TOMBSTONE",
      "restore needs a Tombstone slot",
    );
  }

  private node(level: number, index: bigint): Digest {
    return this.nodes[level]!.get(index) ?? this.defaults[level]!;
  }

  private write(
    key: bigint,
    newLeaf: OccupiedLeaf | typeof TOMBSTONE,
    expected: LeafTag,
    code: SmtErrorCode,
    rule: string,
  ): UpdateRecord {
    const oldLeaf = this.get(key);
    if (oldLeaf.tag !== expected) {
      throw new SmtError(code, `${rule}; slot ${key} holds ${describeLeaf(oldLeaf)}`, {
        key: key.toString(),
        tag: oldLeaf.tag,
      });
    }
    const leafDigest = hashLeaf(newLeaf, this.leafMaxFields);
    const siblings = this.path(key);
    const oldRoot = this.root();
    let acc = leafDigest;
    this.nodes[0]!.set(key, acc);
    for (let l = 0; l < this.depth; l++) {
      acc = keyBit(key, l) === 0 ? compress(acc, siblings[l]!) : compress(siblings[l]!, acc);
      this.nodes[l + 1]!.set(key >> BigInt(l + 1), acc);
    }
    this.leaves.set(key, newLeaf);
    return { key, oldLeaf, newLeaf, siblings, oldRoot, newRoot: acc.slice() };
  }
}
