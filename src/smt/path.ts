/**
 * Key → path and root recomputation (compat-v1 §6.3).
 *
 * A key (`asset_id`) is a u64 slot index, given as a bigint. A path is exactly `depth` sibling
 * digests listed from the leaf upward (siblings[0] is leaf-adjacent). At level l the key bit
 * (key >> l) & 1 says whether the running digest is the right child (1) or the left child (0).
 */
import { digest, compress, type Digest } from "../hash/digest.js";
import { DEFAULT_LEAF_MAX_FIELDS, hashLeaf, type Leaf } from "./leaf.js";
import { SmtError } from "./errors.js";

/** Default tree depth (§6.3). */
export const DEFAULT_DEPTH = 24;
/** Largest supported depth (keys are u64). */
export const MAX_DEPTH = 64;

const U64_LIMIT = 1n << 64n;

/** Validates a depth. @throws SmtError `BAD_DEPTH` unless depth is an integer in [1, 64]. */
export function checkDepth(depth: number): number {
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
    throw new SmtError("BAD_DEPTH", `depth must be an integer in [1, ${MAX_DEPTH}], got ${depth}`, { depth });
  }
  return depth;
}

/** Validates a key. @throws SmtError `BAD_KEY` unless key is a bigint in [0, 2^64). */
export function checkKey(key: bigint): bigint {
  if (typeof key !== "bigint" || key < 0n || key >= U64_LIMIT) {
    throw new SmtError(
      "BAD_KEY",
      `key must be a u64 given as a bigint in [0, 2^64), got ${String(key)}${typeof key === "bigint" ? "" : ` (${typeof key})`}`,
    );
  }
  return key;
}

/** True iff the key addresses a slot of a tree of this depth (always true at depth 64). */
export function keyInRange(key: bigint, depth: number): boolean {
  return depth >= 64 || key < KEY_LIMITS[depth]!;
}

/** 2^depth for depth 0..63 (keys are compared with it for every statement). */
const KEY_LIMITS: readonly bigint[] = Array.from({ length: 64 }, (_, d) => 1n << BigInt(d));

/**
 * Checks key < 2^depth (for depth < 64).
 * @throws SmtError `BAD_KEY`, `BAD_DEPTH`, or `KEY_OUT_OF_RANGE`.
 */
export function checkKeyInRange(key: bigint, depth: number): bigint {
  checkKey(key);
  checkDepth(depth);
  if (!keyInRange(key, depth)) {
    throw new SmtError("KEY_OUT_OF_RANGE", `key ${key} is outside a tree of depth ${depth} (must be < 2^${depth})`, {
      key: key.toString(),
      depth,
    });
  }
  return key;
}

/** Key bit of level l: (key >> l) & 1, for l = 0..63. */
export function keyBit(key: bigint, level: number): number {
  return Number((key >> BigInt(level)) & 1n);
}

/** The path bits of a key, leaf level first: bits[l] = (key >> l) & 1 for l < depth (no range check). */
export function pathBits(key: bigint, depth: number): number[] {
  checkKey(key);
  checkDepth(depth);
  const bits: number[] = [];
  for (let l = 0; l < depth; l++) bits.push(keyBit(key, l));
  return bits;
}

/** One hash step: h_node(acc, sib) for bit 0, h_node(sib, acc) for bit 1. */
export function hashStep(acc: ArrayLike<number>, sibling: ArrayLike<number>, bit: number): Digest {
  return bit === 0 ? compress(acc, sibling) : compress(sibling, acc);
}

/**
 * Validates a sibling list: exactly `depth` digests of 8 canonical elements.
 * @throws SmtError `PATH_LENGTH_MISMATCH`; FieldError for a non-canonical element or a wrong digest length.
 */
export function checkSiblings(siblings: readonly ArrayLike<number>[], depth: number): Digest[] {
  if (!Array.isArray(siblings) || siblings.length !== depth) {
    const got = Array.isArray(siblings) ? siblings.length : typeof siblings;
    throw new SmtError("PATH_LENGTH_MISMATCH", `path must have depth = ${depth} siblings, got ${got}`, { depth, got });
  }
  return siblings.map((s, l) => digest(s, `siblings[${l}]`));
}

/**
 * The running digests acc_0 = leafDigest, acc_{l+1} = hashStep(acc_l, siblings[l], bit l),
 * l = 0..d−1 (d + 1 digests). No key-range check (§9.2).
 */
export function pathAccumulators(
  leafDigest: ArrayLike<number>,
  key: bigint,
  siblings: readonly ArrayLike<number>[],
): Digest[] {
  const accs: Digest[] = [Uint32Array.from(leafDigest)];
  for (let l = 0; l < siblings.length; l++) accs.push(hashStep(accs[l]!, siblings[l]!, keyBit(key, l)));
  return accs;
}

/**
 * compute_root(leaf, key, siblings) (§6.3), in order: (1) len(siblings) ≠ depth →
 * PATH_LENGTH_MISMATCH; (2) depth < 64 and key ≥ 2^depth → KEY_OUT_OF_RANGE; (3) acc ← h_leaf(leaf);
 * (4) fold the siblings upward. Returns the root digest.
 * @param depth tree depth 1..64 (default 24).
 * @param leafMaxFields leaf bound B (default 31).
 * @throws SmtError `PATH_LENGTH_MISMATCH`, `KEY_OUT_OF_RANGE`, `LEAF_ENCODING`, `BAD_KEY`, `BAD_DEPTH`, `BAD_LEAF`; FieldError.
 */
export function computeRoot(
  leaf: Leaf,
  key: bigint,
  siblings: readonly ArrayLike<number>[],
  depth = DEFAULT_DEPTH,
  leafMaxFields = DEFAULT_LEAF_MAX_FIELDS,
): Digest {
  checkDepth(depth);
  checkKey(key);
  if (!Array.isArray(siblings) || siblings.length !== depth) checkSiblings(siblings, depth);
  checkKeyInRange(key, depth);
  const sibs = checkSiblings(siblings, depth);
  return computeRootFromDigest(hashLeaf(leaf, leafMaxFields), key, sibs);
}

/** The root above a leaf digest: the last of `pathAccumulators`. Inputs must be canonical; no checks. */
export function computeRootFromDigest(
  leafDigest: ArrayLike<number>,
  key: bigint,
  siblings: readonly ArrayLike<number>[],
): Digest {
  let acc: Digest = Uint32Array.from(leafDigest);
  for (let l = 0; l < siblings.length; l++) acc = hashStep(acc, siblings[l]!, keyBit(key, l));
  return acc;
}
