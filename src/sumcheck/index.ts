export * from "./errors.js";
export * from "./interpolate.js";
export * from "./mle.js";
export * from "./oracle.js";
export * from "./prover.js";
export * from "./verifier.js";
export * from "./untrusted.js";
export * from "../field/ext-inline.js";
