/**
 * Poseidon2 over KoalaBear, width 16 (compat-v1 §3; Plonky3 0.4.3 `default_koalabear_poseidon2_16`):
 * S-box x³, 4 initial external rounds, 20 internal rounds, 4 terminal external rounds, one
 * external linear layer before the first round, no feed-forward.
 *
 * This is the plain TypeScript reference; `src/kernels` has the batched WASM SIMD version.
 */
import { P, mul, element } from "../field/koalabear.js";
import { FieldError } from "../field/errors.js";
import { INTERNAL_DIAGONAL, RC_EXTERNAL_INITIAL, RC_EXTERNAL_TERMINAL, RC_INTERNAL } from "./poseidon2-constants.js";

/** Permutation width. */
export const WIDTH = 16;
/** Sponge rate and digest length. */
export const RATE = 8;

/** M4 = [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] (not the HorizenLabs matrix). */
export const M4: readonly (readonly number[])[] = [
  [2, 3, 1, 1],
  [1, 2, 3, 1],
  [1, 1, 2, 3],
  [3, 1, 1, 2],
];

/** External linear layer M_E in place: M4 on each 4-lane chunk, then add the column sums. */
export function externalLinearLayer(s: Uint32Array | number[]): void {
  const y = EXT_TMP;
  for (let c = 0; c < 16; c += 4) {
    const x0 = s[c]!,
      x1 = s[c + 1]!,
      x2 = s[c + 2]!,
      x3 = s[c + 3]!;
    y[c] = 2 * x0 + 3 * x1 + x2 + x3;
    y[c + 1] = x0 + 2 * x1 + 3 * x2 + x3;
    y[c + 2] = x0 + x1 + 2 * x2 + 3 * x3;
    y[c + 3] = 3 * x0 + x1 + x2 + 2 * x3;
  }
  const s0 = y[0]! + y[4]! + y[8]! + y[12]!;
  const s1 = y[1]! + y[5]! + y[9]! + y[13]!;
  const s2 = y[2]! + y[6]! + y[10]! + y[14]!;
  const s3 = y[3]! + y[7]! + y[11]! + y[15]!;
  // Every intermediate is below 35p < 2^37: exact as a double.
  for (let c = 0; c < 16; c += 4) {
    s[c] = (y[c]! + s0) % P;
    s[c + 1] = (y[c + 1]! + s1) % P;
    s[c + 2] = (y[c + 2]! + s2) % P;
    s[c + 3] = (y[c + 3]! + s3) % P;
  }
}
const EXT_TMP = new Float64Array(16);

/** Internal linear layer M_I = J + diag(V) in place: s'[i] = V[i]·s[i] + Σ_j s[j]. */
export function internalLinearLayer(s: Uint32Array | number[]): void {
  let sum = 0;
  for (let i = 0; i < 16; i++) sum += s[i]!;
  sum %= P;
  for (let i = 0; i < 16; i++) {
    const v = mul(INTERNAL_DIAGONAL[i]!, s[i]!) + sum;
    s[i] = v >= P ? v - P : v;
  }
}

function cubeAdd(x: number, c: number): number {
  let t = x + c;
  if (t >= P) t -= P;
  return mul(mul(t, t), t);
}

/** Applies the permutation in place to a 16-lane state of canonical values. */
export function permuteInPlace(s: Uint32Array | number[]): void {
  externalLinearLayer(s);
  for (let r = 0; r < 4; r++) {
    const rc = RC_EXTERNAL_INITIAL[r]!;
    for (let i = 0; i < 16; i++) s[i] = cubeAdd(s[i]!, rc[i]!);
    externalLinearLayer(s);
  }
  for (let j = 0; j < 20; j++) {
    s[0] = cubeAdd(s[0]!, RC_INTERNAL[j]!);
    internalLinearLayer(s);
  }
  for (let r = 0; r < 4; r++) {
    const rc = RC_EXTERNAL_TERMINAL[r]!;
    for (let i = 0; i < 16; i++) s[i] = cubeAdd(s[i]!, rc[i]!);
    externalLinearLayer(s);
  }
}

/**
 * permute(state) for 16 canonical elements; returns a new array.
 * @throws FieldError if the state does not have 16 canonical elements.
 */
export function permute(state: ArrayLike<number>): Uint32Array {
  if (state.length !== WIDTH)
    throw new FieldError("BAD_LENGTH", `Poseidon2 state must have ${WIDTH} elements, got ${state.length}`);
  const s = new Uint32Array(WIDTH);
  for (let i = 0; i < WIDTH; i++) s[i] = element(state[i], `state[${i}]`);
  permuteInPlace(s);
  return s;
}
