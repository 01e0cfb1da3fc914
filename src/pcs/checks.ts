/**
 * Shape checks of what callers hand the commitment (docs/pcs.md §1): claims, points and decoded
 * commitments. Each returns a message naming the offending value, or null when the value is
 * well formed; the prover throws it as `PCS_BAD_CLAIM`, the verifier returns it as a verdict.
 */
import { P } from "../field/koalabear.js";
import type { WhirAnyClaim, WhirBlockClaim, WhirBoundBlocksClaim, WhirWeightBlock } from "./types.js";

function isElement(x: unknown): boolean {
  return typeof x === "number" && Number.isInteger(x) && x >= 0 && x < P;
}

/** Whether `e` is a canonical extension element (what `extProblem` accepts), without building a message. */
function isCanonicalExt(e: unknown): boolean {
  if (e === null || typeof e !== "object") return false;
  const a = e as ArrayLike<unknown>;
  return a.length === 4 && isElement(a[0]) && isElement(a[1]) && isElement(a[2]) && isElement(a[3]);
}

/** Why `e` is not a canonical extension element (4 integers in [0, p)), or null. */
export function extProblem(e: unknown, what: string): string | null {
  if (e === null || typeof e !== "object" || typeof (e as ArrayLike<unknown>).length !== "number")
    return `${what} must be an extension element (4 canonical coordinates), got ${String(e)}`;
  const a = e as ArrayLike<unknown>;
  if (a.length !== 4) return `${what} must have 4 coordinates, got ${a.length}`;
  for (let i = 0; i < 4; i++)
    if (!isElement(a[i]))
      return `${what}[${i}] = ${String(a[i])} is not a canonical field element (an integer in [0, p), p = ${P})`;
  return null;
}

/** Why `point` is not a point of K^m, or null. */
export function pointProblem(point: unknown, m: number, what: string): string | null {
  if (!Array.isArray(point)) return `${what} must be an array of ${m} extension elements`;
  if (point.length !== m) return `${what} has ${point.length} coordinates; the polynomial has ${m} variables`;
  for (let j = 0; j < m; j++) if (!isCanonicalExt(point[j])) return extProblem(point[j], `${what}[${j}]`);
  return null;
}

/** Whether a claim (already checked by `claimsProblem`) is a bound-blocks claim: it carries blocks (§4.8). */
export function isBoundBlocksClaim(c: WhirAnyClaim): c is WhirBoundBlocksClaim {
  return (c as { blocks?: unknown }).blocks !== undefined;
}

/** Whether a claim (already checked by `claimsProblem`) is a block claim: it carries a block (§4.7). */
export function isBlockClaim(c: WhirAnyClaim): c is WhirBlockClaim {
  return (c as { block?: unknown }).block !== undefined;
}

/** The weight blocks of a claim (already checked by `claimsProblem`): one for a block claim, the list of a bound-blocks claim, null for a point claim. */
export function claimBlocks(c: WhirAnyClaim): readonly WhirWeightBlock[] | null {
  const x = c as { block?: WhirWeightBlock; blocks?: readonly WhirWeightBlock[] };
  if (x.blocks !== undefined) return x.blocks;
  return x.block !== undefined ? [x.block] : null;
}

/** Most blocks one bound-blocks claim may list. */
export const MAX_CLAIM_BLOCKS = 64;

