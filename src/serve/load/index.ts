/**
 * Open-loop load generator and verifying frontend of the serving study (compat-v1 §16.5–16.6).
 */
export * from "./errors.js";
export * from "./schedule.js";
export * from "./options.js";
export * from "./argv.js";
export * from "./ledger.js";
export * from "./latency.js";
export * from "./controls.js";
export * from "./checker.js";
export * from "./fixtures.js";
export * from "./connection.js";
export * from "./run.js";
export * from "./summary.js";
export * from "./report.js";
export * from "./output.js";
export * from "./load.js";
export * from "./verify-pool.js";
