export * from "./poseidon2.js";
export * from "./digest.js";
export * as poseidon2Constants from "./poseidon2-constants.js";
