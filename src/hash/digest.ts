/**
 * Digests, the 2-to-1 compression and the padding-free sponge (compat-v1 §4; Plonky3 0.4.3
 * `TruncatedPermutation<_, 2, 8, 16>` and `PaddingFreeSponge<_, 16, 8, 8>`).
 */
import { P, element } from "../field/koalabear.js";
import { FieldError } from "../field/errors.js";
import { hashKernels } from "../kernels/hash-kernels.js";
import { RATE, WIDTH, permuteInPlace } from "./poseidon2.js";

/** A digest: 8 canonical base elements. */
export type Digest = Uint32Array;

/** Validates and copies 8 canonical elements into a digest. */
export function digest(values: ArrayLike<number>, what = "digest"): Digest {
  if (values.length !== RATE) throw new FieldError("BAD_LENGTH", `${what} must have ${RATE} elements, got ${values.length}`, { what });
  const d = new Uint32Array(RATE);
  for (let i = 0; i < RATE; i++) {
    const v = values[i];
    // The element name is only built for the error message.
    d[i] = typeof v === "number" && Number.isInteger(v) && v >= 0 && v < P ? v : element(v, `${what}[${i}]`);
  }
  return d;
}

/**
 * True if two digests (8 field elements each; any array-like) are equal element by element.
 * @example
 *   digestEquals(root, request.publicInputs.oldRoot);
 */
export function digestEquals(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * compress(left, right) = first 8 lanes of permute(left ‖ right) (h_node). Inputs must be canonical
 * (not validated). Runs the WASM permutation when available (`compressReference` otherwise).
 */
export function compress(left: ArrayLike<number>, right: ArrayLike<number>): Digest {
  const hk = hashKernels();
  return hk ? hk.compress(left, right) : compressReference(left, right);
}

/** TypeScript reference of `compress`. */
export function compressReference(left: ArrayLike<number>, right: ArrayLike<number>): Digest {
  const s = new Uint32Array(WIDTH);
  for (let i = 0; i < RATE; i++) {
    s[i] = left[i]!;
    s[RATE + i] = right[i]!;
  }
  permuteInPlace(s);
  return s.slice(0, RATE);
}

/**
 * Padding-free sponge with overwrite absorption, rate 8, 8 output lanes. A final partial block
 * overwrites only its prefix and is permuted; an input that ends on a block boundary (including
 * the empty input) gets no extra permutation. Inputs must be canonical (not validated). Runs the
 * WASM kernel when available (`spongeReference` otherwise).
 */
export function sponge(input: ArrayLike<number>): Digest {
  const hk = hashKernels();
  return hk ? hk.sponge(input) : spongeReference(input);
}

/** TypeScript reference of `sponge`. */
export function spongeReference(input: ArrayLike<number>): Digest {
  const s = new Uint32Array(WIDTH);
  const n = input.length;
  for (let off = 0; off < n; off += RATE) {
    const end = Math.min(n, off + RATE);
    for (let i = off; i < end; i++) s[i - off] = input[i]!;
    permuteInPlace(s);
  }
  return s.slice(0, RATE);
}
