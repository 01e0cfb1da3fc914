/**
 * Poseidon2 permutation as circuit nodes (compat-v1 §9.5): 29 node layers of 16 nodes each,
 * with the round constants fused into the following layer.
 *
 * Entry layer u[z] = Affine([(s[x], M_E[z][x])]_x, RC_init[0][z]); then 28 fused rounds
 * u[z] = Combine([(u[x], M[z][x], Cube if lane x is cubed else Lin)]_x, N_r[z]).
 */
import { P } from "../field/koalabear.js";
import type { CircuitBuilder, NodeId, Tap } from "../gkr/builder.js";
import { M4, WIDTH } from "../hash/poseidon2.js";
import {
  INTERNAL_DIAGONAL,
  RC_EXTERNAL_INITIAL,
  RC_EXTERNAL_TERMINAL,
  RC_INTERNAL,
} from "../hash/poseidon2-constants.js";

/** Dense external matrix: M_E[z][x] = M4[z mod 4][x mod 4] × (2 if ⌊z/4⌋ = ⌊x/4⌋ else 1). */
export const EXTERNAL_MATRIX: readonly (readonly number[])[] = Array.from({ length: WIDTH }, (_, z) =>
  Array.from({ length: WIDTH }, (_, x) => M4[z % 4]![x % 4]! * (z >> 2 === x >> 2 ? 2 : 1)),
);

/** Dense internal matrix: M_I[z][x] = 1 + (V[z] if z = x), mod p. */
export const INTERNAL_MATRIX: readonly (readonly number[])[] = Array.from({ length: WIDTH }, (_, z) =>
  Array.from({ length: WIDTH }, (_, x) => (z === x ? (1 + INTERNAL_DIAGONAL[z]!) % P : 1)),
);

/** Number of node layers per permutation. */
export const PERM_LAYERS = 29;

interface FusedRound {
  readonly matrix: readonly (readonly number[])[];
  readonly allCubed: boolean;
  readonly next: readonly number[];
}

function internalConstant(c: number): number[] {
  const v = new Array<number>(WIDTH).fill(0);
  v[0] = c;
  return v;
}

/** The 28 fused rounds of the §9.5 table. */
export const FUSED_ROUNDS: readonly FusedRound[] = (() => {
  const rounds: FusedRound[] = [];
  for (let r = 0; r < 28; r++) {
    let matrix = EXTERNAL_MATRIX;
    let allCubed = true;
    let next: readonly number[];
    if (r <= 2) next = RC_EXTERNAL_INITIAL[r + 1]!;
    else if (r === 3) next = internalConstant(RC_INTERNAL[0]!);
    else if (r <= 23) {
      matrix = INTERNAL_MATRIX;
      allCubed = false;
      next = r <= 22 ? internalConstant(RC_INTERNAL[r - 3]!) : RC_EXTERNAL_TERMINAL[0]!;
    } else if (r <= 26) next = RC_EXTERNAL_TERMINAL[r - 23]!;
    else next = new Array<number>(WIDTH).fill(0);
    rounds.push({ matrix, allCubed, next });
  }
  return rounds;
})();

/**
 * emit_perm(s): creates the 29 × 16 nodes of one permutation in the builder's current scope and
 * returns the 16 output lanes.
 */
export function emitPermutation(b: CircuitBuilder, state: readonly NodeId[]): NodeId[] {
  let u: NodeId[] = [];
  const rc0 = RC_EXTERNAL_INITIAL[0]!;
  for (let z = 0; z < WIDTH; z++) {
    const row = EXTERNAL_MATRIX[z]!;
    u.push(
      b.affine(
        state.map((s, x) => [s, row[x]!] as const),
        rc0[z]!,
      ),
    );
  }
  for (const round of FUSED_ROUNDS) {
    const next: NodeId[] = [];
    for (let z = 0; z < WIDTH; z++) {
      const row = round.matrix[z]!;
      const taps: Tap[] = u.map((node, x) => ({ node, coeff: row[x]!, cube: round.allCubed || x === 0 }));
      next.push(b.combine(taps, round.next[z]!));
    }
    u = next;
  }
  return u;
}
