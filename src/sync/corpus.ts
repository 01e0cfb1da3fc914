/**
 * The fixture corpus of the serving protocol (compat-v1 §16.6): deterministic, valid requests
 * C(kind, depth, i) drawn from SplitMix64, used by the load generator, the controls and the
 * batch benchmark.
 *
 * Seed: state = 0x5353474b52202026 ⊕ (depth << 32) ⊕ (t << 56) ⊕ i for kind tag t and index i.
 * key = i + 1. Draws, in order: siblings (depth × 8 lanes, leaf-adjacent sibling first, each
 * out & 0xFFFFFF), identity (32 bytes, byte 0 first, each the low byte of an output), two sync
 * fields (out & 0xFFFFFF each); Update draws two more sync fields for the new payload (same
 * identity). Membership: Occupied{fields, identity}; NonMembership: Empty; Update:
 * Occupied{fields, identity} → Occupied{new fields, identity}. Roots by compute_root (§6.3),
 * value_digest = h_leaf(new leaf) (the leaf itself for read-only kinds).
 *
 * 64-bit arithmetic is done on (hi, lo) pairs of u32 words; every 24-bit draw is below p, so
 * every value is canonical.
 */
import type { Digest } from "../hash/digest.js";
import { EMPTY, hashLeaf, occupied, type Leaf } from "../smt/leaf.js";
import type { OpRequest, Operation } from "../smt/operation.js";
import { checkKeyInRange, computeRoot } from "../smt/path.js";
import { syncConfig, type SyncConfig } from "./config.js";
import { SyncError } from "./errors.js";
import { opKindOf } from "./prepared.js";
import { OpKind, opKindTag, type OpKindName, type OpKindTag, type PublicInputs } from "./types.js";

/** High and low words of the corpus seed constant 0x5353474b52202026. */
const SEED_HI = 0x5353474b;
const SEED_LO = 0x52202026;
/** Golden gamma 0x9e3779b97f4a7c15. */
const GAMMA_HI = 0x9e3779b9;
const GAMMA_LO = 0x7f4a7c15;
/** Mixing multipliers 0xbf58476d1ce4e5b9 and 0x94d049bb133111eb. */
const M1_HI = 0xbf58476d;
const M1_LO = 0x1ce4e5b9;
const M2_HI = 0x94d049bb;
const M2_LO = 0x133111eb;

/** Low 32 bits and high 32 bits of a·b for u32 a, b (exact, in 16-bit pieces). */
function mulWide(a: number, b: number, out: Uint32Array): void {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  out[0] = ((mid & 0xffff) << 16) | (p00 & 0xffff);
  out[1] = p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
}

/**
 * SplitMix64 on u32 word pairs: `next()` advances the state by the golden gamma and returns
 * the mixed output; `hi` and `lo` then hold its high and low 32 bits.
 */
export class SplitMix64 {
  private sHi: number;
  private sLo: number;
  /** High 32 bits of the last output. */
  hi = 0;
  /** Low 32 bits of the last output. */
  lo = 0;
  private readonly t = new Uint32Array(2);

  /** @param hi high 32 bits of the initial state; @param lo low 32 bits. */
  constructor(hi: number, lo: number) {
    this.sHi = hi >>> 0;
    this.sLo = lo >>> 0;
  }

  /** The generator of corpus entry (kind tag t, index i) at `depth` (§16.6 seed). */
  static forCorpus(kindTag: number, depth: number, index: number): SplitMix64 {
    return new SplitMix64(SEED_HI ^ depth ^ (kindTag << 24), SEED_LO ^ index);
  }

  /** z ← (z ⊕ z ≫ shift)·(mHi, mLo) mod 2^64 on (this.hi, this.lo). */
  private mix(shift: number, mHi: number, mLo: number): void {
    const xLo = (this.lo ^ ((this.lo >>> shift) | (this.hi << (32 - shift)))) >>> 0;
    const xHi = (this.hi ^ (this.hi >>> shift)) >>> 0;
    mulWide(xLo, mLo, this.t);
    this.lo = this.t[0]!;
    this.hi = (this.t[1]! + Math.imul(xHi, mLo) + Math.imul(xLo, mHi)) >>> 0;
  }

