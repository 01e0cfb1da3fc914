/**
 * What the masked opening's prover and verifier compute alike (docs/pcs.md §12.4): h's values
 * from f′'s and g′'s, and the claims about f as claims about h.
 */
import type { Ext } from "../field/extension.js";
import { add, mul } from "../field/koalabear.js";
import { isBlockClaim, isBoundBlocksClaim } from "./checks.js";
import type { WhirAnyClaim } from "./types.js";

/** ρ·x + g for base-field x and extension g, interleaved (h's table from f′'s and g′'s), written to `out` (4·|f| words, every one written). */
export function combineMasked(
  rho: Ext,
  f: ArrayLike<number>,
  g: ArrayLike<number>,
  out: Uint32Array = new Uint32Array(4 * f.length),
): Uint32Array {
  const r0 = rho[0],
    r1 = rho[1],
    r2 = rho[2],
    r3 = rho[3];
  for (let i = 0; i < f.length; i++) {
    const x = f[i]!;
    const o = 4 * i;
    out[o] = add(mul(r0, x), g[o]!);
    out[o + 1] = add(mul(r1, x), g[o + 1]!);
    out[o + 2] = add(mul(r2, x), g[o + 2]!);
    out[o + 3] = add(mul(r3, x), g[o + 3]!);
  }
  return out;
}

/** The claims about f as claims about f′ (or h) of m + 1 variables: a point gains Y = 0, blocks are the same lanes. */
export function extendClaims(claims: readonly WhirAnyClaim[], values: readonly Ext[]): WhirAnyClaim[] {
  return claims.map((c, i) =>
    isBoundBlocksClaim(c)
      ? { blocks: c.blocks, value: values[i]! }
      : isBlockClaim(c)
        ? { block: c.block, value: values[i]! }
        : { point: [...c.point, [0, 0, 0, 0] as Ext], value: values[i]! },
  );
}
