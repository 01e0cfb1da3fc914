/**
 * Prover side of the structured linear family (docs/profile-v2.md §4.3): the Libra two-phase
 * oracle of src/gkr/sparse-oracle.ts with the groups' terms added to its booking tables.
 *
 * For a block with output base o, input base i and map M, the gates' weights are
 * w[o + z] (z < 2^b); the phase-1 tables need, per input lane x, Σ_z M[z][x]·w[o + z] = (Mᵀ·w_o)[x],
 * added to the lin table (or to the pow table when lane x is cubed) at i + x. Mᵀ is applied with
 * the map's factored program on each of the four coordinate planes, so a block costs its map's
 * terms (O(inputs)) instead of 2^(2b) gate visits. Phase 2 reuses the same vectors:
 * L* += Σ_x (Mᵀ·w_o)[x]·eq(x*, i + x) over the linear lanes, P* likewise over the cubed lanes.
 */
import { P } from "../../field/koalabear.js";
import type { DuplexChallenger } from "../../transcript/challenger.js";
import { extMulAddTo } from "../../field/ext-inline.js";
import type { LayerOracleFactory, LayerOracleInput } from "../layer-oracle.js";
import { type GkrProveResult, type ProveGkrOptions, proveGkr } from "../prover.js";
import { SparseLayerOracle, type SparseOracleExtension } from "../sparse-oracle.js";
import { KernelError } from "../../kernels/errors.js";
import { type GkrKernels, gkrKernels } from "../wasm/kernels.js";
import { WasmLayerOracle } from "../wasm/oracle.js";
import { type WasmGroupsOptions, WasmLinearGroups, hasGroupKernels } from "./booking-wasm.js";
import {
  type LinearBlockGroup,
  type StructuredCircuit,
  type StructuredLayer,
  isCubedLane,
  validateStructuredCircuit,
} from "./linear.js";

/** The booking terms of a layer's linear groups. */
export class LinearGroupsExtension implements SparseOracleExtension {
  readonly hasPow: boolean;
  private readonly groups: readonly LinearBlockGroup[];
  /** Per group: (Mᵀ·w_o) of every block, plane c of block b lane x at ((b·4 + c)·lanes + x). */
  private transposed: Uint32Array[] = [];

  constructor(groups: readonly LinearBlockGroup[]) {
    this.groups = groups;
    this.hasPow = groups.some((g) => g.cubeMask !== 0 && g.outBase.length > 0);
  }

  /** Bytes of the cached transposed weights. */
  get allocatedBytes(): number {
    return this.transposed.reduce((a, t) => a + t.byteLength, 0);
  }

  addPhase1(lin: Uint32Array, pow: Uint32Array | null, n: number, w: Uint32Array, W: number): void {
    const wb = new Uint32Array(16);
    const tb = new Uint32Array(16);
    this.transposed = this.groups.map((g) => {
      const lanes = 2 ** g.map.laneBits;
      const nb = g.outBase.length;
      const cache = new Uint32Array(nb * 4 * lanes);
      for (let b = 0; b < nb; b++) {
        const ob = g.outBase[b]!,
          ib = g.inBase[b]!;
        for (let c = 0; c < 4; c++) {
          const wo = c * W + ob;
          for (let z = 0; z < lanes; z++) wb[z] = w[wo + z]!;
          g.map.applyTranspose(wb, tb);
          const co = (b * 4 + c) * lanes;
          const to = c * n + ib;
          for (let x = 0; x < lanes; x++) {
            const t = tb[x]!;
            cache[co + x] = t;
            const dst = isCubedLane(g, x) ? pow! : lin;
            dst[to + x] = (dst[to + x]! + t) % P;
          }
        }
      }
      return cache;
    });
  }

  addPhase2(eqx: Uint32Array, n: number, _w: Uint32Array, _W: number, linAcc: Uint32Array, powAcc: Uint32Array): void {
    const n2 = 2 * n,
      n3 = 3 * n;
    this.groups.forEach((g, k) => {
      const lanes = 2 ** g.map.laneBits;
      const cache = this.transposed[k]!;
      for (let b = 0; b < g.outBase.length; b++) {
        const ib = g.inBase[b]!;
        const co = b * 4 * lanes;
        for (let x = 0; x < lanes; x++) {
          const e = ib + x;
          extMulAddTo(
            isCubedLane(g, x) ? powAcc : linAcc,
            0,
            1,
            cache[co + x]!,
            cache[co + lanes + x]!,
            cache[co + 2 * lanes + x]!,
            cache[co + 3 * lanes + x]!,
            eqx[e]!,
            eqx[n + e]!,
            eqx[n2 + e]!,
            eqx[n3 + e]!,
          );
        }
      }
    });
    this.transposed = [];
  }
}

