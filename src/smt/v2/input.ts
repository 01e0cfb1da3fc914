/**
 * The input vector of a profile v2 circuit (docs/profile-v2.md §5.1), built identically by prover
 * and verifier: pre-images, the sponge capacities after each non-final block, the path
 * accumulators acc_0 … acc_{d−1} (computed natively), the public root in place of acc_d, the
 * siblings, the public value_digest and the key bits. The circuit re-checks every permutation.
 */
import { permuteInPlace } from "../../hash/poseidon2.js";
import { digest } from "../../hash/digest.js";
import { OpKind, type PublicInputs } from "../../statement/types.js";
import { SmtError } from "../errors.js";
import { type Leaf, encodeLeaf, foldEncoding } from "../leaf.js";
import type { OpRequest } from "../operation.js";
import { checkKey, checkSiblings, keyBit, pathAccumulators } from "../path.js";
import type { V2Layout } from "./layout.js";

/**
 * Builds the input vector (2^inputBits canonical values, zero-padded).
 * Checks, in order: Update circuit with another kind → `OP_KIND_MISMATCH`; siblings count ≠ depth →
 * `PATH_LENGTH_MISMATCH`; key → `BAD_KEY`; the primary leaf (witness leaf, old_leaf for Update)
 * and then the new leaf must encode within B → `LEAF_ENCODING`.
 * @param publicInputs the roots and value digest written into the vector (the request's own by default).
 * @throws SmtError as above; FieldError for non-canonical values.
 */
export function buildV2Input(
  layout: V2Layout,
  request: OpRequest,
  publicInputs: PublicInputs = request.publicInputs,
): Uint32Array {
  const op = request.operation;
  if (layout.kind === OpKind.Update && op.kind !== OpKind.Update) {
    throw new SmtError("OP_KIND_MISMATCH", `an Update circuit needs an Update operation, got kind ${op.kind}`);
  }
  const d = layout.depth,
    nb = layout.spongeBlocks;
  const siblings = checkSiblings(request.witness.siblings, d);
  const key = checkKey(op.key);
  const out = new Uint32Array(2 ** layout.inputBits);
  const leaves: Leaf[] = op.kind === OpKind.Update ? [op.oldLeaf, op.newLeaf] : [request.witness.leaf];
  const roots = [digest(publicInputs.oldRoot, "old_root"), digest(publicInputs.newRoot, "new_root")];
  const state = new Uint32Array(16);
  for (let t = 0; t < layout.paths; t++) {
    const pre = foldEncoding(encodeLeaf(leaves[t]!), layout.leafMaxFields);
    out.set(pre, layout.pre + 8 * t * nb);
    const slot = (j: number) => layout.exp + 8 * (t * layout.perPath + j);
    state.fill(0);
    for (let c = 0; c < nb; c++) {
      state.set(pre.subarray(8 * c, 8 * c + 8), 0);
      permuteInPlace(state);
      if (c < nb - 1) out.set(state.subarray(8, 16), slot(c));
    }
    const accs = pathAccumulators(state.subarray(0, 8), key, siblings);
    for (let l = 0; l < d; l++) out.set(accs[l]!, slot(nb - 1 + l));
    out.set(roots[t]!, slot(nb - 1 + d));
  }
  for (let l = 0; l < d; l++) {
    out.set(siblings[l]!, layout.sib + 8 * l);
    out[layout.keyBits + l] = keyBit(key, l);
  }
  out.set(digest(publicInputs.valueDigest, "value_digest"), layout.value);
  return out;
}
