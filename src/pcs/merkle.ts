/**
 * Merkle trees over codeword rows (docs/pcs.md §4.3): leaf j is the padding-free sponge of row
 * j's words — the compat-v1 sponge (Poseidon2-16, rate 8) or, for the `-l24` sets, the
 * Poseidon2-24 sponge at rate 16 (src/hash/poseidon2-24.ts) — a node is the compat-v1 compression h_node(left, right), and the
 * root is one 8-element digest. Openings of several rows share one multiproof: the sibling
 * digests the verifier cannot compute, level by level from the leaves up, left to right.
 *
 * `buildMerkleTree` hashes through this thread's hashing backend in batches (`permuteMany`:
 * the WASM SIMD kernels once installed); `buildMerkleTreeReference` calls `sponge` and
 * `compress` node by node. Both give the same tree (test/pcs/merkle.test.ts).
 */
import { currentHashBackend } from "../hash/backend.js";
import { compress, sponge } from "../hash/digest.js";
import { permute24InPlace, sponge24 } from "../hash/poseidon2-24.js";
import type { LeafWidth } from "./params.js";

/** A tree over 2^logRows rows: levels[0] holds the leaf digests, levels[logRows] the root (8 words per digest). */
export interface MerkleTree {
  readonly logRows: number;
  readonly levels: readonly Uint32Array[];
  readonly root: Uint32Array;
}

const CHUNK = 256;

/**
 * The leaf digests (8 words each, back to back) of the first `n` rows of `rows` (rowWords
 * canonical words each, back to back): each the padding-free sponge of its row, the rows hashed in
 * lock step through the hashing backend's `permuteMany`, 256 at a time.
 */
export function hashRows(rows: Uint32Array, rowWords: number, n: number, leafWidth: LeafWidth = 16): Uint32Array {
  if (leafWidth === 24) return hashRows24(rows, rowWords, n);
  const backend = currentHashBackend();
  const leaves = new Uint32Array(8 * n);
  const states = new Uint32Array(16 * Math.min(CHUNK, n));
  for (let start = 0; start < n; start += CHUNK) {
    const count = Math.min(CHUNK, n - start);
    states.fill(0, 0, 16 * count);
    for (let off = 0; off < rowWords; off += 8) {
      const len = Math.min(8, rowWords - off);
      for (let i = 0; i < count; i++) {
        const src = (start + i) * rowWords + off;
        for (let l = 0; l < len; l++) states[16 * i + l] = rows[src + l]!;
      }
      backend.permuteMany(states, count);
    }
    for (let i = 0; i < count; i++) for (let l = 0; l < 8; l++) leaves[8 * (start + i) + l] = states[16 * i + l]!;
  }
  return leaves;
}

/** n canonical width-24 states (24 words each, back to back) permuted in place. */
export type Permute24Many = (states: Uint32Array) => void;

/** The reference `Permute24Many`: `permute24InPlace` state by state. */
export function permute24ManyReference(states: Uint32Array): void {
  for (let o = 0; o < states.length; o += 24) permute24InPlace(states.subarray(o, o + 24));
}

/**
 * The leaf digests of the first `n` rows under the width-24 sponge at rate 16 (docs/pcs.md §4.3):
 * the rows' states side by side, each block of 16 words written into every state, then all
 * states permuted by `permuteMany` (the reference unless given: the verifier passes this thread's
 * backend's, `pcsPermute24`, the WASM kernel once installed). The prover's trees take the leaf
 * kernel instead (src/kernels/pcs-kernels.ts).
 */
export function hashRows24(
  rows: Uint32Array,
  rowWords: number,
  n: number,
  permuteMany: Permute24Many = permute24ManyReference,
): Uint32Array {
  const leaves = new Uint32Array(8 * n);
  const states = new Uint32Array(24 * n);
  for (let off = 0; off < rowWords; off += 16) {
    const len = Math.min(16, rowWords - off);
    for (let i = 0; i < n; i++) {
      const src = i * rowWords + off;
      for (let l = 0; l < len; l++) states[24 * i + l] = rows[src + l]!;
    }
    permuteMany(states);
  }
  for (let i = 0; i < n; i++) for (let l = 0; l < 8; l++) leaves[8 * i + l] = states[24 * i + l]!;
  return leaves;
}

/** Builds the tree of `rows` (2^logRows rows of rowWords canonical words each, back to back) in batches, leaves hashed by the sponge of `leafWidth`. */
export function buildMerkleTree(
  rows: Uint32Array,
  rowWords: number,
  logRows: number,
  leafWidth: LeafWidth = 16,
): MerkleTree {
  const n = 1 << logRows;
  return buildMerkleTreeOfLeaves(hashRows(rows, rowWords, n, leafWidth), logRows);
}

/** The tree above 2^logRows leaf digests (8 words each, back to back), nodes compressed in batches. */
export function buildMerkleTreeOfLeaves(leaves: Uint32Array, logRows: number): MerkleTree {
  const backend = currentHashBackend();
  const n = 1 << logRows;
  const states = new Uint32Array(16 * Math.min(CHUNK, Math.max(1, n >> 1)));
  const levels: Uint32Array[] = [leaves];
  let cur = leaves;
  for (let level = 0; level < logRows; level++) {
    const parents = cur.length / 16;
    const next = new Uint32Array(8 * parents);
    for (let start = 0; start < parents; start += CHUNK) {
      const count = Math.min(CHUNK, parents - start);
      states.set(cur.subarray(16 * start, 16 * (start + count)), 0);
      backend.permuteMany(states, count);
      for (let i = 0; i < count; i++) for (let l = 0; l < 8; l++) next[8 * (start + i) + l] = states[16 * i + l]!;
    }
    levels.push(next);
    cur = next;
  }
  return { logRows, levels, root: cur.slice(0, 8) };
}

