export * from "./koalabear.js";
export * from "./vector.js";
export * from "./extension.js";
export * from "./ext-vector.js";
export * from "./codec.js";
export { FieldError } from "./errors.js";
