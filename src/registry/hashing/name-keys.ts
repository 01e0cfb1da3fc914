/**
 * The tree keys of many names at once (`nameKey` of name-key.ts, batched): every name's UTF-8
 * bytes checked as `nameBytes` checks them, packed, and hashed with Keccak-256 in one call of the
 * WASM kernel (kernels/keccak-batch.ts); key i is the first `depth` bits of name i's digest.
 */
import { KeccakBatch } from "../../kernels/keccak-batch.js";
import { nameBytes } from "../mapping.js";
import { keyOfDigest } from "../name-key.js";

let keccak: KeccakBatch | undefined;

/**
 * Keys of `names` at `depth` (1..48), in order; the same numbers `nameKey` gives one by one.
 * @throws RegistryError `BAD_NAME` (a name without a record name's form).
 */
export function nameKeys(names: readonly string[], depth: number): Float64Array {
  const parts = names.map(nameBytes);
  const offsets = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  const bytes = new Uint8Array(offsets[parts.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return keysOfPacked(bytes, offsets, parts.length, depth);
}

/**
 * `nameKeys` of names whose bytes were already checked (`nameBytes` accepted each of them): the
 * names encoded side by side into one buffer, without a buffer per name nor the checks again.
 * Names `nameBytes` refuses get keys of their UTF-8 bytes with lone surrogates replaced, never an
 * error: give only checked names.
 */
export function checkedNameKeys(names: readonly string[], depth: number): Float64Array {
  let room = 0;
  for (const n of names) room += 3 * n.length; // UTF-8 takes at most 3 bytes per UTF-16 unit
  const bytes = new Uint8Array(room);
  const offsets = new Uint32Array(names.length + 1);
  let at = 0;
  for (let i = 0; i < names.length; i++) {
    at += utf8.encodeInto(names[i]!, bytes.subarray(at)).written;
    offsets[i + 1] = at;
  }
  return keysOfPacked(bytes, offsets, names.length, depth);
}

const utf8 = new TextEncoder();

/** Keys at `depth` of `count` names packed in `bytes` (name i at offsets[i]..offsets[i + 1]), hashed in one kernel call. */
function keysOfPacked(bytes: Uint8Array, offsets: Uint32Array, count: number, depth: number): Float64Array {
  keccak ??= new KeccakBatch();
  return keysOfDigests(keccak.hashPacked(bytes, offsets, count), count, depth);
}

/** Keys at `depth` of `count` names' Keccak-256 digests (32 bytes each, packed). */
export function keysOfDigests(digests: Uint8Array, count: number, depth: number): Float64Array {
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = keyOfDigest(digests, depth, 32 * i);
  return keys;
}

/** Merges the first `n` keys of the ascending `a` with the ascending `b` (a key in both is kept twice). */
export function mergeKeys(a: Float64Array, n: number, b: Float64Array): Float64Array {
  const out = new Float64Array(n + b.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < n && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < n) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
