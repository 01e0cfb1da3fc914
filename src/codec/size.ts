/**
 * Encoded sizes of inner-proof-v1 messages (compat-v1 §14.1).
 */
import type { GkrProof } from "../gkr/proof.js";
import { FIXED_BYTES, LAYER_FIXED_BYTES, ROUND_BYTES } from "./layout.js";

/**
 * Size in bytes of the message for a circuit whose layers (output first) read s_in input bits each:
 * 170 + Σ_layers (36 + 162·s_in) (every layer proof has 2·s_in rounds).
 * @param layerInputBits s_in per layer, non-negative integers.
 * @returns bytes, as an exact integer (may exceed the u32 limit; the encoder rejects that).
 */
export function expectedEncodedSize(layerInputBits: readonly number[]): number {
  let size = FIXED_BYTES;
  for (const s of layerInputBits) size += LAYER_FIXED_BYTES + 2 * ROUND_BYTES * s;
  return size;
}

/**
 * Size in bytes `encodeProof` produces for this proof: 170 + Σ_layers (36 + 81·rounds), counting
 * rounds as present (equals `expectedEncodedSize` when each layer has 2·s_in rounds).
 */
export function encodedProofSize(proof: GkrProof): number {
  let size = FIXED_BYTES;
  for (const layer of proof.layers) size += LAYER_FIXED_BYTES + ROUND_BYTES * layer.rounds.length;
  return size;
}
