/**
 * The GKR layers of inner-proof-v2 (docs/profile-v2.md §9), shared by the v2 and v3 codecs: per
 * layer a u32 round count (= 2s, even), s x-round polynomials of 5 ef, s y-round polynomials of
 * 3 ef (a_3 = a_4 = 0 implied), eval_x, eval_y; preceded by the u32 layer count.
 */
import type { Ext } from "../../field/extension.js";
import type { GkrProof, LayerProof, RoundPoly } from "../../gkr/proof.js";
import type { ByteReader } from "../reader.js";
import type { ByteWriter } from "../writer.js";
import { V2_EVALS_BYTES, V2_LAYER_FIXED_BYTES, V2_ROUND_PAIR_BYTES } from "./layout.js";

/** Encoder failure codes the layers can raise. */
export type LayerEncodeCode =
  | "BadRoundCount"
  | "CountOverflow"
  | "BadRoundPolyArity"
  | "NonZeroHighCoefficient"
  | "NonCanonicalFieldElement";
/** Decoder failure codes the layers can raise (besides `Truncated` from the reader). */
export type LayerDecodeCode = "OversizedCount" | "BadRoundCount" | "NonCanonicalFieldElement";

const ZERO: Ext = [0, 0, 0, 0];

function isZero(e: Ext): boolean {
  return e[0] === 0 && e[1] === 0 && e[2] === 0 && e[3] === 0;
}

/** Bytes of the layer section: the count and every layer (36 + 128·s each). */
export function layersSize(proof: GkrProof): number {
  let n = 4;
  for (const l of proof.layers) n += 36 + 64 * l.rounds.length;
  return n;
}

/** Checks the layers' shapes before anything is written; `fail` throws. */
export function checkLayers(
  proof: GkrProof,
  fail: (code: LayerEncodeCode, message: string, details: Record<string, unknown>) => never,
): void {
  proof.layers.forEach((l, li) => {
    const m = l.rounds.length;
    if (m % 2 !== 0) fail("BadRoundCount", `layer ${li}: ${m} round polynomials, must be even (2s)`, { layer: li });
    if (m > 0xffffffff) fail("CountOverflow", `layer ${li}: round count does not fit u32`, { layer: li });
    l.rounds.forEach((r, ri) => {
      if (r.length !== 5)
        fail("BadRoundPolyArity", `layer ${li} round ${ri}: ${r.length} coefficients, must be 5`, {
          layer: li,
          round: ri,
          got: r.length,
        });
      if (ri >= m / 2 && (!isZero(r[3]!) || !isZero(r[4]!)))
        fail("NonZeroHighCoefficient", `layer ${li} round ${ri}: a y round must have a_3 = a_4 = 0`, {
          layer: li,
          round: ri,
        });
    });
  });
}

/** Writes the layer section at the writer's position (field elements checked canonical by the writer). */
export function writeLayers(w: ByteWriter, proof: GkrProof): void {
  w.u32(proof.layers.length);
  for (const l of proof.layers) {
    const m = l.rounds.length;
    w.u32(m);
    l.rounds.forEach((r, ri) => {
      const keep = ri < m / 2 ? 5 : 3;
      for (let c = 0; c < keep; c++) w.ext(r[c]!);
    });
    w.ext(l.evalX);
    w.ext(l.evalY);
  }
}

/**
 * Reads the layer section at the reader's position: layer count n with n·36 ≤ bytes left
 * (`OversizedCount`), per layer the round count (odd → `BadRoundCount`; more than the bytes left
 * → `OversizedCount`), canonical coefficients and evaluations. Round polynomials come back with 5
 * coefficients.
 */
export function readLayers(
  r: ByteReader,
  fail: (code: LayerDecodeCode, message: string, details: Record<string, unknown>) => never,
): LayerProof[] {
  const nAt = r.pos;
  const n = r.u32();
  if (n * V2_LAYER_FIXED_BYTES > r.remaining())
    fail(
      "OversizedCount",
      `layer count ${n} at offset ${nAt} needs at least ${n * V2_LAYER_FIXED_BYTES} bytes, only ${r.remaining()} remain`,
      { offset: nAt, count: n },
    );
  const layers: LayerProof[] = new Array(n);
  for (let l = 0; l < n; l++) {
    const mAt = r.pos;
    const m = r.u32();
    if (m % 2 !== 0)
      fail("BadRoundCount", `layer ${l}: round count ${m} at offset ${mAt} is odd`, { layer: l, offset: mAt });
    if ((m / 2) * V2_ROUND_PAIR_BYTES + V2_EVALS_BYTES > r.remaining()) {
      fail(
        "OversizedCount",
        `round count ${m} at offset ${mAt} needs at least ${(m / 2) * V2_ROUND_PAIR_BYTES + V2_EVALS_BYTES} bytes, only ${r.remaining()} remain`,
        { offset: mAt, count: m },
      );
    }
    const rounds: RoundPoly[] = new Array(m);
    for (let k = 0; k < m; k++)
      rounds[k] = k < m / 2 ? [r.ef(), r.ef(), r.ef(), r.ef(), r.ef()] : [r.ef(), r.ef(), r.ef(), ZERO, ZERO];
    const evalX = r.ef();
    const evalY = r.ef();
    layers[l] = { rounds, evalX, evalY };
  }
  return layers;
}
