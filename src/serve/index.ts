/**
 * `statesync-gkr/serve`: the proof server, the open-loop load generator with its verifying
 * frontend, and serving protocol 1 (compat-v1 §16).
 *
 * @example
 * ```ts
 * import { ProofServer, runLoad, parseLoadOptions } from "statesync-gkr/serve";
 * const server = new ProofServer({ host: "127.0.0.1", port: 0, depth: 24 });
 * const ready = await server.start();           // { port, … }
 * ```
 */
export * from "./protocol/index.js";
export { ServerError } from "./server/errors.js";
export { defaultServerOptions, serverOptions, parseListen, type ReturnPath, type ServerOptions } from "./server/options.js";
export { ProofServer, type ServerStats, type ReadyInfo, type StopSummary } from "./server/server.js";
export { LoadError } from "./load/errors.js";
export { runLoad, type LoadHooks, type LoadResult } from "./load/load.js";
export { loadDefaults, parseTargets, parseLoadOptions, LOAD_OPTION_NAMES, type LoadOptionName, type LoadOptions, type Target } from "./load/options.js";
export { parseMixture, DEFAULT_MIXTURE, MAX_MIXTURE_WEIGHT, MAX_RATE, type MixtureEntry } from "./load/schedule.js";
export { WITHIN_MS, type LoadStatus, type LoadSummary } from "./load/summary.js";
export type { RequestRecord, Outcome } from "./load/ledger.js";
export { renderReport } from "./load/report.js";
import { installKernelBackend } from "../kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
