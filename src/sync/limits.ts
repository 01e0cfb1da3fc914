/**
 * Work limits of this engine: every value that sizes work (tree depth, leaf bound, request and
 * proof bytes) is bounded, and the bound is checked before any work that depends on it starts.
 *
 * compat-v1 leaves the accepted configurations to verifier policy (§1: "which (depth, leaf bound,
 * strategy) tuples a verifier accepts is verifier policy"); this is ours, documented in
 * docs/security.md:
 *
 * | Limit | Value | Why |
 * |---|---|---|
 * | depth | 1..64 (`MAX_CONFIG_DEPTH`) | keys are u64 |
 * | leaf bound B | 10..63 (`MAX_CONFIG_LEAF_MAX_FIELDS`) | verifying at d64 with B = 63 peaks about 20 MiB above d64 with the default B = 31 (B = 127: 50–70 MiB above) |
 * | request file | 1 MiB (`MAX_REQUEST_BYTES`) | the largest valid request (d64, B = 63) is about 10 KiB of JSON |
 * | proof bytes | `maxProofBytes(kind, config)` | an upper bound on the inner-proof-v1 size for the configuration, known before compiling |
 *
 * Each layer of a compat-v1 circuit adds its sumcheck rounds, so the leaf bound, which sets the
 * layer count (2 + 29·Lw/8, §9.7), is what makes a circuit expensive: B = 2000 needs 7,281 layers
 * (10–15 s and 1 GiB to prepare), B = 65535 about 237,000 (minutes and more than 9 GiB).
 */
import { FIXED_BYTES, LAYER_FIXED_BYTES, ROUND_BYTES } from "../codec/layout.js";
import { foldWidth } from "../smt/leaf.js";
import { inputLayout } from "../smt/layout.js";
import type { OpKind } from "../statement/types.js";

/** The configuration bounds (depth, leaf bound B) are the SMT configuration's (src/smt/config.ts). */
export { MAX_CONFIG_DEPTH, MAX_CONFIG_LEAF_MAX_FIELDS } from "../smt/config.js";

/** Largest request file, in bytes. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Extra width bits a layer may have over the input vector. The widest layers of the strategy-A
 * circuits are at most 4× the padded input (measured over kinds × depths 1..64 × B 10..127:
 * at most 2 bits more; test/sync/limits.test.ts checks the bound).
 */
export const LAYER_WIDTH_SLACK_BITS = 3;

/** ⌈log2(max(n, 1))⌉. */
function bitsFor(n: number): number {
  let b = 0;
  while (2 ** b < Math.max(n, 1)) b++;
  return b;
}

/** Layer count of the strategy-A circuit for leaf bound B: 2 + 29·Lw/8 (compat-v1 §9.7). */
export function layerCountFor(leafMaxFields: number): number {
  return 2 + (29 * foldWidth(leafMaxFields)) / 8;
}

/**
 * An upper bound, in bytes, on any valid inner-proof-v1 message for (kind, depth, B): computed
 * from the layer count and the input width (§9.1) without compiling, as
 * 170 + L·(36 + 162·(input_width_bits + 3)) (every layer reads at most input_width_bits + 3 bits).
 * A valid proof is never larger; a larger file can be refused without reading it.
 * Arguments are assumed valid (see `syncConfig`).
 */
export function maxProofBytes(
  kind: OpKind,
  config: { readonly depth: number; readonly leafMaxFields: number },
): number {
  const inputBits = bitsFor(inputLayout(kind, config.depth, config.leafMaxFields).total);
  const sIn = inputBits + LAYER_WIDTH_SLACK_BITS;
  return FIXED_BYTES + layerCountFor(config.leafMaxFields) * (LAYER_FIXED_BYTES + 2 * ROUND_BYTES * sIn);
}
