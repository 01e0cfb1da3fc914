/**
 * Name → tree key of the name-keyed mapping `record-leaf-v2` (docs/registry.md §"Name-keyed
 * registries").
 *
 * key(name) = the first `depth` bits of Keccak-256(UTF-8 bytes of the name), read most
 * significant bit first: with digest bytes b[0], b[1], … the key is the big-endian integer
 * b[0]·2^56 + b[1]·2^48 + … + b[7] shifted right by 64 − depth. So bit 7 of b[0] is the key's
 * top bit, which is the branch taken at the root (compat-v1 §6.3 walks the key from bit 0 at
 * the leaf to bit depth − 1 below the root). The leaf identity is the same Keccak-256 digest,
 * so key and identity are both functions of the name alone.
 *
 * This file has no database import: the counterparty check (verify-record.ts) uses it.
 */
import { keccak256 } from "../kernels/keccak-batch.js";
import { nameBytes } from "./mapping.js";

/** Mapping id of name-keyed registries (stored in their configuration and in statement.json). */
export const NAME_MAPPING_ID = "record-leaf-v2";
/** Mapping id of slot registries (`MAPPING_ID` of mapping.ts; CLI name `slot-v1`). */
export const SLOT_MAPPING_ID = "record-leaf-v1";
/** Default depth of a name-keyed registry: 4.48 M names collide about 0.04 times at 48 bits. */
export const DEFAULT_NAME_DEPTH = 48;
/** Deepest name-keyed registry (keys stay exact JavaScript numbers). */
export const MAX_NAME_DEPTH = 48;

/**
 * The key of a Keccak-256 digest (32 bytes at digest[at…]) in a tree of this depth, 1..48.
 */
export function keyOfDigest(digest: Uint8Array, depth: number, at = 0): number {
  const hi = ((digest[at]! << 24) | (digest[at + 1]! << 16) | (digest[at + 2]! << 8) | digest[at + 3]!) >>> 0;
  const lo = ((digest[at + 4]! << 8) | digest[at + 5]!) >>> 0;
  // top 48 bits as an exact number, then drop the 48 − depth low bits
  const top48 = hi * 65536 + lo;
  return Math.floor(top48 / 2 ** (48 - depth));
}

/**
 * The tree key of a name (first `depth` bits of Keccak-256(name), most significant first).
 * @throws RegistryError `BAD_NAME`.
 */
export function nameKey(name: string, depth: number): number {
  return keyOfDigest(keccak256(nameBytes(name)), depth);
}

/** Expected number of colliding pairs among n random names at this depth: n(n − 1)/2^(depth + 1). */
export function expectedCollisions(n: number, depth: number): number {
  return (n * (n - 1)) / 2 ** (depth + 1);
}

/** The key of a name at any compat-v1 depth 1..64, as a u64 (the counterparty check). @throws RegistryError `BAD_NAME`. */
export function nameKeyBig(name: string, depth: number): bigint {
  const d = keccak256(nameBytes(name));
  let top = 0n;
  for (let i = 0; i < 8; i++) top = (top << 8n) | BigInt(d[i]!);
  return top >> BigInt(64 - depth);
}