/** The same tree, one sponge (`sponge` or `sponge24`) per leaf and one `compress` per node (the reference). */
export function buildMerkleTreeReference(
  rows: Uint32Array,
  rowWords: number,
  logRows: number,
  leafWidth: LeafWidth = 16,
): MerkleTree {
  const n = 1 << logRows;
  const leaves = new Uint32Array(8 * n);
  for (let j = 0; j < n; j++) leaves.set(hashRow(rows.subarray(j * rowWords, (j + 1) * rowWords), leafWidth), 8 * j);
  const levels: Uint32Array[] = [leaves];
  let cur = leaves;
  for (let level = 0; level < logRows; level++) {
    const next = new Uint32Array(cur.length / 2);
    for (let i = 0; i < next.length / 8; i++)
      next.set(compress(cur.subarray(16 * i, 16 * i + 8), cur.subarray(16 * i + 8, 16 * i + 16)), 8 * i);
    levels.push(next);
    cur = next;
  }
  return { logRows, levels, root: cur.slice(0, 8) };
}

/** The leaf digest of one row under the sponge of `leafWidth` (docs/pcs.md §4.3). */
export function hashRow(row: ArrayLike<number>, leafWidth: LeafWidth = 16): Uint32Array {
  return leafWidth === 24 ? sponge24(row) : sponge(row);
}

/** Sorted distinct indices of `indices`. */
export function distinctSorted(indices: readonly number[]): number[] {
  return [...new Set(indices)].sort((a, b) => a - b);
}

/** The multiproof of the rows at `sorted` (distinct, ascending): the sibling digests in verification order. */
export function openMultiproof(tree: MerkleTree, sorted: readonly number[]): Uint32Array {
  const out: number[] = [];
  let cur = sorted.slice();
  for (let level = 0; level < tree.logRows; level++) {
    const digests = tree.levels[level]!;
    const next: number[] = [];
    for (let i = 0; i < cur.length; i++) {
      const idx = cur[i]!;
      if ((idx & 1) === 0 && cur[i + 1] === idx + 1) i++;
      else {
        const s = idx ^ 1;
        for (let l = 0; l < 8; l++) out.push(digests[8 * s + l]!);
      }
      next.push(idx >> 1);
    }
    cur = next;
  }
  return Uint32Array.from(out);
}

/** How many sibling digests the multiproof of `sorted` holds in a tree of 2^logRows rows. */
export function multiproofSize(logRows: number, sorted: readonly number[]): number {
  let count = 0;
  let cur = sorted.slice();
  for (let level = 0; level < logRows; level++) {
    const next: number[] = [];
    for (let i = 0; i < cur.length; i++) {
      const idx = cur[i]!;
      if ((idx & 1) === 0 && cur[i + 1] === idx + 1) i++;
      else count++;
      next.push(idx >> 1);
    }
    cur = next;
  }
  return count;
}

/**
 * Recomputes the root from the leaf digests of the rows at `sorted` (distinct, ascending; 8 words
 * each, in that order) and the multiproof; true when it equals `root` and every sibling was used.
 */
export function verifyMultiproof(
  root: ArrayLike<number>,
  logRows: number,
  sorted: readonly number[],
  leafDigests: Uint32Array,
  siblings: Uint32Array,
): boolean {
  if (sorted.length === 0 || siblings.length % 8 !== 0) return false;
  const backend = currentHashBackend();
  let idx = sorted.slice();
  // The level's digests, 8 words each in idx order; each level's nodes are compressed in one batch
  // (h_node = the first 8 words of the permutation of left ‖ right).
  let digests = leafDigests.subarray(0, 8 * idx.length);
  const states = new Uint32Array(16 * idx.length);
  let s = 0;
  const total = siblings.length / 8;
  for (let level = 0; level < logRows; level++) {
    const nextIdx: number[] = [];
    for (let i = 0; i < idx.length; i++) {
      const at = idx[i]!;
      const o = 16 * nextIdx.length;
      // (word copies as loops: a subarray per node would allocate a view per copy)
      if ((at & 1) === 0 && idx[i + 1] === at + 1) {
        for (let w = 0; w < 16; w++) states[o + w] = digests[8 * i + w]!;
        i++;
      } else {
        if (s >= total) return false;
        const sib = 8 * s;
        s++;
        const own = 8 * i;
        const left = (at & 1) === 0 ? o : o + 8,
          right = (at & 1) === 0 ? o + 8 : o;
        for (let w = 0; w < 8; w++) {
          states[left + w] = digests[own + w]!;
          states[right + w] = siblings[sib + w]!;
        }
      }
      nextIdx.push(at >> 1);
    }
    const n = nextIdx.length;
    backend.permuteMany(states, n);
    const next = new Uint32Array(8 * n);
    for (let j = 0; j < n; j++) for (let w = 0; w < 8; w++) next[8 * j + w] = states[16 * j + w]!;
    digests = next;
    idx = nextIdx;
  }
  if (s !== total || idx.length !== 1 || idx[0] !== 0) return false;
  for (let l = 0; l < 8; l++) if (digests[l] !== root[l]) return false;
  return true;
}
