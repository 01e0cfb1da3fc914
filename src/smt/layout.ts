/**
 * Input layout of the compiled SMT circuits (compat-v1 §9.1), W = 8 lanes per digest.
 *
 * | Segment | Membership / NonMembership | Update |
 * |---|---|---|
 * | leaf_pre (Lw) | 0 | 0 |
 * | leaf_pre2 (Lw) | — | Lw |
 * | acc_0..acc_d | Lw | 2Lw |
 * | acc2_0..acc2_d | — | 2Lw + 8(d+1) |
 * | siblings | Lw + 8(d+1) | 2Lw + 16(d+1) |
 * | key bits | Lw + 8(2d+1) | 2Lw + 8(3d+2) |
 * | root, (root2), value_digest | after the key bits, 8 each | |
 */
import { OpKind } from "../statement/types.js";
import { foldWidth } from "./leaf.js";

/** Offsets (in field elements) of each input segment; −1 where the segment does not exist. */
export interface InputLayout {
  readonly kind: OpKind;
  readonly depth: number;
  /** Fold width Lw. */
  readonly foldWidth: number;
  readonly leafPre: number;
  readonly leafPre2: number;
  /** acc_l lane i is at acc + 8l + i, l = 0..d. */
  readonly acc: number;
  readonly acc2: number;
  /** sibling l lane i is at siblings + 8l + i. */
  readonly siblings: number;
  /** key bit l is at keyBits + l. */
  readonly keyBits: number;
  readonly root: number;
  readonly root2: number;
  readonly valueDigest: number;
  /** Number of meaningful input values: Lw + 17d + 24, Update 2Lw + 25d + 40. */
  readonly total: number;
}

/** The §9.1 layout for (kind, depth, B). Arguments are assumed valid (see `syncConfig`). */
export function inputLayout(kind: OpKind, depth: number, leafMaxFields: number): InputLayout {
  const lw = foldWidth(leafMaxFields);
  const d = depth;
  if (kind === OpKind.Update) {
    const keyBits = 2 * lw + 8 * (3 * d + 2);
    const root = keyBits + d;
    return {
      kind,
      depth,
      foldWidth: lw,
      leafPre: 0,
      leafPre2: lw,
      acc: 2 * lw,
      acc2: 2 * lw + 8 * (d + 1),
      siblings: 2 * lw + 16 * (d + 1),
      keyBits,
      root,
      root2: root + 8,
      valueDigest: root + 16,
      total: root + 24,
    };
  }
  const keyBits = lw + 8 * (2 * d + 1);
  const root = keyBits + d;
  return {
    kind,
    depth,
    foldWidth: lw,
    leafPre: 0,
    leafPre2: -1,
    acc: lw,
    acc2: -1,
    siblings: lw + 8 * (d + 1),
    keyBits,
    root,
    root2: -1,
    valueDigest: root + 8,
    total: root + 16,
  };
}
