export * from "./errors.js";
export * from "./shared-prepared.js";
export { encodeJob, decodeJob, JobDecodeError } from "./job-codec.js";
export * from "./pool.js";
export * from "./batch.js";
