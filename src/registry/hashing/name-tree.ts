/**
 * The compact sparse Merkle tree of name-keyed registries (docs/registry.md §"Compact storage").
 *
 * The tree is the compat-v1 sparse Merkle tree of depth d (§6.3, empty-subtree defaults of
 * §20.7): node (h, p) at height h (0 = leaf) has prefix p = ⌊key / 2^h⌋ and children
 * (h − 1, 2p), (h − 1, 2p + 1); the root is (d, 0). Only two kinds of row are stored: a leaf row
 * per record (its key, record and leaf digest) and a **branch** row for every node whose two
 * children both hold records (n − 1 of them for n records). Every other node is recomputed on
 * demand: a subtree without records is the default of its height; a subtree with one record is
 * that record's leaf digest hashed up with default siblings; a subtree with several records is
 * the branch at their lowest common ancestor hashed up with default siblings. Records are never
 * removed (a delete leaves a Tombstone), so a branch stays a branch for ever.
 *
 * Keys are exact JavaScript numbers (depth ≤ 48).
 */
import { InternalError } from "../../errors.js";
import type { Digest } from "../../hash/digest.js";
import { currentHashBackend } from "../../hash/backend.js";
import { RATE, WIDTH } from "../../hash/poseidon2.js";
import type { BatchPermutation } from "./permutation.js";

const POW2: number[] = Array.from({ length: 65 }, (_, i) => 2 ** i);

/** ⌊key / 2^h⌋. */
export function prefixOf(key: number, h: number): number {
  return Math.floor(key / POW2[h]!);
}

/** Bit l of a key (bit 0 is the leaf-level bit of compat-v1 §6.3). */
export function bitAt(key: number, l: number): number {
  return Math.floor(key / POW2[l]!) % 2;
}

/** Height of the lowest common ancestor of two keys: the least L with ⌊a/2^L⌋ = ⌊b/2^L⌋. */
export function lcaHeight(a: number, b: number): number {
  const hx = (Math.floor(a / 2 ** 32) ^ Math.floor(b / 2 ** 32)) >>> 0;
  if (hx !== 0) return 64 - Math.clz32(hx);
  const lx = ((a >>> 0) ^ (b >>> 0)) >>> 0;
  return 32 - Math.clz32(lx);
}

/** Read access to the stored rows (one snapshot or the write transaction). */
export interface CompactSource {
  /** Smallest stored key in [lo, hi), or undefined. */
  firstKeyIn(lo: number, hi: number): number | undefined;
  /** Largest stored key in [lo, hi), or undefined. */
  lastKeyIn(lo: number, hi: number): number | undefined;
  /** Leaf digest of the record at a stored key. */
  leafDigest(key: number): Digest;
  /** Digest of the branch (h, p). @throws RegistryError `DB_CORRUPT` when it is not stored. */
  branch(h: number, p: number): Digest;
}

/** h_node through a batched permutation: n pairs in one call. */
export class Compressor {
  private pairs = new Uint32Array(WIDTH * 64);
  constructor(readonly perm: BatchPermutation) {}

  /** Space for n pairs (pair i: left at [16i, 16i + 8), right at [16i + 8, 16i + 16)). */
  buffer(n: number): Uint32Array {
    if (this.pairs.length < WIDTH * n)
      this.pairs = new Uint32Array(WIDTH * Math.max(n, 2 * (this.pairs.length / WIDTH)));
    return this.pairs;
  }

  /** Runs the permutation over the first n pairs of `buffer`; parent i is at [16i, 16i + 8). */
  run(n: number): Uint32Array {
    if (n > 0) this.perm.permute(this.pairs, n);
    return this.pairs;
  }

