/**
 * Serving protocol 1 (compat-v1 §16.1–16.3): framing, Job and Reply messages, lossless u64
 * JSON, the server-side input rules, and wall-clock timestamps.
 */
export * from "./limits.js";
export * from "./errors.js";
export * from "./clock.js";
export * from "./json.js";
export * from "./framing.js";
export * from "./job.js";
export * from "./input.js";
export * from "./reply.js";
export * from "./refusals.js";
export * from "./streams.js";
export * from "./served-aggregate.js";
export { jsonPath } from "./schema-parts.js";
