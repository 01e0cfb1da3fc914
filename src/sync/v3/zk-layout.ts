/**
 * The committed vector of a v3-zk proof (docs/profile-v3.md §11.5): f holds the copies' committed
 * halves C at [0, 2^m) (m = k + s − 1; the lanes of each half past `committedUsed` are uniformly
 * random, so the input claims are uniform) and then every layer's mask coefficients (4 base lanes
 * each: coordinate t of coefficient c at lane 4c + t of the layer's run). A layer's 4·n_i lanes are
 * cut into aligned segments, one per set bit of 4·n_i from the highest (256 + 32 + 8 + 4 for
 * 300 lanes); all layers' segments are placed from max(2^m, the largest segment) in order of
 * decreasing length (ties: layer order, then segment order), each at a multiple of its length; f
 * has 2^(m_z) values, the least power of two that holds them.
 */
import { EXT_ZERO, type Ext } from "../../field/extension.js";
import { maskCoefficientCount, maskCoefficients, type ZkLayerMasks } from "../../gkr/zk/masks.js";
import type { ZkMaskClaim } from "../../gkr/zk/proof.js";
import { whirHidingSchedule } from "../../pcs/hiding-params.js";
import type { WhirParameterSet } from "../../pcs/params.js";
import type { WhirAnyClaim, WhirBoundBlocksClaim, WhirClaim, WhirHidingLayout } from "../../pcs/types.js";
import { SyncError } from "../../statement/errors.js";
import type { V3Layout } from "../../smt/v3/layout.js";

/** One aligned segment of a layer's mask lanes: `lanes` (a power of two) lanes of f from `offset`, holding the layer's lanes from `first`. */
export interface V3ZkMaskSegment {
  readonly offset: number;
  readonly lanes: number;
  readonly first: number;
}

/** Where the parts of f lie. */
export interface V3ZkVectorLayout {
  /** Variables of C (the committed halves of the K copies). */
  readonly committedBits: number;
  /** Variables of f (m_z). */
  readonly vectorBits: number;
  /** Lane of the first (largest) mask segment: max(2^m, the largest segment). */
  readonly maskOffset: number;
  /** Each layer's segments, in the order of its lanes. */
  readonly segments: readonly (readonly V3ZkMaskSegment[])[];
  /** Lanes of each copy's committed half that the circuit reads (the rest are random). */
  readonly committedUsed: number;
  readonly half: number;
  /** The end of the last mask segment: f's values from here to 2^(m_z) are zero and weighed by no claim. */
  readonly contentEnd: number;
}

function bitsFor(n: number): number {
  let b = 0;
  while (2 ** b < n) b++;
  return b;
}

/** The powers of two that sum to n, largest first. */
function binaryParts(n: number): number[] {
  const out: number[] = [];
  for (let b = bitsFor(n + 1); b >= 0; b--) if (n & (1 << b)) out.push(1 << b);
  return out;
}

/**
 * The layout of f for K = 2^k copies of a circuit whose layers read `inputBits` variables (one copy).
 * @throws SyncError `ZK_UNSUPPORTED` when a copy's committed half has fewer than 2 lanes the circuit does not read.
 */
export function v3ZkVectorLayout(layout: V3Layout, layerInputBits: readonly number[], k: number): V3ZkVectorLayout {
  if (layout.half - layout.committedUsed < 2)
    throw new SyncError(
      "ZK_UNSUPPORTED",
      `zero knowledge needs 2 unread lanes in each committed half; this configuration uses ${layout.committedUsed} of ${layout.half}`,
    );
  const m = k + layout.inputBits - 1;
  const parts = layerInputBits.map((s) => binaryParts(4 * maskCoefficientCount(s + k)));
  const order = parts
    .flatMap((ps, layer) => ps.map((lanes, j) => ({ layer, j, lanes })))
    .sort((a, b) => b.lanes - a.lanes || a.layer - b.layer || a.j - b.j);
  const maskOffset = Math.max(2 ** m, order[0]?.lanes ?? 0);
  const offsets = parts.map((ps) => ps.map(() => 0));
  let at = maskOffset;
  for (const o of order) {
    offsets[o.layer]![o.j] = at;
    at += o.lanes;
  }
  const segments = parts.map((ps, layer) => {
    let first = 0;
    return ps.map((lanes, j) => {
      const seg = { offset: offsets[layer]![j]!, lanes, first };
      first += lanes;
      return seg;
    });
  });
  return {
    committedBits: m,
    vectorBits: bitsFor(at),
    maskOffset,
    segments,
    committedUsed: layout.committedUsed,
    half: layout.half,
    contentEnd: at,
  };
}

