/**
 * Golden fixture F(kind, depth, key) (compat-v1 §17): the request the reference engine's golden
 * proofs are made from (§18 uses F(kind, 24, 5)).
 *
 * siblings[l] = eight copies of 13·l + 1. Membership: leaf Occupied{[42, key mod 2^32], 32 × 0x09}.
 * NonMembership: Empty. Update: Occupied{[100], 32 × 0x03} → Tombstone. Roots by compute_root,
 * value_digest = h_leaf(new leaf) (the leaf itself for read-only kinds).
 */
import { P } from "../field/koalabear.js";
import type { Digest } from "../hash/digest.js";
import { syncConfig, type SyncConfig } from "./config.js";
import { OpKind, opKindOf, opKindTag, type OpKindTag, type PublicInputs } from "../statement/types.js";
import { CompileError } from "./errors.js";
import { EMPTY, TOMBSTONE, hashLeaf, occupied, type Leaf } from "./leaf.js";
import type { OpRequest, Operation } from "./operation.js";
import { checkKeyInRange, computeRoot } from "./path.js";

/** F(kind, depth, key): configuration plus the request. */
export interface GoldenFixture extends OpRequest {
  /** depth, leaf_max_fields 31, strategy A. */
  readonly config: SyncConfig;
}

/** siblings[l] = eight copies of 13·l + 1, l = 0..depth−1. */
export function goldenSiblings(depth: number): Digest[] {
  return Array.from({ length: depth }, (_, l) => new Uint32Array(8).fill(13 * l + 1));
}

/**
 * The golden fixture F(kind, depth, key) of §17.
 * @param kind operation kind: a name (`OpKind`) or its §6.4 tag 0/1/2.
 * @param depth 1..64 (default 24).
 * @param key u64 slot below 2^depth (default 5n).
 * @throws CompileError `UNSUPPORTED_CONFIG` or `BAD_KIND`; SmtError `BAD_KEY` or `KEY_OUT_OF_RANGE`.
 */
export function goldenFixture(kindOrTag: OpKind | OpKindTag, depth = 24, key = 5n): GoldenFixture {
  const kind = opKindOf(kindOrTag);
  const config = syncConfig({ depth });
  checkKeyInRange(key, depth);
  const siblings = goldenSiblings(depth);
  const B = config.leafMaxFields;
  let operation: Operation;
  let witnessLeaf: Leaf;
  let newLeaf: Leaf;
  switch (kind) {
    case OpKind.Membership: {
      const leaf = occupied([42, Number((key & 0xffffffffn) % BigInt(P))], new Uint8Array(32).fill(0x09));
      operation = { kind, key, leaf };
      witnessLeaf = newLeaf = leaf;
      break;
    }
    case OpKind.NonMembership:
      operation = { kind, key };
      witnessLeaf = newLeaf = EMPTY;
      break;
    case OpKind.Update: {
      const oldLeaf = occupied([100], new Uint8Array(32).fill(0x03));
      operation = { kind, key, oldLeaf, newLeaf: TOMBSTONE };
      witnessLeaf = oldLeaf;
      newLeaf = TOMBSTONE;
      break;
    }
    default:
      throw new CompileError("BAD_KIND", `operation kind tag must be 0, 1 or 2, got ${String(kind)}`);
  }
  const oldRoot = computeRoot(witnessLeaf, key, siblings, depth, B);
  const newRoot = kind === OpKind.Update ? computeRoot(newLeaf, key, siblings, depth, B) : oldRoot.slice();
  const publicInputs: PublicInputs = {
    oldRoot,
    newRoot,
    opKindTag: opKindTag(kind),
    assetId: key,
    valueDigest: hashLeaf(newLeaf, B),
  };
  return { config, operation, witness: { leaf: witnessLeaf, siblings }, publicInputs };
}
