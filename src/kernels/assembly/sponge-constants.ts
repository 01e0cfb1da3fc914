// The extended constants region of the sequential hashing kernels (layout in ../abi): the 148
// Poseidon2 constants (written by the host), then at SPONGE_DIAG_WORD + 8i the internal diagonal
// entries of lanes 4i..4i+3 followed by their Shoup companions ⌊V·2^32 / p⌋, then at
// SPONGE_MASK_WORD the lane mask (0, −1, −1, −1). Loading these from memory is cheaper than
// materialising vector immediates.
import { SPONGE_CONSTANT_WORDS, SPONGE_DIAG_WORD, SPONGE_MASK_WORD } from "../abi";
import { shoupOf } from "./field";

const DIAG_BYTES: usize = <usize>SPONGE_DIAG_WORD << 2;
const MASK_BYTES: usize = <usize>SPONGE_MASK_WORD << 2;

/** Words of the extended constants region the sequential hashing kernels read. */
export function sponge_constant_words(): u32 {
  return SPONGE_CONSTANT_WORDS;
}

/**
 * Writes words [SPONGE_DIAG_WORD, SPONGE_CONSTANT_WORDS) of the extended constants region at `consts`: the internal diagonal
 * V = [−2, 1, 2, 1/2, 3, 4, −1/2, −3, −4, 2^−8, 2^−3, 2^−24, −2^−8, −2^−3, −2^−4, −2^−24]
 * (canonical, compat-v1 §3) with Shoup companions, and the lane mask.
 */
export function sponge_constants_init(consts: usize): void {
  const v0 = i32x4(2130706431, 1, 2, 1065353217);
  const v1 = i32x4(3, 4, 1065353216, 2130706430);
  const v2 = i32x4(2130706429, 2122383361, 1864368129, 2130706306);
  const v3 = i32x4(8323072, 266338304, 133169152, 127);
  v128.store(consts + DIAG_BYTES, v0, 0);
  v128.store(consts + DIAG_BYTES, v1, 32);
  v128.store(consts + DIAG_BYTES, v2, 64);
  v128.store(consts + DIAG_BYTES, v3, 96);
  for (let i: usize = 0; i < 4; i++) {
    for (let l: usize = 0; l < 4; l++) {
      const at = consts + DIAG_BYTES + (i << 5) + (l << 2);
      store<u32>(at + 16, shoupOf(load<u32>(at)));
    }
  }
  v128.store(consts + MASK_BYTES, i32x4(0, -1, -1, -1));
}
