/**
 * Loading the compiled kernel module (wasm/kernels.wasm, checked in, built by
 * scripts/build-kernels.mjs) and instantiating it over a shared memory.
 *
 * Compiling is done once per thread and cached; the compiled `WebAssembly.Module` can also be
 * posted to a worker thread, which then only instantiates it (see `attachKernels`).
 * Instantiating never writes to memory: the module has no data segment and no start function
 * (the build checks this), so any number of instances may share one memory.
 */
import { readFileSync } from "node:fs";
import { KernelError } from "./errors.js";

/** Location of the compiled module relative to this file (dist/src/kernels → wasm). */
const MODULE_URL = new URL("../../../wasm/kernels.wasm", import.meta.url);

/**
 * Raw exports of the kernel module. Pointers are byte offsets into the shared memory (multiples
 * of 4; 16 recommended), counts are elements. Semantics are documented in src/kernels/README.md
 * and in the AssemblyScript sources (src/kernels/assembly).
 */
export interface KernelExports {
  to_mont(dst: number, src: number, n: number): void;
  from_mont(dst: number, src: number, n: number): void;
  first_noncanonical(src: number, n: number): number;
  base_mul(dst: number, a: number, b: number, n: number): void;
  inner_product(a: number, b: number, n: number): number;
  ext_mul(dst: number, a: number, b: number, n: number): void;
  fold_base(dst: number, src: number, h: number, r: number): void;
  fold_base_ext(dst: number, src: number, h: number, r0: number, r1: number, r2: number, r3: number): void;
  fold_ext(dst: number, src: number, h: number, r0: number, r1: number, r2: number, r3: number): void;
  poseidon2_permute(states: number, n: number, consts: number): void;
  poseidon2_constant_words(): number;
}

let cached: WebAssembly.Module | undefined;

/**
 * The compiled kernel module (compiled on first use in this thread).
 * @throws KernelError `MODULE_MISSING` if wasm/kernels.wasm does not exist or is invalid.
 */
export function kernelModule(): WebAssembly.Module {
  if (cached === undefined) {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(readFileSync(MODULE_URL));
    } catch (e) {
      throw new KernelError("MODULE_MISSING", `kernel module ${MODULE_URL.pathname} is missing; run \`npm run build:kernels\` (${(e as Error).message})`);
    }
    try {
      cached = new WebAssembly.Module(bytes);
    } catch (e) {
      throw new KernelError("MODULE_MISSING", `kernel module ${MODULE_URL.pathname} does not compile: ${(e as Error).message}`);
    }
  }
  return cached;
}

/** Instantiates the module over `memory` (shared, maximum ≤ 32768 pages). Writes nothing. */
export function instantiateKernels(memory: WebAssembly.Memory, module: WebAssembly.Module = kernelModule()): KernelExports {
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return instance.exports as unknown as KernelExports;
}
