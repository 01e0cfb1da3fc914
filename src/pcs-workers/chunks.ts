/**
 * The share of a Merkle tree one thread hashes (src/pcs/parallel.ts, the seam): a tree over the
 * 2^logRows rows of a natural-order codeword is cut into 2^(logRows − logChunk) aligned chunks of
 * 2^logChunk rows; a chunk's rows are a codeword of their own (2^k runs of 2^logChunk values, one
 * per column), so its subtree is the backend's `pcsMerkle` of that small codeword, and its levels
 * land at their places in the shared levels buffer. The levels above the chunks' roots are
 * compressed last, on the calling thread. The result is the tree `pcsMerkle` gives for the whole
 * codeword (test/pcs/pool.test.ts).
 */
import { compress } from "../hash/digest.js";
import { pcsMerkle, type MerkleTree } from "../pcs/backend.js";
import type { LeafWidth } from "../pcs/params.js";

/** One tree to hash in chunks: the codeword and the levels buffer are shared between the threads. */
export interface TreeJob {
  /** The natural-order codeword, `width` words per value (usually on a SharedArrayBuffer). */
  readonly codeword: Uint32Array;
  readonly width: number;
  readonly logDomain: number;
  /** Values per row: 2^k. */
  readonly k: number;
  /** Rows per chunk: 2^logChunk (at most the tree's rows). */
  readonly logChunk: number;
  /** Every level of the tree, leaves first, 8 words per digest: 8·(2·rows − 1) words. */
  readonly levels: Uint32Array;
  /** The leaf sponge's permutation width (docs/pcs.md §4.3; 16 when absent). */
  readonly leafWidth?: LeafWidth;
}

/** Word offset of level `level` in a levels buffer of a tree over 2^logRows rows. */
export function levelOffset(logRows: number, level: number): number {
  let at = 0;
  for (let l = 0; l < level; l++) at += 8 << (logRows - l);
  return at;
}

/** Words of the levels buffer of a tree over 2^logRows rows. */
export function levelsWords(logRows: number): number {
  return 8 * (2 * (1 << logRows) - 1);
}

/** The rows [chunk·2^logChunk, (chunk + 1)·2^logChunk) of the job's codeword as a natural-order codeword of their own. */
export function chunkCodeword(job: TreeJob, chunk: number): Uint32Array {
  const rows = 1 << (job.logDomain - job.k);
  const c = 1 << job.logChunk;
  const cols = 1 << job.k;
  const w = job.width;
  const out = new Uint32Array(c * cols * w);
  for (let t = 0; t < cols; t++) {
    const from = (chunk * c + t * rows) * w;
    out.set(job.codeword.subarray(from, from + c * w), t * c * w);
  }
  return out;
}

/** The subtree of chunk `chunk` of the job, on this thread's backend (not yet in `job.levels`). */
export function chunkTree(job: TreeJob, chunk: number): MerkleTree {
  return pcsMerkle(chunkCodeword(job, chunk), job.width, job.logChunk + job.k, job.k, job.leafWidth ?? 16);
}

/** Writes a chunk's subtree (`chunkTree`) at its places in `job.levels`. */
export function writeChunk(job: TreeJob, chunk: number, tree: MerkleTree): void {
  const logRows = job.logDomain - job.k;
  for (let l = 0; l <= job.logChunk; l++) {
    job.levels.set(tree.levels[l]!, levelOffset(logRows, l) + ((8 * (chunk << job.logChunk)) >> l));
  }
}

/** The whole tree once every chunk is hashed: the levels above the chunks' roots compressed, every level a view of `job.levels`. */
export function finishTree(job: TreeJob): MerkleTree {
  const logRows = job.logDomain - job.k;
  const levels: Uint32Array[] = [];
  for (let l = 0; l <= logRows; l++) {
    const at = levelOffset(logRows, l);
    levels.push(job.levels.subarray(at, at + (8 << (logRows - l))));
  }
  for (let l = job.logChunk; l < logRows; l++) {
    const below = levels[l]!;
    const above = levels[l + 1]!;
    for (let i = 0; i < above.length / 8; i++)
      above.set(compress(below.subarray(16 * i, 16 * i + 8), below.subarray(16 * i + 8, 16 * i + 16)), 8 * i);
  }
  return { logRows, levels, root: levels[logRows]!.slice() };
}
