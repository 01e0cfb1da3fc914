export * from "./poseidon2.js";
export * from "./digest.js";
export * from "./fast-permutation.js";
export { type HashBackend, type HashBackendProvider, typescriptHashBackend, useHashBackend, currentHashBackend } from "./backend.js";
export * as poseidon2Constants from "./poseidon2-constants.js";
