// Proof-of-work search (docs/pcs.md §4.6) for the duplex transcript (compat-v1 §5): the candidate
// witnesses are permuted four at a time in the SIMD lanes (`permute4`, poseidon2-x4.ts) inside
// this module's memory, so a search of 2^b candidates costs 2^b permutations and one call.
import { permute4 } from "./poseidon2-x4";

/**
 * The least i < count such that the permutation of the 16 canonical words at `template` with word
 * `lane` replaced by start + i has word 7 & mask = 0, or −1 if none does. start + count must stay
 * below p (the caller checks); `work` is 256 scratch bytes (four states).
 */
export function poseidon2_grind(template: usize, lane: u32, mask: u32, start: u32, count: u32, consts: usize, work: usize): i32 {
  for (let i: u32 = 0; i < count; i += 4) {
    const left = count - i;
    const n: u32 = left < 4 ? left : 4;
    for (let s: u32 = 0; s < n; s++) {
      memory.copy(work + (<usize>s << 6), template, 64);
      store<u32>(work + (<usize>s << 6) + (<usize>lane << 2), start + i + s);
    }
    permute4(work, n, consts);
    for (let s: u32 = 0; s < n; s++) if ((load<u32>(work + (<usize>s << 6) + 28) & mask) == 0) return <i32>(i + s);
  }
  return -1;
}