/**
 * The hiding commitment's layout for f (docs/profile-v3.md §11.5; docs/pcs.md §12.10): "top-block"
 * when the set hides 2^(m_z) values in that layout and τ's top 2^j values lie past the content
 * (no claim weighs them), else "extra-variable". A prover may choose either; this is the default.
 */
export function v3ZkHidingLayout(z: V3ZkVectorLayout, set: WhirParameterSet): WhirHidingLayout {
  let j: number;
  try {
    j = whirHidingSchedule(set, z.vectorBits, "top-block").maskBlockVariables;
  } catch {
    return "extra-variable";
  }
  return z.contentEnd <= 2 ** z.vectorBits - 2 ** j ? "top-block" : "extra-variable";
}

/** Fills the unread lanes of every copy's committed half of `input` (2^s lanes per copy, committed half first) from `random`. */
export function padCommittedHalves(z: V3ZkVectorLayout, input: Uint32Array, random: (out: Uint32Array) => void): void {
  const S = 2 * z.half;
  const pad = new Uint32Array(z.half - z.committedUsed);
  for (let c = 0; c < input.length / S; c++) {
    random(pad);
    input.set(pad, c * S + z.committedUsed);
  }
}

/** f: the committed halves, then the masks' segments. */
export function v3ZkVector(z: V3ZkVectorLayout, committed: Uint32Array, masks: readonly ZkLayerMasks[]): Uint32Array {
  const f = new Uint32Array(2 ** z.vectorBits);
  f.set(committed, 0);
  masks.forEach((m, i) => {
    const lanes = new Uint32Array(4 * maskCoefficients(m).length);
    maskCoefficients(m).forEach((c, j) => lanes.set(c, 4 * j));
    for (const seg of z.segments[i]!) f.set(lanes.subarray(seg.first, seg.first + seg.lanes), seg.offset);
  });
  return f;
}

/**
 * A layer's mask claim on f: weight w_c on the extension element of lanes 4c … 4c + 3 of its run
 * (lane 4c + t weighs w_c·X^t), as bound blocks in extension units (its segments; pcs §4.7–4.8).
 */
export function maskBlocksClaim(z: V3ZkVectorLayout, claim: ZkMaskClaim): WhirBoundBlocksClaim {
  const segs = z.segments[claim.layer]!;
  const total = segs.reduce((a, s) => a + s.lanes, 0) / 4;
  const weights: Ext[] = new Array<Ext>(total).fill(EXT_ZERO);
  for (let c = 0; c < Math.min(total, claim.weights.length); c++) weights[c] = claim.weights[c]!;
  return {
    blocks: segs.map((s) => ({
      offset: s.offset,
      weights: weights.slice(s.first / 4, (s.first + s.lanes) / 4),
      unit: "ext" as const,
    })),
    value: claim.value,
  };
}

/** The claims of an opening: the input claims on C (points extended by zeros to f's variables), then the masks' bound blocks. */
export function v3ZkClaims(
  z: V3ZkVectorLayout,
  inputClaims: readonly WhirClaim[],
  masks: readonly ZkMaskClaim[],
): WhirAnyClaim[] {
  const pad: Ext[] = new Array(z.vectorBits - z.committedBits).fill(EXT_ZERO);
  return [
    ...inputClaims.map((c) => ({ point: [...c.point, ...pad], value: c.value })),
    ...masks.map((m) => maskBlocksClaim(z, m)),
  ];
}
