export * from "./errors.js";
export * from "./shared-prepared.js";
export { encodeJob, decodeJob, encodeJobs, decodeJobs, JobDecodeError } from "./job-codec.js";
export { serveSyncJobs, type WorkerExtension } from "./worker-serve.js";
export * from "./pool.js";
export * from "./batch.js";
