/**
 * Bulk leaf hashing: the leaf digests h_leaf(recordLeaf(name, value)) of a packed batch of
 * records, computed with batched Keccak-256 (identities and text digests) and a batched
 * Poseidon2 sponge over the fold pre-images (compat-v1 §6.1–6.2). Equal to `hashLeaf(recordLeaf(…))`
 * record by record (differential test in test/registry/leaf-hasher.test.ts).
 *
 * Records must already be valid (names/values checked, encodings within the bound).
 */
import { RATE, WIDTH } from "../../hash/poseidon2.js";
import { foldWidth, IDENTITY_LIMBS, limbsInto, writeFoldedLeaf, type Leaf } from "../../smt/leaf.js";
import { KeccakBatch } from "../../kernels/keccak-batch.js";
import { ValueCode, ValueForm, textCode } from "../mapping.js";
import type { PackedRecords } from "./packed.js";
import type { BatchPermutation } from "./permutation.js";

/**
 * Leaf digests of packed record batches (record → leaf mapping, docs/registry.md): Keccak-256 identities and Poseidon2 leaf hashes, 8 words per record, with a batched permutation (WASM or TypeScript).
 * @throws RegistryError `VALUE_TOO_LARGE` for a record whose leaf exceeds the bound.
 */
export class LeafHasher {
  readonly leafMaxFields: number;
  private readonly perm: BatchPermutation;
  private readonly keccak = new KeccakBatch();
  private readonly width: number;

  /** @param leafMaxFields registry leaf bound B. @param perm the batched permutation to use. */
  constructor(leafMaxFields: number, perm: BatchPermutation) {
    this.leafMaxFields = leafMaxFields;
    this.perm = perm;
    this.width = foldWidth(leafMaxFields);
  }

  /** Keccak-256 of the names of the last batch hashed (32 bytes each): the identities, and the source of name keys. */
  identities: Uint8Array = new Uint8Array(0);

  /** Leaf digests of the batch: 8 words per record, record i at [8i, 8i + 8). */
  hash(p: PackedRecords): Uint32Array {
    const n = p.count;
    const ids = this.keccak.hashRanges(p.names, pairsOf(p.nameOffsets, n), n);
    this.identities = ids;
    let texts = 0;
    for (let i = 0; i < n; i++) if (p.forms[i] === ValueForm.Text) texts++;
    const textRanges = new Uint32Array(2 * texts);
    for (let i = 0, t = 0; i < n; i++) {
      if (p.forms[i] !== ValueForm.Text) continue;
      textRanges[2 * t] = p.valueOffsets[i]!;
      textRanges[2 * t + 1] = p.valueOffsets[i + 1]!;
      t++;
    }
    const textDigests = this.keccak.hashRanges(p.values, textRanges, texts);

    // Fold pre-images: [tag = 1, length, payload…, identity limbs…, 0…].
    const lw = this.width;
    const pre = new Uint32Array(lw * n);
    const fieldView = new DataView(p.values.buffer, p.values.byteOffset, p.values.byteLength);
    for (let i = 0, t = 0; i < n; i++) {
      const base = lw * i;
      let at = base + 2;
      const form = p.forms[i]!;
      if (form === ValueForm.Null) {
        pre[at++] = ValueCode.Null;
      } else if (form === ValueForm.Text) {
        pre[at++] = textCode(p.values, p.valueOffsets[i]!, p.valueOffsets[i + 1]!);
        limbsInto(textDigests, 32 * t, pre, at);
        at += IDENTITY_LIMBS;
        t++;
      } else {
        pre[at++] = ValueCode.Fields;
        for (let o = p.valueOffsets[i]!; o < p.valueOffsets[i + 1]!; o += 4) pre[at++] = fieldView.getUint32(o, true);
      }
      limbsInto(ids, 32 * i, pre, at);
      at += IDENTITY_LIMBS;
      pre[base] = 1;
      pre[base + 1] = at - base - 1;
    }

    return this.sponges(pre, n);
  }

  /**
   * Leaf digests of leaves already built (a verified block's new leaves: no Keccak-256 here, their
   * identities are in them), 8 words each, leaf i at [8i, 8i + 8): `hashLeaf(leaf, B)` of each
   * (differential test in test/registry/leaf-hasher.test.ts).
   * @throws as `writeFoldedLeaf` (a leaf whose encoding exceeds the bound, a malformed leaf).
   */
  hashLeaves(leaves: readonly Leaf[]): Uint32Array {
    const n = leaves.length;
    const lw = this.width;
    const pre = new Uint32Array(lw * n);
    for (let i = 0; i < n; i++) writeFoldedLeaf(pre, lw * i, leaves[i]!, this.leafMaxFields);
    return this.sponges(pre, n);
  }

  /** Padding-free sponge, overwrite absorption of Lw/8 full blocks, of n fold pre-images of Lw lanes back to back. */
  private sponges(pre: Uint32Array, n: number): Uint32Array {
    const lw = this.width;
    const states = new Uint32Array(WIDTH * n);
    for (let b = 0; b < lw; b += RATE) {
      for (let i = 0; i < n; i++) {
        const from = lw * i + b,
          to = WIDTH * i;
        for (let w = 0; w < RATE; w++) states[to + w] = pre[from + w]!;
      }
      this.perm.permute(states, n);
    }
    const out = new Uint32Array(RATE * n);
    for (let i = 0; i < n; i++) {
      const from = WIDTH * i,
        to = RATE * i;
      for (let w = 0; w < RATE; w++) out[to + w] = states[from + w]!;
    }
    return out;
  }
}

function pairsOf(offsets: Uint32Array, n: number): Uint32Array {
  const r = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    r[2 * i] = offsets[i]!;
    r[2 * i + 1] = offsets[i + 1]!;
  }
  return r;
}
