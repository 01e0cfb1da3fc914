/**
 * The transcript steps prover and verifier share (docs/pcs.md §6), so that both absorb and draw
 * the same values in the same order.
 */
import type { DuplexChallenger } from "../transcript/challenger.js";
import type { Ext } from "../field/extension.js";
import type { WhirParameterSet } from "./params.js";
import type { CommittedWidth, WhirAnyClaim } from "./types.js";
import { isBlockClaim, isBoundBlocksClaim } from "./checks.js";
import { blockLanes, laneWeights } from "./multilinear.js";

/** §6.1: the set's code, m, the width and the root. */
export function absorbCommitment(
  t: DuplexChallenger,
  set: WhirParameterSet,
  m: number,
  width: CommittedWidth,
  root: ArrayLike<number>,
): void {
  t.observe(set.code);
  t.observe(m);
  t.observe(width);
  t.observeDigest(root);
}

/** Draws `count` out-of-domain points (one extension sample each). */
export function drawOodPoints(t: DuplexChallenger, count: number): Ext[] {
  const out: Ext[] = [];
  for (let i = 0; i < count; i++) out.push(t.sampleExt());
  return out;
}

/** Absorbs out-of-domain answers (or any list of extension values) in order. */
export function absorbExts(t: DuplexChallenger, values: readonly Ext[]): void {
  t.observeExtsUnchecked(values);
}

/** §6.2: the number of claims, then each claim's point coordinates (a block claim: b, offset / 2^b, its weights; bound blocks: their count and each one's b and offset / 2^b) and value. */
export function absorbClaims(t: DuplexChallenger, claims: readonly WhirAnyClaim[]): void {
  t.observe(claims.length);
  for (const c of claims) {
    if (isBoundBlocksClaim(c)) {
      // Bound blocks (§4.8): their count, then each block's b and o/2^b; the weights are the transcript's own.
      t.observe(c.blocks.length);
      for (const b of c.blocks) {
        const lanes = blockLanes(b);
        t.observe(Math.log2(lanes));
        t.observe(b.offset / lanes);
      }
    } else if (isBlockClaim(c)) {
      // A block claim (§4.7): log2 of its length, its offset's block index, its weights.
      const lanes = blockLanes(c.block);
      t.observe(Math.log2(lanes));
      t.observe(c.block.offset / lanes);
      absorbExts(t, laneWeights(c.block));
    } else absorbExts(t, c.point);
    t.observeExt(c.value);
  }
}

/** Draws `count` query indices of `bits` bits each and returns them distinct and ascending. */
export function drawQueries(t: DuplexChallenger, count: number, bits: number): number[] {
  const raw: number[] = [];
  for (let i = 0; i < count; i++) raw.push(t.sampleBits(bits));
  return [...new Set(raw)].sort((a, b) => a - b);
}

/** §12.4: a hiding commitment: the set's code, the committed variables n, the layout's width code (5 or 6), the root. */
export function absorbHidingCommitment(
  t: DuplexChallenger,
  set: WhirParameterSet,
  committedVariables: number,
  widthCode: number,
  root: ArrayLike<number>,
): void {
  t.observe(set.code);
  t.observe(committedVariables);
  t.observe(widthCode);
  t.observeDigest(root);
}
