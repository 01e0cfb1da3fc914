/**
 * Loading the compiled kernel module (wasm/kernels.wasm, checked in, built by
 * scripts/build-kernels.mjs) and instantiating it over a shared memory.
 *
 * Compiling is done once per thread and cached; the compiled `WebAssembly.Module` can also be
 * posted to a worker thread, which then only instantiates it (see `attachKernels`).
 * Instantiating never writes to memory: the module has no data segment and no start function
 * (the build checks this), so any number of instances may share one memory.
 *
 * Two ways in: Node reads the file synchronously on first use (`kernelModule()`, through
 * `process.getBuiltinModule("node:fs")`, so this file imports nothing Node-only and bundles for a
 * browser as it is); a browser (or any caller that has the bytes or a URL) calls
 * `await loadKernelModule(source)` once, after which `kernelModule()` returns that module. Code
 * that uses the kernels is the same in both.
 *
 * `installKernelBackend("typescript")` (backend.ts) switches the module off for the thread
 * (`setKernelModuleEnabled(false)`): `kernelModule()` then throws `MODULE_MISSING`, the default
 * contexts answer null while it is off (`kernelModuleEnabled()`), and every user falls back to its
 * TypeScript reference; switching it on again brings the contexts created earlier back.
 */
import type { KernelExports } from "./abi.js";
import { KernelError } from "./errors.js";

/** Location of the compiled module relative to this file (dist/src/kernels → wasm). */
/** The checked-in module beside this file's package (Node's path; computed when used, so a bundle whose `import.meta.url` is empty still loads). */
const moduleUrl = (): URL => new URL("../../../wasm/kernels.wasm", import.meta.url);

/**
 * Raw exports of the kernel module (signatures generated into abi.ts by scripts/gen-kernels.mjs).
 * Semantics are documented in src/kernels/README.md and in the AssemblyScript sources.
 */
export type { KernelExports } from "./abi.js";

let cached: WebAssembly.Module | undefined;
let enabled = true;

/**
 * Switches the kernel module on or off for this thread. Off: `kernelModule()` throws
 * `MODULE_MISSING` (contexts created earlier keep working). Called by `installKernelBackend`.
 */
export function setKernelModuleEnabled(on: boolean): void {
  enabled = on;
}

/**
 * Whether the kernel module is switched on for this thread (`setKernelModuleEnabled`). The
 * default contexts (`gkrKernels()`, `hashKernels()`) and the default oracle factories ask it on
 * every call, so a later `installKernelBackend` choice applies to the next proof.
 */
export function kernelModuleEnabled(): boolean {
  return enabled;
}

/** The part of `node:fs` the loader uses. */
interface SyncFileReader {
  readFileSync(path: URL): Uint8Array;
}

/** Node's `fs` when this runtime has one (Node ≥ 20.16: `process.getBuiltinModule`), else null. */
function nodeFs(): SyncFileReader | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return (proc?.getBuiltinModule?.("node:fs") as SyncFileReader | undefined) ?? null;
}

/** What `loadKernelModule` accepts: the module bytes, a compiled module, a fetch response, or a URL to fetch. */
export type KernelModuleSource = Uint8Array | ArrayBuffer | WebAssembly.Module | Response | URL | string;

/**
 * Compiles the kernel module asynchronously from `source` and makes it this thread's module (what
 * `kernelModule()` returns from then on). Works in Node and in browsers: a URL or string is
 * fetched (`fetch`), a response is compiled with `WebAssembly.compileStreaming` when it is served
 * as `application/wasm`. Without a source, Node reads wasm/kernels.wasm (as `kernelModule()` does).
 * @returns the compiled module.
 * @throws KernelError `MODULE_MISSING` if the source cannot be fetched or does not compile.
 * @example
 *   await loadKernelModule(new URL("./kernels.wasm", import.meta.url)); // in a page
 */
export async function loadKernelModule(source?: KernelModuleSource): Promise<WebAssembly.Module> {
  if (source === undefined || !enabled) return kernelModule();
  if (source instanceof WebAssembly.Module) return (cached = source);
  const where = typeof source === "string" ? source : source instanceof URL ? source.href : "the given bytes";
  try {
    let module: WebAssembly.Module;
    if (typeof source === "string" || source instanceof URL) {
      const response = await fetch(source);
      if (!response.ok) throw new KernelError("MODULE_MISSING", `HTTP ${response.status}`);
      module = await compileResponse(response);
    } else if (typeof Response !== "undefined" && source instanceof Response) {
      module = await compileResponse(source);
    } else {
      module = await WebAssembly.compile(source as Uint8Array<ArrayBuffer> | ArrayBuffer);
    }
    return (cached = module);
  } catch (e) {
    throw new KernelError("MODULE_MISSING", `kernel module from ${where} cannot be loaded: ${(e as Error).message}`);
  }
}

async function compileResponse(response: Response): Promise<WebAssembly.Module> {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("application/wasm") && typeof WebAssembly.compileStreaming === "function")
    return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** True once this thread has a compiled kernel module (loaded or read). */
export function kernelModuleLoaded(): boolean {
  return enabled && cached !== undefined;
}

/**
 * The compiled kernel module (compiled on first use in this thread).
 * @throws KernelError `MODULE_MISSING` if wasm/kernels.wasm does not exist or is invalid, if the
 *   kernels are switched off, or outside Node before `loadKernelModule` has run.
 */
export function kernelModule(): WebAssembly.Module {
  if (!enabled)
    throw new KernelError(
      "MODULE_MISSING",
      'the WASM kernels are switched off in this thread (installKernelBackend("typescript"))',
    );
  if (cached === undefined) {
    const fs = nodeFs();
    if (fs === null)
      throw new KernelError(
        "MODULE_MISSING",
        "no file system to read the kernel module from: call `await loadKernelModule(url)` first",
      );
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(fs.readFileSync(moduleUrl()));
    } catch (e) {
      throw new KernelError(
        "MODULE_MISSING",
        `kernel module ${moduleUrl().pathname} is missing; run \`npm run build:kernels\` (${(e as Error).message})`,
      );
    }
    try {
      cached = new WebAssembly.Module(bytes);
    } catch (e) {
      throw new KernelError(
        "MODULE_MISSING",
        `kernel module ${moduleUrl().pathname} does not compile: ${(e as Error).message}`,
      );
    }
  }
  return cached;
}

/** Instantiates the module over `memory` (shared, maximum ≤ 32768 pages). Writes nothing. */
export function instantiateKernels(
  memory: WebAssembly.Memory,
  module: WebAssembly.Module = kernelModule(),
): KernelExports {
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return instance.exports as unknown as KernelExports;
}
