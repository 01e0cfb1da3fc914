/**
 * The input vector of a compiled circuit (compat-v1 §9.2), built identically by prover and
 * verifier. The accumulators are witness values computed natively; the circuit re-checks every
 * hash step. No key-range check happens here.
 */
import { digest } from "../hash/digest.js";
import { widthBits } from "../gkr/circuit.js";
import type { SyncConfig } from "./config.js";
import { OpKind } from "../statement/types.js";
import { SmtError } from "./errors.js";
import { encodeLeaf, foldEncoding, hashLeaf, type Leaf } from "./leaf.js";
import { inputLayout, type InputLayout } from "./layout.js";
import type { OpRequest } from "./operation.js";
import { checkKey, checkSiblings, keyBit, pathAccumulators } from "./path.js";

/**
 * Builds the input vector for (kind, config) from a request: 2^input_width_bits canonical
 * elements, zero-padded.
 *
 * Order of checks: (1) siblings count ≠ depth → `PATH_LENGTH_MISMATCH`; (2) the primary leaf
 * (witness leaf, or old_leaf for Update) must encode within B → `LEAF_ENCODING`; then the new leaf
 * for Update. Values are validated on the way (non-canonical → FieldError).
 * @param kind circuit kind; for Update the operation must be an Update (`OP_KIND_MISMATCH`).
 * @param config a validated configuration (see `syncConfig`).
 * @throws SmtError `PATH_LENGTH_MISMATCH`, `LEAF_ENCODING`, `BAD_LEAF`, `BAD_KEY`, `OP_KIND_MISMATCH`; FieldError.
 */
export function buildInputVector(kind: OpKind, config: SyncConfig, request: OpRequest): Uint32Array {
  const layout = inputLayout(kind, config.depth, config.leafMaxFields);
  return buildInputVectorFor(layout, config.leafMaxFields, request);
}

/** `buildInputVector` with a precomputed layout (e.g. from a compiled circuit). */
export function buildInputVectorFor(layout: InputLayout, leafMaxFields: number, request: OpRequest): Uint32Array {
  const d = layout.depth;
  const op = request.operation;
  if (layout.kind === OpKind.Update && op.kind !== OpKind.Update) {
    throw new SmtError("OP_KIND_MISMATCH", `an Update circuit needs an Update operation, got kind ${op.kind}`);
  }
  const siblings = checkSiblings(request.witness.siblings, d);
  const key = checkKey(op.key);
  const primary: Leaf = op.kind === OpKind.Update ? op.oldLeaf : request.witness.leaf;
  const out = new Uint32Array(2 ** widthBits(layout.total));

  const writePath = (leaf: Leaf, preBase: number, accBase: number): void => {
    out.set(foldEncoding(encodeLeaf(leaf), leafMaxFields), preBase);
    const accs = pathAccumulators(hashLeaf(leaf, leafMaxFields), key, siblings);
    accs.forEach((a, l) => out.set(a, accBase + 8 * l));
  };

  writePath(primary, layout.leafPre, layout.acc);
  for (let l = 0; l < d; l++) {
    out.set(siblings[l]!, layout.siblings + 8 * l);
    out[layout.keyBits + l] = keyBit(key, l);
  }
  const pub = request.publicInputs;
  out.set(digest(pub.oldRoot, "old_root"), layout.root);
  out.set(digest(pub.valueDigest, "value_digest"), layout.valueDigest);
  if (op.kind === OpKind.Update && layout.kind === OpKind.Update) {
    writePath(op.newLeaf, layout.leafPre2, layout.acc2);
    out.set(digest(pub.newRoot, "new_root"), layout.root2);
  }
  return out;
}
