/**
 * The one place that chooses the kernel backend of a thread and injects it.
 *
 * The core below the kernels (src/hash, and through it src/transcript) never imports this folder:
 * it hashes with the TypeScript reference unless a backend is injected (src/hash/backend.ts).
 * `installKernelBackend` makes the choice for everything at once:
 * - `"auto"` (the default): the WASM kernels when the module is available — the permutation,
 *   the batched permutation, `compress` and `sponge` through this thread's `HashKernels`
 *   (injected lazily: nothing is compiled until something hashes), the GKR layer oracles and the
 *   circuit commitment through their own kernel contexts — and the TypeScript references where it
 *   is not (not built; a page that is not cross-origin isolated).
 * - `"wasm"`: the same, but the module must be there (`MODULE_MISSING` otherwise).
 * - `"typescript"`: the kernel module is switched off for the thread (src/kernels/loader.ts), so
 *   hashing, the layer-oracle factory (`defaultLayerOracleFactory`, src/gkr/prover.ts) and the
 *   commitment all run their TypeScript references.
 *
 * The package entry points, the CLI, the worker threads and the browser page call it; the
 * environment variable `SSGKR_KERNELS` (`auto` | `wasm` | `typescript`) overrides the default
 * choice, which is how a whole process (workers included) is switched to the references.
 */
import { typescriptHashBackend, useHashBackend, type HashBackend } from "../hash/backend.js";
import { KernelError } from "./errors.js";
import { HashKernels, hashKernels } from "./hash-kernels.js";
import { setKernelModuleEnabled } from "./loader.js";
import { typescriptPcsBackend, usePcsBackend } from "../pcs/backend.js";
import { wasmPcsBackend } from "./pcs-kernels.js";

/** Which kernels a thread runs. */
export type KernelBackendChoice = "auto" | "wasm" | "typescript";

const CHOICES: readonly KernelBackendChoice[] = ["auto", "wasm", "typescript"];

let installed: KernelBackendChoice | undefined;

/** `SSGKR_KERNELS` when set (validated), else `"auto"`. @throws KernelError `BAD_OPTIONS` for another value. */
export function kernelBackendFromEnvironment(): KernelBackendChoice {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const v = env?.["SSGKR_KERNELS"];
  if (v === undefined || v === "") return "auto";
  if (!(CHOICES as readonly string[]).includes(v)) {
    throw new KernelError(
      "BAD_OPTIONS",
      `SSGKR_KERNELS must be one of ${CHOICES.join(", ")}, got ${JSON.stringify(v)}`,
      { SSGKR_KERNELS: v },
    );
  }
  return v as KernelBackendChoice;
}

/**
 * Chooses this thread's kernel backend and injects it into the hashing seam. Idempotent for the
 * same choice (a second call changes nothing); another choice replaces the first from the next
 * proof on (the default kernel contexts and oracle factories ask `kernelModuleEnabled()` on every
 * call).
 * @param choice default: `SSGKR_KERNELS`, else `"auto"`.
 * @throws KernelError `MODULE_MISSING` for `"wasm"` without a usable module; `BAD_OPTIONS` for an
 *   unknown choice.
 * @example
 *   installKernelBackend();              // WASM when available, TypeScript otherwise
 *   installKernelBackend("typescript");  // the references only (differential runs)
 */
export function installKernelBackend(choice: KernelBackendChoice = kernelBackendFromEnvironment()): void {
  if (!CHOICES.includes(choice))
    throw new KernelError(
      "BAD_OPTIONS",
      `kernel backend must be one of ${CHOICES.join(", ")}, got ${JSON.stringify(choice)}`,
    );
  if (choice === installed) return;
  if (choice === "typescript") {
    setKernelModuleEnabled(false);
    useHashBackend(typescriptHashBackend);
    usePcsBackend(typescriptPcsBackend);
  } else if (choice === "wasm") {
    setKernelModuleEnabled(true);
    const hk = hashKernels() ?? HashKernels.create();
    useHashBackend(hk);
    usePcsBackend(wasmPcsBackend() ?? typescriptPcsBackend);
  } else {
    setKernelModuleEnabled(true);
    useHashBackend(wasmHashBackendOrNull);
    usePcsBackend(wasmPcsBackend);
  }
  installed = choice;
}

/** The choice installed in this thread (undefined: none yet, the core hashes in TypeScript). */
export function installedKernelBackend(): KernelBackendChoice | undefined {
  return installed;
}

/** This thread's WASM hashing backend, or null when the module is not available. */
function wasmHashBackendOrNull(): HashBackend | null {
  return hashKernels();
}