  /**
   * h_node(left, right). With the WASM kernels as this thread's hashing backend (src/hash), their
   * one-state compression (about a third of a four-lane batch of one: the chains of a replay, a
   * proof's lone siblings); otherwise a batch of one through the permutation.
   */
  one(left: ArrayLike<number>, right: ArrayLike<number>): Digest {
    const backend = currentHashBackend();
    if (backend.name === "wasm" && this.perm.kind === "wasm") return backend.compress(left, right);
    const b = this.buffer(1);
    for (let w = 0; w < RATE; w++) {
      b[w] = left[w]!;
      b[RATE + w] = right[w]!;
    }
    b.fill(0, 2 * RATE, WIDTH);
    this.run(1);
    return b.slice(0, RATE);
  }
}

/** Hashes `digest`, the node of `key` at height `from`, up to height `to` with default siblings. */
export function chainUp(
  c: Compressor,
  defaults: readonly Digest[],
  digest: Digest,
  key: number,
  from: number,
  to: number,
): Digest {
  let acc = digest;
  for (let l = from; l < to; l++) acc = bitAt(key, l) === 0 ? c.one(acc, defaults[l]!) : c.one(defaults[l]!, acc);
  return acc;
}

/** Digest of node (h, p), recomputed from the stored rows. */
export function nodeDigest(
  src: CompactSource,
  c: Compressor,
  defaults: readonly Digest[],
  h: number,
  p: number,
): Digest {
  const lo = p * POW2[h]!;
  const hi = lo + POW2[h]!;
  const first = src.firstKeyIn(lo, hi);
  if (first === undefined) return defaults[h]!.slice();
  const last = src.lastKeyIn(lo, hi)!;
  if (first === last) return chainUp(c, defaults, src.leafDigest(first), first, 0, h);
  const L = lcaHeight(first, last);
  return chainUp(c, defaults, src.branch(L, prefixOf(first, L)), first, L, h);
}

/** The path of a key: `depth` siblings, leaf level first, and whether each sibling subtree holds records. */
export interface CompactPath {
  readonly siblings: Digest[];
  readonly occupied: boolean[];
}

/** Siblings of `key` recomputed from the stored rows. */
export function pathOf(
  src: CompactSource,
  c: Compressor,
  defaults: readonly Digest[],
  depth: number,
  key: number,
): CompactPath {
  const siblings: Digest[] = [];
  const occupied: boolean[] = [];
  for (let h = 0; h < depth; h++) {
    const p = prefixOf(key, h);
    const s = p % 2 === 0 ? p + 1 : p - 1;
    const lo = s * POW2[h]!;
    const any = src.firstKeyIn(lo, lo + POW2[h]!) !== undefined;
    occupied.push(any);
    siblings.push(any ? nodeDigest(src, c, defaults, h, s) : defaults[h]!.slice());
  }
  return { siblings, occupied };
}

/** Branch rows a batch writes: node (heights[i], prefixes[i]) gets digests[8i, 8i + 8); created[i] = 1: a new branch. */
export interface BranchWrites {
  readonly count: number;
  readonly heights: Uint8Array;
  readonly prefixes: Float64Array;
  readonly digests: Uint32Array;
  readonly created: Uint8Array;
}

/** Sibling index meaning "the default digest of this level". */
const DEFAULT_SIBLING = 0x3fffffff;

