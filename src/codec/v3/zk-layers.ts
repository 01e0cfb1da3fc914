/**
 * The zero-knowledge GKR layers of inner-proof-v3zk (docs/profile-v3.md §11.9): the u32 layer
 * count, then per layer a u32 round count 2·n_x (even, 4 ≤ 2·n_x ≤ 60), G_i, the round
 * polynomials with exactly δ_j + 1 coefficients each (the degrees of `zkRoundDegrees(n_x)`: the
 * round count fixes every length), V̇(x*), V̇(y*), ν_i — all as ef (16 bytes).
 */
import type { Ext } from "../../field/extension.js";
import { zkRoundDegrees } from "../../gkr/zk/masks.js";
import type { ZkGkrProof, ZkLayerProof } from "../../gkr/zk/proof.js";
import type { ByteReader } from "../reader.js";
import type { ByteWriter } from "../writer.js";
import type { LayerDecodeCode, LayerEncodeCode } from "../v2/layers.js";

/** Fewest and most rounds of a zero-knowledge layer (2·n_x with 2 ≤ n_x ≤ 30). */
export const ZK_MIN_ROUNDS = 4;
export const ZK_MAX_ROUNDS = 60;
/** Bytes of a layer without its rounds: the round count, G, V̇(x*), V̇(y*), ν. */
const LAYER_FIXED_BYTES = 4 + 4 * 16;

/** Ext elements of a layer's rounds: Σ_j (δ_j + 1). */
function roundElements(roundCount: number): number {
  return zkRoundDegrees(roundCount / 2).reduce((a, d) => a + d + 1, 0);
}

function roundCountOk(m: number): boolean {
  return Number.isInteger(m) && m % 2 === 0 && m >= ZK_MIN_ROUNDS && m <= ZK_MAX_ROUNDS;
}

/** Bytes of the layer section. */
export function zkLayersSize(proof: ZkGkrProof): number {
  let n = 4;
  for (const l of proof.layers) n += LAYER_FIXED_BYTES + 16 * roundElements(l.rounds.length);
  return n;
}

/** Checks the layers' shapes before anything is written; `fail` throws. */
export function checkZkLayers(
  proof: ZkGkrProof,
  fail: (code: LayerEncodeCode, message: string, details: Record<string, unknown>) => never,
): void {
  proof.layers.forEach((l, li) => {
    const m = l.rounds.length;
    if (!roundCountOk(m))
      fail(
        "BadRoundCount",
        `layer ${li}: ${m} round polynomials, must be even in [${ZK_MIN_ROUNDS}, ${ZK_MAX_ROUNDS}]`,
        {
          layer: li,
        },
      );
    const degrees = zkRoundDegrees(m / 2);
    l.rounds.forEach((r, ri) => {
      if (r.length !== degrees[ri]! + 1)
        fail("BadRoundPolyArity", `layer ${li} round ${ri}: ${r.length} coefficients, must be ${degrees[ri]! + 1}`, {
          layer: li,
          round: ri,
          got: r.length,
        });
    });
  });
}

/** Writes the layer section at the writer's position (field elements checked canonical by the writer). */
export function writeZkLayers(w: ByteWriter, proof: ZkGkrProof): void {
  w.u32(proof.layers.length);
  for (const l of proof.layers) {
    w.u32(l.rounds.length);
    w.ext(l.maskSum);
    for (const r of l.rounds) for (const c of r) w.ext(c);
    w.ext(l.evalX);
    w.ext(l.evalY);
    w.ext(l.maskValue);
  }
}

/**
 * Reads the layer section at the reader's position: the layer count with that many layers' fixed
 * bytes left (`OversizedCount`), per layer the round count (odd or outside [4, 60] →
 * `BadRoundCount`; more than the bytes left → `OversizedCount`) and canonical elements.
 */
export function readZkLayers(
  r: ByteReader,
  fail: (code: LayerDecodeCode, message: string, details: Record<string, unknown>) => never,
): ZkLayerProof[] {
  const nAt = r.pos;
  const n = r.u32();
  if (n * LAYER_FIXED_BYTES > r.remaining())
    fail(
      "OversizedCount",
      `layer count ${n} at offset ${nAt} needs at least ${n * LAYER_FIXED_BYTES} bytes, only ${r.remaining()} remain`,
      { offset: nAt, count: n },
    );
  const layers: ZkLayerProof[] = new Array(n);
  for (let l = 0; l < n; l++) {
    const mAt = r.pos;
    const m = r.u32();
    if (!roundCountOk(m))
      fail(
        "BadRoundCount",
        `layer ${l}: round count ${m} at offset ${mAt} is not even in [${ZK_MIN_ROUNDS}, ${ZK_MAX_ROUNDS}]`,
        { layer: l, offset: mAt },
      );
    const need = 16 * (roundElements(m) + 4);
    if (need > r.remaining())
      fail("OversizedCount", `round count ${m} at offset ${mAt} needs ${need} bytes, only ${r.remaining()} remain`, {
        offset: mAt,
        count: m,
      });
    const maskSum = r.ef();
    const rounds: Ext[][] = zkRoundDegrees(m / 2).map((d) => Array.from({ length: d + 1 }, () => r.ef()));
    const evalX = r.ef();
    const evalY = r.ef();
    const maskValue = r.ef();
    layers[l] = { maskSum, rounds, evalX, evalY, maskValue };
  }
  return layers;
}
