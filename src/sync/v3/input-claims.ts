/**
 * The GKR input claims of a v3 proof split into the public and the committed half
 * (docs/profile-v3.md §5.3). With the copies' input vector V over (ρ, h, r) — ρ the k copy
 * coordinates, h the top coordinate of a copy, r the other s − 1 (MSB first) —
 *
 *   V(ρ, h, r) = (1 − h)·C(ρ, r) + h·U(ρ, r),
 *
 * C the committed halves' MLE, U the public halves'. The verifier computes U itself, in time
 * linear in the statements (the public half of a copy is supported on its first 2^p lanes, so
 * U(ρ, r) = Π_{i < s−1−p} (1 − r_i) · MLE of the K × 2^p public table at (ρ, r_tail)); the two
 * claims eval_x, eval_y become claims about C at (ρ ‖ r), C = (eval − h·U)/(1 − h), which the WHIR
 * opening proves (its point lists the variables least significant first, so it is (ρ ‖ r)
 * reversed). A point with h = 1 says nothing about C: eval = U is then checked directly.
 */
import { type Ext, EXT_ONE, extEq, extInverse, extMul, extSub } from "../../field/extension.js";
import { widthBits } from "../../gkr/circuit.js";
import { mleEvalCopies } from "../../gkr/mle-copies.js";
import type { InputClaim } from "../../gkr/proof.js";
import type { WhirClaim } from "../../pcs/types.js";
import type { V3Layout } from "../../smt/v3/layout.js";

/** The public halves of K copies as a K × 2^p table (p = bits of `publicUsed`). */
export interface PublicTable {
  readonly copyBits: number;
  readonly sizeBits: number;
  readonly values: Uint32Array;
}

/** Lays the K public halves (`publicUsed` lanes each) into a K × 2^p table. */
export function publicTable(layout: V3Layout, halves: readonly Uint32Array[]): PublicTable {
  const p = widthBits(layout.publicUsed);
  const K = halves.length;
  let k = 0;
  while (2 ** k < K) k++;
  const values = new Uint32Array(2 ** (k + p));
  halves.forEach((h, c) => values.set(h, c * 2 ** p));
  return { copyBits: k, sizeBits: p, values };
}

/** U at one point of the k + s input coordinates (coordinate k, h, is not read). */
export function publicEval(layout: V3Layout, table: PublicTable, point: readonly Ext[]): Ext {
  return publicEvals(layout, table, [point])[0]!;
}

/** U at each point (k + s coordinates each). */
export function publicEvals(layout: V3Layout, table: PublicTable, points: readonly (readonly Ext[])[]): Ext[] {
  const k = table.copyBits,
    p = table.sizeBits,
    s = layout.inputBits;
  const zeroBits = s - 1 - p;
  const inner = points.map((z) => [...z.slice(0, k), ...z.slice(k + 1 + zeroBits)]);
  const evals = mleEvalCopies(table.values, { copyBits: k, copySizeBits: p, used: layout.publicUsed }, inner);
  return points.map((z, q) => {
    let f: Ext = evals[q]!;
    for (let i = 0; i < zeroBits; i++) f = extMul(f, extSub(EXT_ONE, z[k + 1 + i]!));
    return f;
  });
}

/** The WHIR point of C for an input point: (ρ ‖ r) reversed. */
export function committedPoint(copyBits: number, point: readonly Ext[]): Ext[] {
  return [...point.slice(0, copyBits), ...point.slice(copyBits + 1)].reverse();
}

/**
 * The claims about C that the input claim implies, or the name of the claim that fails outright
 * (a point with h = 1 whose eval is not U there).
 */
export function committedClaims(
  copyBits: number,
  claim: InputClaim,
  pubX: Ext,
  pubY: Ext,
): { claims: WhirClaim[] } | { fails: "x" | "y" } {
  const claims: WhirClaim[] = [];
  const pairs: ["x" | "y", readonly Ext[], Ext, Ext][] = [
    ["x", claim.x, claim.evalX, pubX],
    ["y", claim.y, claim.evalY, pubY],
  ];
  for (const [name, point, value, pub] of pairs) {
    const h = point[copyBits]!;
    const oneMinusH = extSub(EXT_ONE, h);
    if (oneMinusH[0] === 0 && oneMinusH[1] === 0 && oneMinusH[2] === 0 && oneMinusH[3] === 0) {
      if (!extEq(value, pub)) return { fails: name };
      continue;
    }
    claims.push({
      point: committedPoint(copyBits, point),
      value: extMul(extSub(value, extMul(h, pub)), extInverse(oneMinusH)),
    });
  }
  return { claims };
}