/** First j in [start, n) with E[j] ≥ bound (n if none); E ascending. */
function gallopRight(E: Float64Array, n: number, start: number, bound: number): number {
  if (start >= n || E[start]! >= bound) return start;
  let prev = start;
  let step = 1;
  let cur = start + 1;
  while (cur < n && E[cur]! < bound) {
    prev = cur;
    step *= 2;
    cur = prev + step;
  }
  let lo = prev + 1;
  let hi = Math.min(cur, n);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (E[mid]! < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First j in [0, end] with E[j] ≥ bound, given E[end] ≥ bound or end = n; E ascending. */
function gallopLeft(E: Float64Array, end: number, bound: number): number {
  if (end === 0 || E[end - 1]! < bound) return end;
  let cur = end - 1;
  let step = 1;
  let nxt = cur - step;
  while (nxt >= 0 && E[nxt]! >= bound) {
    cur = nxt;
    step *= 2;
    nxt = cur - step;
  }
  let lo = Math.max(nxt + 1, 0);
  let hi = cur;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (E[mid]! < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First j with E[j] ≥ x. */
export function lowerBound(E: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (E[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The working arrays of one `updateCompact`, allocated once per call and reused level after level
 * (a level's entries only shrink). Each step of a level is a method of its own: small functions
 * that the JIT compiles once each, whatever paths a batch takes.
 */
class CompactLevels {
  /** The level's entries: prefixes, digests (8 words each) and the stored keys under each ([LO, HI)). */
  P: Float64Array;
  V: Uint32Array;
  LO: Int32Array;
  HI: Int32Array;
  /** The next level's. */
  Q: Float64Array;
  NV: Uint32Array;
  NLO: Int32Array;
  NHI: Int32Array;
  /** Each parent's children: ≥ 0, index of a changed child in V; < 0, −1 − index in SV. */
  readonly left: Int32Array;
  readonly right: Int32Array;
  /** 1 where the parent has records on both sides (a branch row), 2 if only since the batch. */
  readonly branch: Uint8Array;
  /** Digests of the untouched sibling subtrees of the level, by slot. */
  readonly SV: Uint32Array;
  /** Chains of untouched sibling subtrees: start key, start height, digest so far; in start order. */
  readonly jobKey: Float64Array;
  readonly jobFrom: Int32Array;
  readonly order: Int32Array;
  readonly perFrom: Int32Array;
  /** Branch rows written so far. */
  bh = new Uint8Array(1024);
  bp = new Float64Array(1024);
  bd = new Uint32Array(RATE * 1024);
  bc = new Uint8Array(1024);
  bn = 0;

  constructor(
    readonly depth: number,
    readonly existing: Float64Array,
    readonly n: number,
    keys: Float64Array,
    digests: Uint32Array,
  ) {
    const m = keys.length;
    this.P = Float64Array.from(keys);
    this.V = digests.slice(0, RATE * m);
    this.LO = new Int32Array(m);
    this.HI = new Int32Array(m);
    this.Q = new Float64Array(m);
    this.NV = new Uint32Array(RATE * m);
    this.NLO = new Int32Array(m);
    this.NHI = new Int32Array(m);
    this.left = new Int32Array(m);
    this.right = new Int32Array(m);
    this.branch = new Uint8Array(m);
    this.SV = new Uint32Array(RATE * m);
    this.jobKey = new Float64Array(m);
    this.jobFrom = new Int32Array(m);
    this.order = new Int32Array(m);
    this.perFrom = new Int32Array(depth + 2);
    const P = this.P,
      LO = this.LO,
      HI = this.HI;
    for (let i = 0; i < m; i++) {
      const at = lowerBound(existing, n, P[i]!);
      LO[i] = at;
      HI[i] = at < n && existing[at] === P[i] ? at + 1 : at;
    }
  }

  /**
   * Pairs the m entries of height h into parents: two changed siblings, or one with its untouched
   * sibling subtree (a default, or a job of `sibling` in SV). @returns the number of parents k and
   * of sibling subtrees sv.
   */
  pair(h: number, m: number, src: Pick<CompactSource, "leafDigest" | "branch">): { k: number; sv: number } {
    const { P, Q, LO, HI, NLO, NHI, left, right, branch, existing, n } = this;
    const size = POW2[h]!;
    let sv = 0;
    let k = 0;
    for (let i = 0; i < m; i++, k++) {
      const p = P[i]!;
      const q = Math.floor(p / 2);
      Q[k] = q;
      if (i + 1 < m && Math.floor(P[i + 1]! / 2) === q) {
        left[k] = i;
        right[k] = i + 1;
        NLO[k] = LO[i]!;
        NHI[k] = HI[i + 1]!;
        branch[k] = HI[i]! > LO[i]! && HI[i + 1]! > LO[i + 1]! ? 1 : 2;
        i++;
        continue;
      }
      let a: number, b: number;
      const even = p % 2 === 0;
      if (even) {
        a = HI[i]!;
        b = gallopRight(existing, n, a, (p + 2) * size);
        NLO[k] = LO[i]!;
        NHI[k] = b;
      } else {
        b = LO[i]!;
        a = gallopLeft(existing, b, (p - 1) * size);
        NLO[k] = a;
        NHI[k] = HI[i]!;
      }
      let sib = DEFAULT_SIBLING;
      branch[k] = 0;
      if (a !== b) {
        sib = sv++;
        branch[k] = HI[i]! > LO[i]! ? 1 : 2;
        this.sibling(sib, a, b, src);
      }
      if (even) {
        left[k] = i;
        right[k] = -1 - sib;
      } else {
        left[k] = -1 - sib;
        right[k] = i;
      }
    }
    return { k, sv };
  }

  /** Slot `sib`: the untouched subtree of the stored keys [a, b): its one leaf, or the branch at their common ancestor. */
  private sibling(sib: number, a: number, b: number, src: Pick<CompactSource, "leafDigest" | "branch">): void {
    const first = this.existing[a]!;
    this.jobKey[sib] = first;
    if (b - a === 1) {
      this.jobFrom[sib] = 0;
      this.SV.set(src.leafDigest(first), RATE * sib);
    } else {
      const L = lcaHeight(first, this.existing[b - 1]!);
      this.jobFrom[sib] = L;
      this.SV.set(src.branch(L, prefixOf(first, L)), RATE * sib);
    }
  }

  /** The sv sibling subtrees' digests hashed up to height h with default siblings, in lockstep (jobs by start height). */
  chainSiblings(c: Compressor, defaults: readonly Digest[], h: number, sv: number): void {
    const { jobFrom, jobKey, order, perFrom, SV } = this;
    perFrom.fill(0);
    for (let j = 0; j < sv; j++) perFrom[jobFrom[j]! + 1]!++;
    for (let t = 1; t < perFrom.length; t++) perFrom[t]! += perFrom[t - 1]!;
    let lowest = h;
    for (let j = 0; j < sv; j++) {
      const f = jobFrom[j]!;
      order[perFrom[f]!++] = j;
      if (f < lowest) lowest = f;
    }
    let active = 0;
    for (let t = lowest; t < h; t++) {
      while (active < sv && jobFrom[order[active]!]! <= t) active++;
      const buf = c.buffer(active);
      const dt = defaults[t]!;
      for (let jj = 0; jj < active; jj++) {
        const j = order[jj]!;
        const o = WIDTH * jj;
        const d = RATE * j;
        const on = bitAt(jobKey[j]!, t) === 0 ? o : o + RATE;
        const od = on === o ? o + RATE : o;
        for (let w = 0; w < RATE; w++) {
          buf[on + w] = SV[d + w]!;
          buf[od + w] = dt[w]!;
        }
      }
      const out = c.run(active);
      for (let jj = 0; jj < active; jj++) {
        const o = WIDTH * jj;
        const d = RATE * order[jj]!;
        for (let w = 0; w < RATE; w++) SV[d + w] = out[o + w]!;
      }
    }
  }

  /** The k parents of height h + 1 in one batched call: their digests into NV, the branches among them recorded. */
  parents(c: Compressor, def: Digest, h: number, k: number): void {
    const { V, SV, NV, Q, left, right, branch } = this;
    const buf = c.buffer(k);
    for (let j = 0; j < k; j++) {
      const o = WIDTH * j;
      const l = left[j]!;
      const r = right[j]!;
      const la = l >= 0 ? V : l === -1 - DEFAULT_SIBLING ? def : SV;
      const lo8 = l >= 0 ? RATE * l : l === -1 - DEFAULT_SIBLING ? 0 : RATE * (-1 - l);
      const ra = r >= 0 ? V : r === -1 - DEFAULT_SIBLING ? def : SV;
      const ro8 = r >= 0 ? RATE * r : r === -1 - DEFAULT_SIBLING ? 0 : RATE * (-1 - r);
      for (let w = 0; w < RATE; w++) {
        buf[o + w] = la[lo8 + w]!;
        buf[o + RATE + w] = ra[ro8 + w]!;
      }
    }
    const out = c.run(k);
    for (let j = 0; j < k; j++) {
      const o = WIDTH * j;
      for (let w = 0; w < RATE; w++) NV[RATE * j + w] = out[o + w]!;
      if (branch[j]) this.addBranch(h + 1, Q[j]!, branch[j] === 2 ? 1 : 0, out, o);
    }
  }

  private addBranch(h: number, p: number, created: number, from: Uint32Array, at: number): void {
    if (this.bn === this.bh.length) {
      const bn = this.bn;
      const nh = new Uint8Array(2 * bn);
      nh.set(this.bh);
      this.bh = nh;
      const np = new Float64Array(2 * bn);
      np.set(this.bp);
      this.bp = np;
      const nd = new Uint32Array(2 * RATE * bn);
      nd.set(this.bd);
      this.bd = nd;
      const nc = new Uint8Array(2 * bn);
      nc.set(this.bc);
      this.bc = nc;
    }
    const bn = this.bn++;
    this.bh[bn] = h;
    this.bp[bn] = p;
    this.bc[bn] = created;
    const bd = this.bd;
    for (let w = 0; w < RATE; w++) bd[RATE * bn + w] = from[at + w]!;
  }

  /** The next level becomes the level. */
  advance(): void {
    [this.P, this.Q] = [this.Q, this.P];
    [this.V, this.NV] = [this.NV, this.V];
    [this.LO, this.NLO] = [this.NLO, this.LO];
    [this.HI, this.NHI] = [this.NHI, this.HI];
  }
}

/**
 * Recomputes the tree above a batch of changed leaves, level by level with one batched h_node
 * call per level (plus batched chains of the untouched sibling subtrees), in arrays allocated
 * once per call (`CompactLevels`). Reference: `referenceCompact` (test/registry/name-tree.test.ts).
 * @param existing the stored keys before the batch, ascending (first `n` entries).
 * @param keys changed keys, strictly ascending (new keys and stored keys whose leaf changes).
 * @param digests their new leaf digests, 8 words each.
 * @param src reads leaf digests and branches of untouched subtrees.
 * @returns the new root and every branch on the changed paths (to be written).
 */
export function updateCompact(
  depth: number,
  defaults: readonly Digest[],
  c: Compressor,
  existing: Float64Array,
  n: number,
  keys: Float64Array,
  digests: Uint32Array,
  src: Pick<CompactSource, "leafDigest" | "branch">,
): { root: Digest; branches: BranchWrites } {
  const s = new CompactLevels(depth, existing, n, keys, digests);
  let m = keys.length;
  for (let h = 0; h < depth; h++) {
    const { k, sv } = s.pair(h, m, src);
    if (sv > 0) s.chainSiblings(c, defaults, h, sv);
    s.parents(c, defaults[h]!, h, k);
    m = k;
    s.advance();
  }
  return {
    root: s.V.slice(0, RATE),
    branches: {
      count: s.bn,
      heights: s.bh.subarray(0, s.bn),
      prefixes: s.bp.subarray(0, s.bn),
      digests: s.bd.subarray(0, RATE * s.bn),
      created: s.bc.subarray(0, s.bn),
    },
  };
}

/**
 * Plain reference (tests, `ssgkr registry check` cross-checks): the root and the branches of the
 * compact tree of sorted keys with these leaf digests, computed recursively with `compress`.
 */
export function referenceCompact(
  depth: number,
  defaults: readonly Digest[],
  compress: (l: Digest, r: Digest) => Digest,
  keys: readonly number[],
  digests: readonly Digest[],
): { root: Digest; branches: Map<string, Digest> } {
  const branches = new Map<string, Digest>();
  const node = (h: number, lo: number, hi: number): Digest => {
    if (lo === hi) return defaults[h]!;
    if (h === 0) return digests[lo]!;
    let mid = lo;
    while (mid < hi && bitAt(keys[mid]!, h - 1) === 0) mid++;
    const d = compress(node(h - 1, lo, mid), node(h - 1, mid, hi));
    if (mid > lo && mid < hi) branches.set(`${h}/${prefixOf(keys[lo]!, h)}`, d);
    return d;
  };
  return { root: node(depth, 0, keys.length), branches };
}

/**
 * One key-range partition of a bulk build: the records whose keys lie in
 * [base·2^height, (base + 1)·2^height), given relative to the range's start.
 */
export interface SubtreeJob {
  /** Height of the partition's top node (its node is (height, base)). */
  readonly height: number;
  /** Prefix of the partition's top node at `height`. */
  readonly base: number;
  /** Keys minus base·2^height, strictly ascending. */
  readonly keys: Float64Array;
  /** Their leaf digests, 8 words each. */
  readonly digests: Uint32Array;
  /** default_h for h = 0..height, 8 words each. */
  readonly defaults: Uint32Array;
}

/** The partition's top node digest and its branches (absolute heights and prefixes, height-major, ascending). */
export interface SubtreeResult {
  readonly root: Uint32Array;
  readonly heights: Uint8Array;
  readonly prefixes: Float64Array;
  readonly digests: Uint32Array;
  /** Time spent, ms. */
  readonly ms: number;
}

/**
 * The stored-row source of an `updateCompact` over no stored keys (a bulk build, a recount):
 * such a call never reads a stored row, so either read is a bug (`InternalError`).
 */
export const NO_STORED_ROWS: Pick<CompactSource, "leafDigest" | "branch"> = {
  leafDigest: () => {
    throw new InternalError("a build over no stored keys read a stored leaf digest");
  },
  branch: () => {
    throw new InternalError("a build over no stored keys read a stored branch");
  },
};

/** Computes a partition's compact tree (level by level, batched; `updateCompact` with no stored keys). */
export function subtreeCompact(job: SubtreeJob, c: Compressor): SubtreeResult {
  const started = performance.now();
  const defaults: Digest[] = [];
  for (let h = 0; h <= job.height; h++) defaults.push(job.defaults.subarray(RATE * h, RATE * h + RATE));
  const u = updateCompact(job.height, defaults, c, new Float64Array(0), 0, job.keys, job.digests, NO_STORED_ROWS);
  const prefixes = new Float64Array(u.branches.count);
  for (let i = 0; i < u.branches.count; i++) {
    const h = u.branches.heights[i]!;
    prefixes[i] = job.base * POW2[job.height - h]! + u.branches.prefixes[i]!;
  }
  return {
    root: u.root,
    heights: u.branches.heights.slice(),
    prefixes,
    digests: u.branches.digests.slice(),
    ms: performance.now() - started,
  };
}

/** The buffers of a partition result, for postMessage transfer lists. */
export function subtreeTransfer(r: SubtreeResult): ArrayBuffer[] {
  return [r.root.buffer, r.heights.buffer, r.prefixes.buffer, r.digests.buffer] as ArrayBuffer[];
}

/** Packs defaults[0..height] into 8 words each (for `SubtreeJob.defaults`). */
export function packDefaults(defaults: readonly Digest[], height: number): Uint32Array {
  const out = new Uint32Array(RATE * (height + 1));
  for (let h = 0; h <= height; h++) out.set(defaults[h]!, RATE * h);
  return out;
}
