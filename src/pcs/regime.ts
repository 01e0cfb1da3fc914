/** How a parameter set's counts are justified (docs/pcs.md §5): unique decoding (provable), the Johnson bound (provable list decoding) or the capacity conjecture. */
export type SoundnessRegime = "unique-decoding" | "johnson-bound" | "capacity";