/**
 * Layer oracle factory for structured circuits: the sparse oracle plus the layer's linear groups.
 * A layer without groups gets the plain sparse oracle (identical to compat-v1's).
 */
export const structuredLayerOracle: LayerOracleFactory = (input: LayerOracleInput) => {
  const groups = (input.layer as Partial<StructuredLayer>).linear;
  if (!groups || groups.length === 0) return new SparseLayerOracle(input);
  return new SparseLayerOracle(input, new LinearGroupsExtension(groups));
};

/** Where the WASM oracle books the groups: `"wasm"` (the group kernels) or `"typescript"` (`LinearGroupsExtension`). */
export type GroupBooking = "wasm" | "typescript";

/**
 * The same oracle on the WASM kernels (`WasmLayerOracle` with the groups' booking terms added to
 * its tables); identical round polynomials (differential tests in test/gkr/structured-wasm.test.ts
 * and test/gkr/structured-booking.test.ts).
 * @param booking default `"wasm"` when the module has the group kernels (`hasGroupKernels`),
 *   else `"typescript"`.
 * @throws KernelError `MODULE_MISSING` for `"wasm"` when the module lacks the group kernels.
 */
export function structuredWasmLayerOracleFactory(
  kernels: GkrKernels,
  booking: GroupBooking = hasGroupKernels(kernels) ? "wasm" : "typescript",
  options: StructuredWasmOptions = {},
): LayerOracleFactory {
  if (booking === "wasm" && !hasGroupKernels(kernels))
    throw new KernelError(
      "MODULE_MISSING",
      "the kernel module lacks the group booking kernels (gkr_group_*); run `npm run build:kernels`",
    );
  return (input: LayerOracleInput) => {
    const groups = (input.layer as Partial<StructuredLayer>).linear;
    if (!groups || groups.length === 0) return new WasmLayerOracle(kernels, input);
    return new WasmLayerOracle(
      kernels,
      input,
      booking === "wasm"
        ? new WasmLinearGroups(kernels, groups, input.layer, input.claims.length, options)
        : new LinearGroupsExtension(groups),
    );
  };
}

/**
 * Options of `structuredWasmLayerOracleFactory` with WASM booking: `laneRounds` runs the phase-1
 * rounds of layers whose cubed inputs are all ≡ 0 mod 16 (the internal Poseidon2 rounds) on
 * `gkr_round_lane0`, `tensorWeights` the claim weights on `gkr_weights_tensor` (each default:
 * when the module has it; false: `gkr_round`, `gkr_weights`). Same round polynomials either way.
 */
export type StructuredWasmOptions = WasmGroupsOptions;

/** The WASM factory over the context it was made for (kept while `gkrKernels()` returns that context). */
let wasmDefault: { readonly kernels: GkrKernels; readonly factory: LayerOracleFactory } | undefined;

/**
 * The WASM structured oracle when the kernel module is available and switched on, else
 * `structuredLayerOracle`. Asked on every proof, so it follows the installed kernel backend.
 */
export function defaultStructuredOracleFactory(): LayerOracleFactory {
  const k = gkrKernels();
  if (k === null) return structuredLayerOracle;
  if (wasmDefault?.kernels !== k) wasmDefault = { kernels: k, factory: structuredWasmLayerOracleFactory(k) };
  return wasmDefault.factory;
}

/** Structured circuits that passed `validateStructuredCircuit`. */
const validated = new WeakSet<StructuredCircuit>();

/**
 * `proveGkr` for a structured circuit (same schedule, compat-v1 §10.4), with the structured
 * oracle (default `defaultStructuredOracleFactory()`; pass `structuredLayerOracle` for the
 * TypeScript reference; every structured oracle gives the same proof). The circuit is validated
 * on its first proof in this thread.
 * @param witness from `evaluateStructuredCircuit` (layer vectors output first, the input last).
 * @throws CircuitError from `validateStructuredCircuit` or for a witness of the wrong shape.
 */
export function proveStructuredGkr(
  circuit: StructuredCircuit,
  witness: readonly Uint32Array[],
  transcript: DuplexChallenger,
  options: ProveGkrOptions = {},
): GkrProveResult {
  if (!validated.has(circuit)) {
    validateStructuredCircuit(circuit);
    validated.add(circuit);
  }
  return proveGkr(circuit, witness, transcript, {
    ...options,
    oracleFactory: options.oracleFactory ?? defaultStructuredOracleFactory(),
  });
}
