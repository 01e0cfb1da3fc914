/**
 * Wire layout of the profile v2 shallow SMT circuits (docs/profile-v2.md §5.1, §5.3).
 *
 * Permutations: per path t (1 path, 2 for Update), nb = Lw/8 leaf-sponge blocks then d node
 * compressions, P1 = nb + d; permutation p' = t·P1 + j.
 *
 * Input vector, in 8-lane slots:
 *   EXP  slots 0 .. paths·P1 − 1, per path: cap_1 … cap_{nb−1}, acc_0 … acc_{d−1}, root
 *        (slot p' is the value permutation p' must produce: its lanes 8..15 for a non-final sponge
 *        block, lanes 0..7 otherwise);
 *   PRE  slots E + t·nb + c (E = paths·P1): leaf pre-image block c of path t;
 *   SIB  slots E + paths·nb + l: sibling l (shared by both paths);
 *   VAL  one slot: value_digest;
 *   KEY  d lanes after VAL: key bit l.
 *
 * Layers 1..30 (below the output layer): permutation states at 16p', the carried expected values
 * at CARRY + 8p', the lifted level-1 checks at CHECK + k. Output layer: residual of permutation
 * p' lane i at 8p' + i, then the checks.
 */
import { widthBits } from "../../gkr/circuit.js";
import { OpKind } from "../../statement/types.js";
import { foldWidth } from "../leaf.js";
import { checkedRegions } from "./checked-permutations.js";

export interface V2Layout {
  readonly kind: OpKind;
  readonly depth: number;
  readonly leafMaxFields: number;
  readonly foldWidth: number;
  /** Paths: 1, or 2 for Update (old leaf, new leaf). */
  readonly paths: number;
  /** Leaf-sponge blocks per path (Lw/8). */
  readonly spongeBlocks: number;
  /** Permutations per path (nb + d) and in all. */
  readonly perPath: number;
  readonly permutations: number;
  /** First lane of each input region. */
  readonly exp: number;
  readonly pre: number;
  readonly sib: number;
  readonly value: number;
  readonly keyBits: number;
  /** Meaningful input values and input width bits. */
  readonly inputTotal: number;
  readonly inputBits: number;
  /** Inner layers: carried expected values and lifted checks. */
  readonly carry: number;
  readonly check: number;
  /** Level-1 checks: d booleanity, 8 value digest, (1 NonMembership tag). */
  readonly checks: number;
  readonly innerBits: number;
  /** Output layer: 8 residuals per permutation, then the checks. */
  readonly outputCount: number;
  readonly outputBits: number;
  /** Layers in all (1 state layer + 29 permutation layers + 1 residual layer). */
  readonly layers: number;
}

/** The layout of (kind, depth, B); arguments are assumed valid (see `syncConfig`). */
export function v2Layout(kind: OpKind, depth: number, leafMaxFields: number): V2Layout {
  const lw = foldWidth(leafMaxFields);
  const paths = kind === OpKind.Update ? 2 : 1;
  const nb = lw / 8;
  const perPath = nb + depth;
  const permutations = paths * perPath;
  const E = permutations;
  const exp = 0;
  const pre = 8 * E;
  const sib = pre + 8 * paths * nb;
  const value = sib + 8 * depth;
  const keyBits = value + 8;
  const inputTotal = keyBits + depth;
  const checks = depth + 8 + (kind === OpKind.NonMembership ? 1 : 0);
  return {
    kind,
    depth,
    leafMaxFields,
    foldWidth: lw,
    paths,
    spongeBlocks: nb,
    perPath,
    permutations,
    exp,
    pre,
    sib,
    value,
    keyBits,
    inputTotal,
    inputBits: widthBits(inputTotal),
    ...checkedRegions(permutations, checks),
  };
}

/** True iff permutation j of a path (0-based) is a non-final leaf-sponge block (its lanes 8..15 are checked). */
export function checksCapacity(layout: V2Layout, j: number): boolean {
  return j < layout.spongeBlocks - 1;
}
