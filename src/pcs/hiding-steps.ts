/**
 * What the masked opening's prover and verifier compute alike (docs/pcs.md §12.4, §12.10): the
 * claims about f as claims about h, and which claims weigh τ's block in the layout "top-block".
 */
import type { Ext } from "../field/extension.js";
import { claimBlocks, isBlockClaim, isBoundBlocksClaim } from "./checks.js";
import type { WhirAnyClaim, WhirClaim, WhirHidingLayout } from "./types.js";

/**
 * The claims about f as claims about f′ (or h) of n variables, with new values: in the layout
 * "extra-variable" a point gains Y = 0; blocks are the same lanes, and in the layout "top-block"
 * points are unchanged too.
 */
export function extendClaims(
  claims: readonly WhirAnyClaim[],
  values: readonly Ext[],
  layout: WhirHidingLayout,
): WhirAnyClaim[] {
  return claims.map((c, i) =>
    isBoundBlocksClaim(c)
      ? { blocks: c.blocks, value: values[i]! }
      : isBlockClaim(c)
        ? { block: c.block, value: values[i]! }
        : { point: layout === "extra-variable" ? [...c.point, [0, 0, 0, 0] as Ext] : c.point, value: values[i]! },
  );
}

/**
 * Why a claim (already checked by `claimsProblem` for m variables) weighs the top 2^j values of f
 * (τ's block in the layout "top-block", docs/pcs.md §12.10), or null: a point weighs it unless one
 * of its coordinates j … m − 1 is 0 (eq(z, b) holds the factor Π_(i ≥ j) z_i there); a block
 * weighs it when it ends past 2^m − 2^j.
 */
export function maskBlockProblem(claims: readonly WhirAnyClaim[], m: number, j: number): string | null {
  const start = 2 ** m - 2 ** j;
  for (let i = 0; i < claims.length; i++) {
    const c = claims[i]!;
    const blocks = claimBlocks(c);
    if (blocks !== null) {
      for (const b of blocks) {
        const end = b.offset + (b.unit === "ext" ? 4 : 1) * b.weights.length;
        if (end > start)
          return `claims[${i}] weighs values up to ${end}, inside the top 2^${j} values (from ${start}) that hold the commitment's mask`;
      }
    } else {
      const point = (c as WhirClaim).point;
      let zero = false;
      for (let v = j; v < m && !zero; v++) zero = point[v]!.every((x) => x === 0);
      if (!zero)
        return `claims[${i}].point has no zero coordinate among ${j} … ${m - 1}: it weighs the top 2^${j} values that hold the commitment's mask`;
    }
  }
  return null;
}
