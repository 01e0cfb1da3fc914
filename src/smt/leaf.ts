/**
 * Leaf states, their encoding, the fold pre-image and the leaf hash (compat-v1 §6.1–6.2,
 * leaf_encoding_version 1).
 *
 * encode(Empty) = [0], encode(Tombstone) = [2], encode(Occupied{payload, identity}) =
 * [1] ‖ payload ‖ limbs(identity). h_leaf(leaf) = sponge(fold(encode(leaf))).
 */
import { element, P } from "../field/koalabear.js";
import { sponge, type Digest } from "../hash/digest.js";
import { SmtError } from "./errors.js";

/** Leaf tags (the first element of the encoding and the wire tag of §16.2). */
export const LeafTag = Object.freeze({
  Empty: 0,
  Occupied: 1,
  Tombstone: 2,
} as const);
export type LeafTag = (typeof LeafTag)[keyof typeof LeafTag];
export declare namespace LeafTag {
  type Empty = typeof LeafTag.Empty;
  type Occupied = typeof LeafTag.Occupied;
  type Tombstone = typeof LeafTag.Tombstone;
}

/** A never-written slot. */
export interface EmptyLeaf {
  readonly tag: LeafTag.Empty;
}

/** A live slot: caller-chosen sync state plus an opaque 32-byte identity (a Keccak computed off-circuit). */
export interface OccupiedLeaf {
  readonly tag: LeafTag.Occupied;
  /** sync_state: canonical field elements in [0, p). */
  readonly payload: readonly number[];
  /** Exactly 32 bytes. */
  readonly identity: Uint8Array;
}

/** A deleted slot (distinct from Empty, so a deleted slot never returns to the default subtree). */
export interface TombstoneLeaf {
  readonly tag: LeafTag.Tombstone;
}

/** A leaf of the sparse Merkle tree (compat-v1 §6.1): Empty, Occupied (32-byte identity and a payload of field elements) or Tombstone. */
export type Leaf = EmptyLeaf | OccupiedLeaf | TombstoneLeaf;

/** Default leaf bound B = leaf_max_fields (§6.6): tag + up to 21 sync fields + 9 limbs. */
export const DEFAULT_LEAF_MAX_FIELDS = 31;
/** Smallest accepted leaf bound (tag + 9 identity limbs). */
export const MIN_LEAF_MAX_FIELDS = 10;
/** Largest accepted leaf bound (leaf_max_fields is a u16 in the proof identity, §13.3). */
export const MAX_LEAF_MAX_FIELDS = 0xffff;
/** Number of base-2^30 limbs of a 32-byte identity. */
export const IDENTITY_LIMBS = 9;

/** The Empty leaf (a never-used slot, compat-v1 §6.1). */
export const EMPTY: EmptyLeaf = Object.freeze({ tag: LeafTag.Empty });
/** The Tombstone leaf (a deleted record, compat-v1 §6.1). */
export const TOMBSTONE: TombstoneLeaf = Object.freeze({ tag: LeafTag.Tombstone });

/**
 * An Occupied leaf with a validated, copied payload and identity.
 * @param payload sync_state, canonical field elements.
 * @param identity 32 bytes.
 * @throws FieldError if a payload value is not canonical; SmtError `BAD_LEAF` if identity is not 32 bytes.
 */
export function occupied(payload: ArrayLike<number>, identity: Uint8Array): OccupiedLeaf {
  const p: number[] = [];
  for (let i = 0; i < payload.length; i++) p.push(element(payload[i], `payload[${i}]`));
  return Object.freeze({
    tag: LeafTag.Occupied,
    payload: Object.freeze(p) as readonly number[],
    identity: checkIdentity(identity).slice(),
  });
}

function checkIdentity(identity: unknown): Uint8Array {
  if (!(identity instanceof Uint8Array) || identity.length !== 32) {
    const got = identity instanceof Uint8Array ? `${identity.length} bytes` : typeof identity;
    throw new SmtError("BAD_LEAF", `leaf identity must be a Uint8Array of 32 bytes, got ${got}`);
  }
  return identity;
}

/**
 * limbs(identity): the 32 bytes read as a little-endian 256-bit integer, cut into base-2^30 limbs,
 * least significant first: 8 limbs of 30 bits and a final limb of 16 bits (§6.1). Each limb < 2^30 < p.
 * @throws SmtError `BAD_LEAF` if identity is not 32 bytes.
 */
export function limbs(identity: Uint8Array): number[] {
  writeIdentityLimbs(identity, LIMBS_OUT, 0);
  return Array.from(LIMBS_OUT);
}
const LIMBS_OUT = new Uint32Array(IDENTITY_LIMBS);

/**
 * limbs(identity) written into out[at, at + 9), the identity checked as `limbs` checks it.
 * @throws SmtError `BAD_LEAF` if identity is not 32 bytes.
 */
