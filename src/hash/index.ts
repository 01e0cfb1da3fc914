export * from "./poseidon2.js";
export * from "./digest.js";
export * from "./fast-permutation.js";
export {
  type HashBackend,
  type HashBackendProvider,
  typescriptHashBackend,
  useHashBackend,
  currentHashBackend,
} from "./backend.js";
/** The Poseidon2 constants of compat-v1 (Plonky3 0.4.x KoalaBear width 16): round constants and the internal diagonal, canonical. */
export * as poseidon2Constants from "./poseidon2-constants.js";
export * from "./poseidon2-24.js";
/** The Plonky3 0.4.x KoalaBear width-24 constants (the `-l24` WHIR sets' leaf sponge). */
export * as poseidon2Constants24 from "./poseidon2-24-constants.js";