/** Why `block` is not a block of weights over a polynomial of m variables (docs/pcs.md §4.7), or null. */
export function blockProblem(block: unknown, m: number, where: string, index?: number): string | null {
  const what = index === undefined ? where : `${where}[${index}]`;
  if (block === null || typeof block !== "object") return `${what} must be { offset, weights }`;
  const b = block as { offset?: unknown; weights?: unknown; unit?: unknown };
  if (!Array.isArray(b.weights)) return `${what}.weights must be an array of extension elements`;
  if (b.unit !== undefined && b.unit !== "lane" && b.unit !== "ext")
    return `${what}.unit must be "lane" or "ext", got ${String(b.unit)}`;
  const count = b.weights.length;
  const n = b.unit === "ext" ? 4 * count : count;
  if (count === 0 || (n & (n - 1)) !== 0 || n > 2 ** m)
    return `${what}.weights has ${count} entries over ${n} lanes; a block has 2^b ≤ 2^${m} lanes`;
  if (typeof b.offset !== "number" || !Number.isInteger(b.offset) || b.offset < 0 || b.offset % n !== 0)
    return `${what}.offset must be a multiple of ${n} (the block's length), got ${String(b.offset)}`;
  if (b.offset + n > 2 ** m) return `${what} ends at ${b.offset + n}, past the polynomial's 2^${m} values`;
  for (let i = 0; i < count; i++)
    if (!isCanonicalExt(b.weights[i])) return extProblem(b.weights[i], `${what}.weights[${i}]`);
  return null;
}

/** Why `blocks` is not a list of 1 to MAX_CLAIM_BLOCKS blocks over a polynomial of m variables, or null. */
function blocksProblem(blocks: unknown, m: number, what: string): string | null {
  if (!Array.isArray(blocks)) return `${what} must be an array of { offset, weights }`;
  if (blocks.length === 0 || blocks.length > MAX_CLAIM_BLOCKS)
    return `${what} has ${blocks.length} blocks; a claim lists 1 to ${MAX_CLAIM_BLOCKS}`;
  for (let s = 0; s < blocks.length; s++) {
    const p = blockProblem(blocks[s], m, what, s);
    if (p !== null) return p;
  }
  return null;
}

/** Why `claims` is not a non-empty list of claims (points or blocks) about a polynomial of m variables, or null. */
export function claimsProblem(claims: unknown, m: number): string | null {
  if (!Array.isArray(claims))
    return "claims must be an array of { point, value }, { block, value } or { blocks, value }";
  if (claims.length === 0) return "an opening needs at least one claim";
  for (let i = 0; i < claims.length; i++) {
    const c = claims[i] as { point?: unknown; block?: unknown; blocks?: unknown; value?: unknown } | null;
    if (c === null || typeof c !== "object")
      return `claims[${i}] must be { point, value }, { block, value } or { blocks, value }`;
    const kinds = [c.point, c.block, c.blocks].filter((x) => x !== undefined).length;
    if (kinds > 1) return `claims[${i}] has more than one of point, block and blocks`;
    const shape =
      c.blocks !== undefined
        ? blocksProblem(c.blocks, m, `claims[${i}].blocks`)
        : c.block !== undefined
          ? blockProblem(c.block, m, `claims[${i}].block`)
          : pointProblem(c.point, m, `claims[${i}].point`);
    const p = shape ?? extProblem(c.value, `claims[${i}].value`);
    if (p !== null) return p;
  }
  return null;
}

/** Why `c` is not a decoded commitment (what `decodeWhirCommitment` returns), or null. */
export function commitmentProblem(c: unknown): string | null {
  const hint = "pass the commitment decoded with decodeWhirCommitment";
  if (c === null || typeof c !== "object" || c instanceof Uint8Array) return `not a decoded commitment (${hint})`;
  const x = c as { set?: unknown; numVariables?: unknown; width?: unknown; root?: unknown; oodAnswers?: unknown };
  if (typeof x.set !== "string") return `the commitment has no set name (${hint})`;
  if (typeof x.numVariables !== "number" || !Number.isInteger(x.numVariables))
    return `the commitment's numVariables is not an integer (${hint})`;
  if (x.width !== 1 && x.width !== 4) return `the commitment's width must be 1 or 4 (${hint})`;
  if (!(x.root instanceof Uint32Array) || x.root.length !== 8 || !x.root.every(isElement))
    return `the commitment's root must be 8 canonical field elements (${hint})`;
  if (!Array.isArray(x.oodAnswers)) return `the commitment's oodAnswers must be an array (${hint})`;
  for (let i = 0; i < x.oodAnswers.length; i++) {
    const p = extProblem(x.oodAnswers[i], `commitment.oodAnswers[${i}]`);
    if (p !== null) return p;
  }
  return null;
}
