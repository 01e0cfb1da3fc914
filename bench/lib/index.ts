export { measure, rate, type Timing, type Rate, type MeasureOptions } from "./timing.js";
export { conditions, conditionsLine, type Conditions } from "./conditions.js";
export { machineSpeedup2 } from "./machine.js";
export { progress, writeResults, printHeadline, resultsDir, fmt, parseArgs } from "./output.js";
import { installKernelBackend } from "../../src/kernels/backend.js";

// The kernel backend of this thread: WASM when available, else the TypeScript references (SSGKR_KERNELS overrides).
installKernelBackend();
