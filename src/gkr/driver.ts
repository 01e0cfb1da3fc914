/**
 * The one GKR prover driver (compat-v1 §10.4): the Fiat–Shamir schedule shared by every prover of
 * this package — the plain and structured layered provers (`proveGkr`) and the data-parallel prover
 * of K copies (`proveCopiesGkr`). The provers differ only in the layer oracle they build.
 *
 * Schedule: z_0 ← s_out(0) × sample_ext (z_0[0] = MSB); incoming ← [(z_0, 1)]; per layer i: the
 * 2s-round sumcheck (x block, then y block), observe_ext(V(x*)), observe_ext(V(y*)), and unless
 * i is the last layer r ← sample_ext(), incoming ← [(x*, 1), (y*, r)].
 */
import { EXT_ONE, type Ext } from "../field/extension.js";
import { proveSumcheck } from "../sumcheck/prover.js";
import type { DuplexChallenger } from "../transcript/challenger.js";
import type { Claim } from "./claims.js";
import type { LayerSumcheckOracle } from "./layer-oracle.js";
import type { GkrProof, InputClaim, LayerProof } from "./proof.js";

/** What the driver reports after each layer (for benchmarks and diagnostics). */
export interface LayerProveStats {
  readonly layerIndex: number;
  /** s_out: width bits of the layer. */
  readonly outputBits: number;
  /** s: width bits of the layer below; the layer's sumcheck has 2s rounds. */
  readonly inputBits: number;
  readonly gates: number;
  /** Bytes of typed arrays the layer oracle allocated. */
  readonly oracleAllocatedBytes: number;
}

/** The result of `proveGkr`: the proof (one sumcheck and two evaluations per layer, compat-v1 §10.4) and the claim it leaves on the input vector's MLE. */
export interface GkrProveResult {
  readonly proof: GkrProof;
  /** MLE(input)(x*) = evalX and MLE(input)(y*) = evalY, for the last layer's x*, y*. */
  readonly inputClaim: InputClaim;
}

/** One layer as a prover hands it to the driver. */
export interface DrivenLayer {
  /** The layer's sumcheck oracle for the incoming claims. */
  readonly oracle: LayerSumcheckOracle;
  /** Width bits of the layer and of the layer below, as the prover's points see them (copies included). */
  readonly outputBits: number;
  readonly inputBits: number;
  /** Gates of the layer (for the stats). */
  readonly gates: number;
  /** Frees the oracle's resources once its sumcheck is done (its evaluations stay readable). */
  readonly dispose?: () => void;
}

/**
 * Runs the schedule over `layerCount` layers: `layerAt(i, claims)` builds layer i's oracle for the
 * incoming claims; `outputBits` is s_out(0) of the points (copies included).
 * @param onLayer called after each layer with its stats.
 */
export function driveGkr(
  layerCount: number,
  outputBits: number,
  transcript: DuplexChallenger,
  layerAt: (i: number, claims: readonly Claim[]) => DrivenLayer,
  onLayer?: (stats: LayerProveStats) => void,
): GkrProveResult {
  const z0: Ext[] = [];
  for (let j = 0; j < outputBits; j++) z0.push(transcript.sampleExt());
  let claims: Claim[] = [{ point: z0, coeff: EXT_ONE }];
  const layers: LayerProof[] = [];
  let inputClaim: InputClaim | null = null;
  for (let i = 0; i < layerCount; i++) {
    const layer = layerAt(i, claims);
    const oracle = layer.oracle;
    let rounds: Ext[][], point: Ext[];
    try {
      ({ rounds, point } = proveSumcheck(oracle, transcript));
    } finally {
      layer.dispose?.();
    }
    const s = layer.inputBits;
    const x = point.slice(0, s);
    const y = point.slice(s);
    const evalX = oracle.evalX();
    const evalY = oracle.evalY();
    transcript.observeExt(evalX);
    transcript.observeExt(evalY);
    layers.push({ rounds, evalX, evalY });
    onLayer?.({
      layerIndex: i,
      outputBits: layer.outputBits,
      inputBits: s,
      gates: layer.gates,
      oracleAllocatedBytes: oracle.allocatedBytes,
    });
    if (i < layerCount - 1) {
      const r = transcript.sampleExt();
      claims = [
        { point: x, coeff: EXT_ONE },
        { point: y, coeff: r },
      ];
    } else {
      inputClaim = { x, evalX, y, evalY };
    }
  }
  return { proof: { layers }, inputClaim: inputClaim! };
}