  /** Advances and returns the low 32 bits of the next output (the high bits are in `hi`). */
  next(): number {
    const lo = this.sLo + GAMMA_LO;
    this.sLo = lo >>> 0;
    this.sHi = (this.sHi + GAMMA_HI + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    this.hi = this.sHi;
    this.lo = this.sLo;
    this.mix(30, M1_HI, M1_LO);
    this.mix(27, M2_HI, M2_LO);
    this.lo = (this.lo ^ ((this.lo >>> 31) | (this.hi << 1))) >>> 0;
    this.hi = (this.hi ^ (this.hi >>> 31)) >>> 0;
    return this.lo;
  }

  /** out & 0xFFFFFF (a canonical field element). */
  next24(): number {
    return this.next() & 0xffffff;
  }
}

/** A corpus request with its configuration and index. */
export interface CorpusFixture extends OpRequest {
  /** depth and leaf bound the request was drawn for (strategy A). */
  readonly config: SyncConfig;
  /** The corpus index i (key = i + 1). */
  readonly fixtureId: number;
}

/**
 * Corpus entry C(kind, depth, i) of §16.6: a request valid under the native semantics.
 * @param kind tag 0/1/2 or name.
 * @param index i, an integer in [0, 2^32) with i + 1 < 2^depth.
 * @param config depth (default 24) and leaf bound (default 31; Occupied leaves need B ≥ 12).
 * @throws SyncError `BAD_KIND`, `BAD_CORPUS_INDEX` (index not an integer in [0, 2^32));
 *   SmtError `KEY_OUT_OF_RANGE` (i + 1 ≥ 2^depth), `LEAF_ENCODING` (B < 12);
 *   CompileError `UNSUPPORTED_CONFIG`.
 */
export function corpusRequest(kind: OpKindName | OpKindTag, index: number, config: Partial<SyncConfig> = {}): CorpusFixture {
  const k = opKindOf(kind);
  const cfg = syncConfig(config);
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) {
    throw new SyncError("BAD_CORPUS_INDEX", `corpus index must be an integer in [0, 2^32), got ${String(index)}`, { index });
  }
  const key = checkKeyInRange(BigInt(index) + 1n, cfg.depth);
  const depth = cfg.depth;
  const B = cfg.leafMaxFields;
  const rng = SplitMix64.forCorpus(opKindTag(k), depth, index);
  const siblings: Digest[] = [];
  for (let l = 0; l < depth; l++) {
    const s = new Uint32Array(8);
    for (let lane = 0; lane < 8; lane++) s[lane] = rng.next24();
    siblings.push(s);
  }
  const identity = new Uint8Array(32);
  for (let j = 0; j < 32; j++) identity[j] = rng.next() & 0xff;
  const fields = [rng.next24(), rng.next24()];

  let operation: Operation;
  let witnessLeaf: Leaf;
  let newLeaf: Leaf;
  switch (k) {
    case OpKind.Membership: {
      const leaf = occupied(fields, identity);
      operation = { kind: k, key, leaf };
      witnessLeaf = newLeaf = leaf;
      break;
    }
    case OpKind.NonMembership:
      operation = { kind: k, key };
      witnessLeaf = newLeaf = EMPTY;
      break;
    default: {
      const oldLeaf = occupied(fields, identity);
      newLeaf = occupied([rng.next24(), rng.next24()], identity);
      operation = { kind: OpKind.Update, key, oldLeaf, newLeaf };
      witnessLeaf = oldLeaf;
    }
  }
  const oldRoot = computeRoot(witnessLeaf, key, siblings, depth, B);
  const newRoot = k === OpKind.Update ? computeRoot(newLeaf, key, siblings, depth, B) : oldRoot.slice();
  const publicInputs: PublicInputs = { oldRoot, newRoot, opKindTag: opKindTag(k), assetId: key, valueDigest: hashLeaf(newLeaf, B) };
  return { config: cfg, fixtureId: index, operation, witness: { leaf: witnessLeaf, siblings }, publicInputs };
}

/**
 * Entries 0 … count − 1 of the corpus of one kind.
 * @throws as `corpusRequest`; SyncError `BAD_CORPUS_INDEX` if count is not a non-negative integer.
 */
export function corpus(kind: OpKindName | OpKindTag, count: number, config: Partial<SyncConfig> = {}): CorpusFixture[] {
  if (!Number.isInteger(count) || count < 0) {
    throw new SyncError("BAD_CORPUS_INDEX", `corpus size must be a non-negative integer, got ${String(count)}`, { count });
  }
  return Array.from({ length: count }, (_, i) => corpusRequest(kind, i, config));
}
