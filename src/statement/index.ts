/**
 * Statement types (compat-v1 §6.4–§6.5, §13.3) shared by the SMT frontend, the codec and sync:
 * operation kinds and their tags, public inputs, circuit identity, and `SyncError`.
 */
export * from "./types.js";
export * from "./errors.js";