export function writeIdentityLimbs(identity: Uint8Array, out: Uint32Array, at: number): void {
  limbsInto(checkIdentity(identity), 0, out, at);
}

/**
 * Writes limbs(identity) (compat-v1 §6.1: 32 bytes little-endian, base-2^30 limbs, least
 * significant first) of bytes[at, at + 32) into out[outAt, outAt + 9): the allocation-free form of
 * `limbs`, which calls it (reference: `limbsReference`). Does not validate.
 */
export function limbsInto(bytes: Uint8Array, at: number, out: Uint32Array, outAt: number): void {
  const w = LIMB_WORDS;
  for (let k = 0; k < 8; k++) {
    const o = at + 4 * k;
    w[k] = (bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24)) >>> 0;
  }
  w[8] = 0;
  for (let i = 0; i < IDENTITY_LIMBS; i++) {
    const bit = 30 * i;
    const word = bit >>> 5;
    const shift = bit & 31;
    const lo = w[word]! >>> shift;
    const hi = shift > 2 ? w[word + 1]! << (32 - shift) : 0;
    out[outAt + i] = (lo | hi) & 0x3fffffff;
  }
}
const LIMB_WORDS = new Uint32Array(9);

/** `limbs` bit by bit, straight from the definition (the reference of the word-wise `limbs`). */
export function limbsReference(identity: Uint8Array): number[] {
  checkIdentity(identity);
  const out: number[] = [];
  for (let i = 0; i < IDENTITY_LIMBS; i++) {
    const start = 30 * i;
    const width = Math.min(30, 256 - start);
    let v = 0;
    for (let k = width - 1; k >= 0; k--) {
      const bit = start + k;
      v = v * 2 + ((identity[bit >> 3]! >> (bit & 7)) & 1);
    }
    out.push(v);
  }
  return out;
}

/**
 * encode(leaf) (§6.1): [0], [2], or [1] ‖ payload ‖ limbs(identity). Validates the leaf.
 * @throws SmtError `BAD_LEAF`; FieldError for a non-canonical payload value.
 */
export function encodeLeaf(leaf: Leaf): number[] {
  if (leaf === null || typeof leaf !== "object")
    throw new SmtError("BAD_LEAF", `a leaf must be an object with a tag, got ${String(leaf)}`);
  switch (leaf.tag) {
    case LeafTag.Empty:
      return [0];
    case LeafTag.Tombstone:
      return [2];
    case LeafTag.Occupied: {
      const payload = leaf.payload as unknown;
      if (!Array.isArray(payload) && !(payload instanceof Uint32Array))
        throw new SmtError("BAD_LEAF", "occupied leaf payload must be an array of field elements");
      const enc = [1];
      for (let i = 0; i < payload.length; i++) enc.push(element(payload[i], `payload[${i}]`));
      for (const l of limbs(leaf.identity)) enc.push(l);
      return enc;
    }
    default:
      throw new SmtError(
        "BAD_LEAF",
        `unknown leaf tag ${String((leaf as { tag: unknown }).tag)} (0 Empty, 1 Occupied, 2 Tombstone)`,
      );
  }
}

/**
 * Checks a leaf bound B = leaf_max_fields.
 * @throws SmtError `BAD_LEAF_BOUND` unless B is an integer in [10, 65535].
 */
export function checkLeafBound(leafMaxFields: number): number {
  if (!Number.isInteger(leafMaxFields) || leafMaxFields < MIN_LEAF_MAX_FIELDS || leafMaxFields > MAX_LEAF_MAX_FIELDS) {
    throw new SmtError(
      "BAD_LEAF_BOUND",
      `leaf_max_fields must be an integer in [${MIN_LEAF_MAX_FIELDS}, ${MAX_LEAF_MAX_FIELDS}], got ${leafMaxFields}`,
      { leafMaxFields },
    );
  }
  return leafMaxFields;
}

/** Fold width Lw = ⌈(B + 1)/8⌉·8 (§6.2): 32 for B = 31. Does not validate B. */
export function foldWidth(leafMaxFields: number): number {
  return Math.ceil((leafMaxFields + 1) / 8) * 8;
}

/**
 * fold(encoding) (§6.2): Lw lanes; pre[0] = tag, pre[1] = n (length incl. the tag),
 * lanes 2..n = encoding[1..n−1], all other lanes 0.
 * @param encoding canonical elements, as returned by `encodeLeaf`.
 * @param leafMaxFields bound B (default 31).
 * @throws SmtError `LEAF_ENCODING` if n = 0 or n > B; `BAD_LEAF_BOUND` for a bad B.
 */
