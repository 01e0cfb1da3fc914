export * from "./errors.js";
export * from "./field/index.js";
export * from "./hash/index.js";
export * from "./transcript/index.js";
export * from "./codec/index.js";
