/**
 * The committed vector of a v3-zk proof (docs/profile-v3.md §11.5): f holds the copies' committed
 * halves C at [0, 2^m) (m = k + s − 1; the lanes of each half past `committedUsed` are uniformly
 * random, so the input claims are uniform) and, from max(2^m, 2^b), one aligned block of 2^b lanes
 * per layer holding that layer's mask coefficients (4 base lanes each: coordinate t of
 * coefficient c at lane 4c + t); f has 2^(m_z) values, the least power of two that holds them.
 */
import { EXT_ZERO, extMul, type Ext } from "../../field/extension.js";
import { maskCoefficientCount, maskCoefficients, type ZkLayerMasks } from "../../gkr/zk/masks.js";
import type { ZkMaskClaim } from "../../gkr/zk/proof.js";
import type { WhirAnyClaim, WhirBlockClaim, WhirClaim } from "../../pcs/types.js";
import { SyncError } from "../../statement/errors.js";
import type { V3Layout } from "../../smt/v3/layout.js";

/** Where the parts of f lie. */
export interface V3ZkVectorLayout {
  /** Variables of C (the committed halves of the K copies). */
  readonly committedBits: number;
  /** b: each layer's mask block has 2^b lanes. */
  readonly blockBits: number;
  /** Variables of f (m_z). */
  readonly vectorBits: number;
  /** Lane of layer 0's mask block (max(2^m, 2^b)). */
  readonly maskOffset: number;
  /** Lanes of each copy's committed half that the circuit reads (the rest are random). */
  readonly committedUsed: number;
  readonly half: number;
}

function bitsFor(n: number): number {
  let b = 0;
  while (2 ** b < n) b++;
  return b;
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
  const blockBits = bitsFor(4 * Math.max(...layerInputBits.map((s) => maskCoefficientCount(s + k))));
  const maskOffset = 2 ** Math.max(m, blockBits);
  const vectorBits = bitsFor(maskOffset + layerInputBits.length * 2 ** blockBits);
  return {
    committedBits: m,
    blockBits,
    vectorBits,
    maskOffset,
    committedUsed: layout.committedUsed,
    half: layout.half,
  };
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

/** f: the committed halves, then the masks' blocks. */
export function v3ZkVector(z: V3ZkVectorLayout, committed: Uint32Array, masks: readonly ZkLayerMasks[]): Uint32Array {
  const f = new Uint32Array(2 ** z.vectorBits);
  f.set(committed, 0);
  masks.forEach((m, i) => {
    const at = z.maskOffset + i * 2 ** z.blockBits;
    maskCoefficients(m).forEach((c, j) => {
      f.set(c, at + 4 * j);
    });
  });
  return f;
}

const BASIS: readonly Ext[] = [
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 0, 0, 1],
];

/** A layer's mask claim as a block claim on f: weight w_c·X^t on lane 4c + t of its block. */
export function maskBlockClaim(z: V3ZkVectorLayout, claim: ZkMaskClaim): WhirBlockClaim {
  const weights: Ext[] = new Array(2 ** z.blockBits).fill(EXT_ZERO);
  claim.weights.forEach((w, c) => {
    for (let t = 0; t < 4; t++) weights[4 * c + t] = extMul(w, BASIS[t]!);
  });
  return { block: { offset: z.maskOffset + claim.layer * 2 ** z.blockBits, weights }, value: claim.value };
}

/** The claims of an opening: the input claims on C (points extended by zeros to f's variables), then the masks' blocks. */
export function v3ZkClaims(
  z: V3ZkVectorLayout,
  inputClaims: readonly WhirClaim[],
  masks: readonly ZkMaskClaim[],
): WhirAnyClaim[] {
  const pad: Ext[] = new Array(z.vectorBits - z.committedBits).fill(EXT_ZERO);
  return [
    ...inputClaims.map((c) => ({ point: [...c.point, ...pad], value: c.value })),
    ...masks.map((m) => maskBlockClaim(z, m)),
  ];
}