export function foldEncoding(encoding: readonly number[], leafMaxFields = DEFAULT_LEAF_MAX_FIELDS): Uint32Array {
  checkLeafBound(leafMaxFields);
  const n = encoding.length;
  if (n < 1 || n > leafMaxFields) {
    throw new SmtError(
      "LEAF_ENCODING",
      `leaf encoding has ${n} fields (tag included); it must have between 1 and leaf_max_fields = ${leafMaxFields}`,
      { length: n, leafMaxFields },
    );
  }
  const pre = new Uint32Array(foldWidth(leafMaxFields));
  pre[0] = encoding[0]!;
  pre[1] = n;
  for (let i = 1; i < n; i++) pre[i + 1] = encoding[i]!;
  return pre;
}

/**
 * fold(encode(leaf)) with bound B written at out[at, at + foldWidth(B)), without the intermediate
 * arrays of `foldLeaf` (its reference: same lanes, same errors in the same order; differential
 * test in test/smt/leaf-fold.test.ts). Lanes past the encoding are not written (zero in a fresh
 * array).
 * @throws as `encodeLeaf` and `foldEncoding` (out may then be partly written).
 */
export function writeFoldedLeaf(out: Uint32Array, at: number, leaf: Leaf, leafMaxFields: number): void {
  if (leaf === null || typeof leaf !== "object")
    throw new SmtError("BAD_LEAF", `a leaf must be an object with a tag, got ${String(leaf)}`);
  let n: number;
  switch (leaf.tag) {
    case LeafTag.Empty:
    case LeafTag.Tombstone:
      checkLeafBound(leafMaxFields);
      out[at] = leaf.tag;
      out[at + 1] = 1;
      return;
    case LeafTag.Occupied: {
      const payload = leaf.payload as unknown;
      if (!Array.isArray(payload) && !(payload instanceof Uint32Array))
        throw new SmtError("BAD_LEAF", "occupied leaf payload must be an array of field elements");
      const m = payload.length;
      for (let i = 0; i < m; i++) {
        const v = (payload as ArrayLike<unknown>)[i];
        out[at + 2 + i] =
          typeof v === "number" && Number.isInteger(v) && v >= 0 && v < P ? v : element(v, `payload[${i}]`);
      }
      writeIdentityLimbs(leaf.identity, out, at + 2 + m);
      n = 1 + m + IDENTITY_LIMBS;
      break;
    }
    default:
      throw new SmtError(
        "BAD_LEAF",
        `unknown leaf tag ${String((leaf as { tag: unknown }).tag)} (0 Empty, 1 Occupied, 2 Tombstone)`,
      );
  }
  checkLeafBound(leafMaxFields);
  if (n > leafMaxFields)
    throw new SmtError(
      "LEAF_ENCODING",
      `leaf encoding has ${n} fields (tag included); it must have between 1 and leaf_max_fields = ${leafMaxFields}`,
      { length: n, leafMaxFields },
    );
  out[at] = LeafTag.Occupied;
  out[at + 1] = n;
}

/** fold(encode(leaf)) with bound B. @throws as `encodeLeaf` and `foldEncoding`. */
export function foldLeaf(leaf: Leaf, leafMaxFields = DEFAULT_LEAF_MAX_FIELDS): Uint32Array {
  return foldEncoding(encodeLeaf(leaf), leafMaxFields);
}

/**
 * h_leaf(leaf) = sponge(fold(encode(leaf))) (§4, §6), a digest of 8 canonical elements.
 * @throws SmtError `LEAF_ENCODING` (encoding longer than B), `BAD_LEAF`, `BAD_LEAF_BOUND`; FieldError.
 */
export function hashLeaf(leaf: Leaf, leafMaxFields = DEFAULT_LEAF_MAX_FIELDS): Digest {
  return sponge(foldLeaf(leaf, leafMaxFields));
}

/** Structural leaf equality (tag, payload values, identity bytes). */
export function leafEquals(a: Leaf, b: Leaf): boolean {
  if (a.tag !== b.tag) return false;
  if (a.tag !== LeafTag.Occupied) return true;
  const o = b as OccupiedLeaf;
  if (a.payload.length !== o.payload.length || a.identity.length !== o.identity.length) return false;
  for (let i = 0; i < a.payload.length; i++) if (a.payload[i] !== o.payload[i]) return false;
  for (let i = 0; i < a.identity.length; i++) if (a.identity[i] !== o.identity[i]) return false;
  return true;
}

/** Short human-readable form, e.g. `Occupied{[42, 5], 0909…09}`. */
export function describeLeaf(leaf: Leaf): string {
  if (leaf.tag === LeafTag.Empty) return "Empty";
  if (leaf.tag === LeafTag.Tombstone) return "Tombstone";
  return `Occupied{[${leaf.payload.join(", ")}], ${Buffer.from(leaf.identity).toString("hex")}}`;
}
