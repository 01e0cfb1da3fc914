/**
 * Digests, the 2-to-1 compression and the padding-free sponge (compat-v1 §4; Plonky3 0.4.3
 * `TruncatedPermutation<_, 2, 8, 16>` and `PaddingFreeSponge<_, 16, 8, 8>`).
 */
import { P, element } from "../field/koalabear.js";
import { FieldError } from "../field/errors.js";
import { currentHashBackend } from "./backend.js";
import { RATE } from "./poseidon2.js";

export { compressReference, spongeReference } from "./backend.js";

/** A digest: 8 canonical base elements. */
export type Digest = Uint32Array;

/** Validates and copies 8 canonical elements into a digest. */
export function digest(values: ArrayLike<number>, what = "digest"): Digest {
  if (values.length !== RATE)
    throw new FieldError("BAD_LENGTH", `${what} must have ${RATE} elements, got ${values.length}`, { what });
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
 * (not validated). Runs this thread's hashing backend (src/hash/backend.ts; `compressReference`
 * is the TypeScript reference).
 */
export function compress(left: ArrayLike<number>, right: ArrayLike<number>): Digest {
  return currentHashBackend().compress(left, right);
}

/**
 * Padding-free sponge with overwrite absorption, rate 8, 8 output lanes. A final partial block
 * overwrites only its prefix and is permuted; an input that ends on a block boundary (including
 * the empty input) gets no extra permutation. Inputs must be canonical (not validated). Runs this
 * thread's hashing backend (`spongeReference` is the TypeScript reference).
 */
export function sponge(input: ArrayLike<number>): Digest {
  return currentHashBackend().sponge(input);
}
