/**
 * Wire layout of the profile v3 circuits (docs/profile-v3.md §3): the v2 permutations (§5 of
 * docs/profile-v2.md) over an input vector split in two halves by its top variable.
 *
 * Per copy, with H = 2^(s − 1) (s = input width bits):
 *   committed half [0, H):   EXP (8·P: caps, accumulators, root copies, as v2), SIB (8·d),
 *                            committed pre-images (8·nb: the non-membership leaf, the update's old leaf),
 *                            SEL (update: B − 9 one-hot lanes, lane j ↔ old encoding length 10 + j);
 *   public half [H, 2H):     KEY (d bits), ROOTS (8 per path: the root of path t), public pre-images
 *                            (8·nb: the membership leaf, the update's new leaf), update rule lanes
 *                            (o_tag, tag value, o_record, 9 identity limbs).
 * The verifier builds the public half from the statement; the committed half is the prover's,
 * committed with WHIR before the first challenge and opened at the GKR's two input points.
 */
import { widthBits } from "../../gkr/circuit.js";
import { OpKind } from "../../statement/types.js";
import { IDENTITY_LIMBS, MIN_LEAF_MAX_FIELDS, foldWidth } from "../leaf.js";
import { type CheckedPermutationShape, checkedRegions } from "../v2/checked-permutations.js";

/** The update rule lanes of the public half (offsets from the rule block). */
export const RULE_TAG_FLAG = 0;
export const RULE_TAG_VALUE = 1;
export const RULE_RECORD_FLAG = 2;
export const RULE_IDENTITY = 3;
/** Lanes of the update rule block. */
export const RULE_LANES = 3 + IDENTITY_LIMBS;
/** Shortest Occupied encoding: tag + 9 identity limbs (an empty payload). */
export const MIN_OCCUPIED_LENGTH = MIN_LEAF_MAX_FIELDS;

export interface V3Layout extends CheckedPermutationShape {
  readonly kind: OpKind;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly foldWidth: number;
  readonly paths: number;
  readonly spongeBlocks: number;
  readonly perPath: number;
  readonly permutations: number;
  /** First lane of the public half (H = 2^(inputBits − 1)). */
  readonly half: number;
  // committed half
  readonly exp: number;
  readonly sib: number;
  /** Selector lanes (update: B − 9; else 0) and their first lane. */
  readonly sel: number;
  readonly selCount: number;
  readonly committedUsed: number;
  // public half (lanes of the copy, ≥ half)
  readonly keyBits: number;
  readonly roots: number;
  /** Update rule block (−1 for the other kinds). */
  readonly rule: number;
  /** Meaningful lanes of the public half, counted from `half`. */
  readonly publicUsed: number;
  /** First lane of path t's pre-image (committed or public, per kind). */
  readonly preOf: readonly number[];
  /** True when path t's pre-image is in the public half. */
  readonly prePublic: readonly boolean[];
  readonly inputBits: number;
  readonly carry: number;
  readonly check: number;
  readonly checks: number;
  readonly innerBits: number;
  readonly outputCount: number;
  readonly outputBits: number;
  readonly layers: number;
}

/** Which paths have a public pre-image: the membership leaf and the update's new leaf. */
function publicPaths(kind: OpKind): boolean[] {
  if (kind === OpKind.Membership) return [true];
  if (kind === OpKind.NonMembership) return [false];
  return [false, true];
}

/** Level-1 checks of a kind: root copies (8 per path), then the kind's own (docs/profile-v3.md §4.2). */
function checkCount(kind: OpKind, paths: number, selCount: number): number {
  if (kind === OpKind.Membership) return 8 * paths;
  if (kind === OpKind.NonMembership) return 8 * paths + 1;
  return 8 * paths + 2 + selCount + 2 + IDENTITY_LIMBS;
}

/** The layout of (kind, depth, B); arguments are assumed valid (see `syncConfig`). */
export function v3Layout(kind: OpKind, depth: number, leafMaxFields: number): V3Layout {
  const lw = foldWidth(leafMaxFields);
  const paths = kind === OpKind.Update ? 2 : 1;
  const nb = lw / 8;
  const perPath = nb + depth;
  const permutations = paths * perPath;
  const pub = publicPaths(kind);
  const exp = 0;
  const sib = 8 * permutations;
  let c = sib + 8 * depth;
  const preRel: number[] = [];
  for (let t = 0; t < paths; t++)
    if (!pub[t]) {
      preRel[t] = c;
      c += 8 * nb;
    }
  const selCount = kind === OpKind.Update ? leafMaxFields - (MIN_OCCUPIED_LENGTH - 1) : 0;
  const sel = c;
  c += selCount;
  const committedUsed = c;
  // public half, relative to its start
  const keyRel = 0;
  const rootsRel = depth;
  let q = rootsRel + 8 * paths;
  for (let t = 0; t < paths; t++)
    if (pub[t]) {
      preRel[t] = q;
      q += 8 * nb;
    }
  const ruleRel = kind === OpKind.Update ? q : -1;
  if (kind === OpKind.Update) q += RULE_LANES;
  const publicUsed = q;
  const inputBits = 1 + Math.max(widthBits(committedUsed), widthBits(publicUsed));
  const half = 2 ** (inputBits - 1);
  const checks = checkCount(kind, paths, selCount);
  return {
    kind,
    depth,
    leafMaxFields,
    foldWidth: lw,
    paths,
    spongeBlocks: nb,
    perPath,
    permutations,
    half,
    exp,
    sib,
    sel,
    selCount,
    committedUsed,
    keyBits: half + keyRel,
    roots: half + rootsRel,
    rule: ruleRel < 0 ? -1 : half + ruleRel,
    publicUsed,
    preOf: preRel.map((r, t) => (pub[t] ? half + r : r)),
    prePublic: pub,
    inputBits,
    ...checkedRegions(permutations, checks),
  };
}

/** EXP slot of path t's root copy (the value its last compression must produce). */
export function rootSlot(layout: V3Layout, t: number): number {
  return layout.exp + 8 * (t * layout.perPath + layout.perPath - 1);
}
