/**
 * Poseidon2 over KoalaBear, width 24 (Plonky3 0.4.x `default_koalabear_poseidon2_24`): S-box x³,
 * 4 initial external rounds, 23 internal rounds, 4 terminal external rounds, one external linear
 * layer before the first round, no feed-forward; and the padding-free sponge at rate 16 built on
 * it, which hashes the Merkle leaves of the `-l24` WHIR sets (docs/pcs.md §4.3).
 *
 * This is the plain TypeScript reference; `src/kernels` has the WASM SIMD leaf kernel.
 */
import { P, mul, element } from "../field/koalabear.js";
import { FieldError } from "../field/errors.js";
import {
  INTERNAL_DIAGONAL_24,
  RC24_EXTERNAL_INITIAL,
  RC24_EXTERNAL_TERMINAL,
  RC24_INTERNAL,
} from "./poseidon2-24-constants.js";

/** Permutation width. */
export const WIDTH_24 = 24;
/** Sponge rate of the width-24 leaf sponge (capacity 8). */
export const RATE_24 = 16;
/** Digest length: the first 8 words of the final state. */
export const DIGEST_WORDS_24 = 8;

const Y = new Float64Array(24);

/** External linear layer of width 24 in place: M4 on each of the six 4-lane chunks, then add the column sums. */
export function externalLinearLayer24(s: Uint32Array | number[]): void {
  for (let c = 0; c < 24; c += 4) {
    const x0 = s[c]!,
      x1 = s[c + 1]!,
      x2 = s[c + 2]!,
      x3 = s[c + 3]!;
    Y[c] = 2 * x0 + 3 * x1 + x2 + x3;
    Y[c + 1] = x0 + 2 * x1 + 3 * x2 + x3;
    Y[c + 2] = x0 + x1 + 2 * x2 + 3 * x3;
    Y[c + 3] = 3 * x0 + x1 + x2 + 2 * x3;
  }
  for (let k = 0; k < 4; k++) {
    const sum = Y[k]! + Y[4 + k]! + Y[8 + k]! + Y[12 + k]! + Y[16 + k]! + Y[20 + k]!;
    // Every intermediate is below 7·7p < 2^37: exact as a double.
    for (let c = 0; c < 24; c += 4) s[c + k] = (Y[c + k]! + sum) % P;
  }
}

/** Internal linear layer of width 24 in place: s'[i] = V24[i]·s[i] + Σ_j s[j]. */
export function internalLinearLayer24(s: Uint32Array | number[]): void {
  let sum = 0;
  for (let i = 0; i < 24; i++) sum += s[i]!;
  sum %= P;
  for (let i = 0; i < 24; i++) {
    const v = mul(INTERNAL_DIAGONAL_24[i]!, s[i]!) + sum;
    s[i] = v >= P ? v - P : v;
  }
}

function cubeAdd(x: number, c: number): number {
  let t = x + c;
  if (t >= P) t -= P;
  return mul(mul(t, t), t);
}

/** Applies the width-24 permutation in place to a 24-lane state of canonical values. */
export function permute24InPlace(s: Uint32Array | number[]): void {
  externalLinearLayer24(s);
  for (let r = 0; r < 4; r++) {
    const rc = RC24_EXTERNAL_INITIAL[r]!;
    for (let i = 0; i < 24; i++) s[i] = cubeAdd(s[i]!, rc[i]!);
    externalLinearLayer24(s);
  }
  for (let j = 0; j < 23; j++) {
    s[0] = cubeAdd(s[0]!, RC24_INTERNAL[j]!);
    internalLinearLayer24(s);
  }
  for (let r = 0; r < 4; r++) {
    const rc = RC24_EXTERNAL_TERMINAL[r]!;
    for (let i = 0; i < 24; i++) s[i] = cubeAdd(s[i]!, rc[i]!);
    externalLinearLayer24(s);
  }
}

/**
 * permute24(state) for 24 canonical elements; returns a new array.
 * @throws FieldError if the state does not have 24 canonical elements.
 */
export function permute24(state: ArrayLike<number>): Uint32Array {
  if (state.length !== WIDTH_24)
    throw new FieldError("BAD_LENGTH", `Poseidon2-24 state must have ${WIDTH_24} elements, got ${state.length}`);
  const s = new Uint32Array(WIDTH_24);
  for (let i = 0; i < WIDTH_24; i++) s[i] = element(state[i], `state[${i}]`);
  permute24InPlace(s);
  return s;
}

/**
 * The padding-free sponge of width 24 at rate 16 (Plonky3 `PaddingFreeSponge<_, 24, 16, 8>`,
 * docs/pcs.md §4.3): the state starts at 24 zeros; each block of 16 input words overwrites lanes
 * 0..15 and is permuted; a final partial block overwrites only its prefix and is permuted; an
 * input ending on a block boundary (the empty input included) gets no extra permutation. The
 * digest is lanes 0..7. Inputs must be canonical (not validated).
 */
export function sponge24(input: ArrayLike<number>): Uint32Array {
  const s = new Uint32Array(WIDTH_24);
  for (let off = 0; off < input.length; off += RATE_24) {
    const len = Math.min(RATE_24, input.length - off);
    for (let l = 0; l < len; l++) s[l] = input[off + l]!;
    permute24InPlace(s);
  }
  return s.slice(0, DIGEST_WORDS_24);
}
