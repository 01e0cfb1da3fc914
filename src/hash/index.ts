export * from "./poseidon2.js";
export * from "./digest.js";
export * from "./fast-permutation.js";
export * as poseidon2Constants from "./poseidon2-constants.js";
