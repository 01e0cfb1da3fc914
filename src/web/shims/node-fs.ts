/**
 * Browser stand-in for `node:fs` (bundled in place of it by scripts/build-web.mjs): there is no
 * file system, so the synchronous kernel read fails and the page loads the module with
 * `loadKernelModule` instead.
 */
export function readFileSync(path: unknown): never {
  throw new Error(`no file system in a browser (reading ${String(path)}); load the kernel module with loadKernelModule()`);
}
