/**
 * The proof server of the serving protocol (compat-v1 §16.4, §16.6).
 */
export * from "./errors.js";
export * from "./options.js";
export * from "./kind-queues.js";
export * from "./connection.js";
export * from "./compute.js";
export * from "./controls.js";
export * from "./server.js";
export * from "./stop-summary.js";
export * from "./batch-scheduler.js";
export * from "./batch-reply.js";
export * from "./return-path.js";
export * from "./admission.js";
export * from "./engine.js";
