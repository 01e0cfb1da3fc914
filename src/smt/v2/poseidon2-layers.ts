/**
 * Poseidon2-16 as structured layers (docs/profile-v2.md §5.2): the 29 node layers of compat-v1
 * §9.5 (entry layer, 28 fused rounds with the next round's constants fused in), each one linear
 * group per layer applied to every permutation block at once:
 *
 *   round 0 (entry):   u = M_E·s + RC_init[0]
 *   round r = 1..28:   u = M·f(u) + N_{r−1},  f cubing every lane (external rounds) or lane 0
 *                      (internal rounds), M and N as in the compat-v1 §9.5 table.
 *
 * Gate terms per permutation: 9 external layers × 112 + 20 internal layers × 48 = 1,968
 * (compat-v1: 29 × 256 = 7,424 gates).
 */
import { RC_EXTERNAL_INITIAL, RC_EXTERNAL_TERMINAL, RC_INTERNAL } from "../../hash/poseidon2-constants.js";
import type { LinearBlockGroup } from "../../gkr/structured/linear.js";
import { POSEIDON2_EXTERNAL, POSEIDON2_INTERNAL, type LinearMap } from "../../gkr/structured/maps.js";

/** Layers per permutation. */
export const PERMUTATION_LAYERS = 29;

interface RoundSpec {
  readonly map: LinearMap;
  readonly cubeMask: number;
  readonly constants: Uint32Array;
}

function internalConstant(c: number): Uint32Array {
  const v = new Uint32Array(16);
  v[0] = c;
  return v;
}

/** Round r = 0..28 (0 = entry layer; r ≥ 1 = fused round r − 1 of compat-v1 §9.5). */
export const PERMUTATION_ROUNDS: readonly RoundSpec[] = (() => {
  const rounds: RoundSpec[] = [
    { map: POSEIDON2_EXTERNAL, cubeMask: 0, constants: Uint32Array.from(RC_EXTERNAL_INITIAL[0]!) },
  ];
  for (let f = 0; f < 28; f++) {
    let map = POSEIDON2_EXTERNAL;
    let cubeMask = 0xffff;
    let next: Uint32Array;
    if (f <= 2) next = Uint32Array.from(RC_EXTERNAL_INITIAL[f + 1]!);
    else if (f === 3) next = internalConstant(RC_INTERNAL[0]!);
    else if (f <= 23) {
      map = POSEIDON2_INTERNAL;
      cubeMask = 1;
      next = f <= 22 ? internalConstant(RC_INTERNAL[f - 3]!) : Uint32Array.from(RC_EXTERNAL_TERMINAL[0]!);
    } else if (f <= 26) next = Uint32Array.from(RC_EXTERNAL_TERMINAL[f - 23]!);
    else next = new Uint32Array(16);
    rounds.push({ map, cubeMask, constants: next });
  }
  return rounds;
})();

/**
 * The linear group of permutation round r applied to the blocks whose 16 lanes start at
 * `outBase[b]` (this layer) and `inBase[b]` (the layer below).
 */
export function permutationRoundGroup(r: number, outBase: Uint32Array, inBase: Uint32Array): LinearBlockGroup {
  const spec = PERMUTATION_ROUNDS[r]!;
  return { map: spec.map, cubeMask: spec.cubeMask, constants: spec.constants, outBase, inBase };
}
