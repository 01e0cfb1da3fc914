/**
 * The Poseidon2 constants region: round constants in Montgomery form, placed once into the shared
 * memory by the thread that owns the allocator, then read by every kernel instance.
 *
 * Layout (u32 words, compat-v1 §3 constants from src/hash/poseidon2-constants.ts, each c stored as
 * c·2^32 mod p): [0, 64) RC_init[r][i] at 16r + i; [64, 84) RC_int[j]; [84, 148) RC_term[r][i] at
 * 84 + 16r + i. The internal diagonal V is built into the kernel code.
 */
import { mul } from "../field/koalabear.js";
import { RC_EXTERNAL_INITIAL, RC_EXTERNAL_TERMINAL, RC_INTERNAL } from "../hash/poseidon2-constants.js";
import type { KernelMemory, Region } from "./memory.js";

/** Words in the constants region. */
export const POSEIDON2_CONSTANT_WORDS = 148;
/** 2^32 mod p: multiplying a canonical value by it gives its Montgomery form. */
export const MONTGOMERY_R = 33554430;

/** x·2^32 mod p for a canonical x. */
export function toMontgomery(x: number): number {
  return mul(x, MONTGOMERY_R);
}

/** The constants region contents (148 words, Montgomery form). */
export function poseidon2ConstantWords(): Uint32Array {
  const out = new Uint32Array(POSEIDON2_CONSTANT_WORDS);
  let k = 0;
  for (const row of RC_EXTERNAL_INITIAL) for (const c of row) out[k++] = toMontgomery(c);
  for (const c of RC_INTERNAL) out[k++] = toMontgomery(c);
  for (const row of RC_EXTERNAL_TERMINAL) for (const c of row) out[k++] = toMontgomery(c);
  return out;
}

/** Allocates the constants region in `memory` and fills it. */
export function placeConstants(memory: KernelMemory): Region {
  return memory.allocFrom(poseidon2ConstantWords());
}
