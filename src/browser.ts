/**
 * `statesync-gkr/browser`: everything a web page needs to check what a registry hands out, with
 * no Node built-in reachable (it bundles with esbuild `--platform=browser` and with Vite at their
 * default settings, no aliases):
 *
 * - proof bodies of `GET /v1/records/{name}/proof` in every profile (compat-v1, v2, v3, v3-zk):
 *   `checkProofBody`;
 * - profile v3 registry blocks (block.json and block.bin): `verifyRegistryBlock`, or
 *   `checkBlockBody` on the `POST /v1/verify` block body;
 * - consistency chains between two checkpoints (`GET /v1/consistency`): `verifyConsistency`;
 * - signed checkpoints (`GET /v1/checkpoint`) against the registry's verifier key:
 *   `verifyCheckpoint`, `parseVerifierKey` (Ed25519 from `@noble/curves`);
 * - the WASM kernels: `loadKernels()` fetches and installs them (docs/browser.md).
 *
 * Importing this entry installs nothing: until `loadKernels` has run, hashing uses the
 * TypeScript references (same verdicts, slower).
 *
 * @example
 * ```ts
 * import { loadKernels, checkProofBody, parseRoot } from "statesync-gkr/browser";
 * await loadKernels(); // "wasm" when the page is cross-origin isolated, else "typescript"
 * const body = await (await fetch("/v1/records/left-pad/proof?profile=v3&zk=1")).json();
 * const v = checkProofBody(body, "left-pad", parseRoot(trustedRootHex));
 * console.log(v.ok ? `ACCEPT ${v.statement}` : `REJECT ${v.code}: ${v.reason}`);
 * ```
 */

// Proof bodies (GET /v1/records/{name}/proof, POST /v1/verify).
export { checkProofBody, type BodyVerdict, type ProofBody } from "./counterparty/body.js";
export { checkBlockBody, type BlockBody, type BlockBodyVerdict, type BlockRoots } from "./counterparty/block-body.js";

// Roots.
export { parseRoot, formatRoot, rootBytes, rootFromBytes, ROOT_BYTES } from "./registry/root.js";
export type { Digest } from "./hash/digest.js";

// Profile v3 registry blocks (block.json, block.bin).
export {
  verifyRegistryBlock,
  parseBlockDescription,
  BLOCK_REJECT_CODES,
  type BlockFiles,
  type BlockDescription,
  type BlockRejectCode,
  type BlockVerdict,
} from "./registry/verify-block.js";

// Consistency chains (GET /v1/consistency).
export {
  verifyConsistency,
  CONSISTENCY_REJECT_CODES,
  type ChainEnd,
  type ConsistencyLink,
  type ConsistencyRejectCode,
  type ConsistencyVerdict,
} from "./registry/consistency/verify-consistency.js";

// Signed checkpoints (GET /v1/checkpoint) and verifier keys.
export {
  verifyCheckpoint,
  parseCheckpointText,
  type CheckpointBody,
  type CheckpointVerdict,
} from "./registry/checkpoint/checkpoint.js";
export { parseVerifierKey, type VerifierKey } from "./registry/checkpoint/note.js";

// Errors a malformed input throws (each has a stable `code`).
export { SsgkrError } from "./errors.js";

import { loadKernelModule, type KernelModuleSource } from "./kernels/loader.js";
import { installKernelBackend } from "./kernels/backend.js";
import { hashBackend } from "./hash/fast-permutation.js";

/** What `loadKernels` accepts: a URL of kernels.wasm, its bytes, a fetch response or a compiled module. */
export type KernelsSource = KernelModuleSource;

/**
 * The URL of the kernel module shipped beside this entry (`dist/src/kernels.wasm`, a copy of
 * `wasm/kernels.wasm`), written as `new URL("./kernels.wasm", import.meta.url)`: Vite (and webpack
 * 5, Parcel) emit the file as an asset of the build and rewrite the URL; esbuild leaves the
 * expression as it is, so the URL then names `kernels.wasm` beside the bundle: copy
 * `node_modules/statesync-gkr/wasm/kernels.wasm` there (docs/browser.md). A bundle in a format
 * without `import.meta` (esbuild's default for the browser, iife) names `kernels.wasm` in the
 * page's own folder.
 * @example
 *   console.log(kernelsUrl().href); // …/kernels.wasm
 */
export function kernelsUrl(): URL {
  // a bundle in a format without import.meta (esbuild's default, iife) leaves it empty: the page's own folder
  // the literal pattern below is what Vite and other bundlers rewrite to the emitted asset
  if ((import.meta as { url?: string }).url) return new URL("./kernels.wasm", import.meta.url);
  const page = (globalThis as { location?: { href: string } }).location;
  return new URL("./kernels.wasm", page?.href ?? "file:///");
}

/**
 * Compiles the WASM kernels and installs them as this thread's backend, so the checks hash with
 * them. Call it once before the first check (a check made earlier uses the TypeScript references
 * and keeps them). Shared WASM memory needs a cross-origin isolated page (served with
 * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`);
 * elsewhere, or when the module cannot be fetched or compiled, the TypeScript references are
 * installed instead: the verdicts are the same, only slower.
 * @param source where the module is (default: `kernelsUrl()`, the package's own file).
 * @returns the backend now installed: `"wasm"` or `"typescript"`.
 * @example
 *   import { loadKernels } from "statesync-gkr/browser";
 *   const backend = await loadKernels(new URL("./kernels.wasm", import.meta.url)); // "wasm"
 */
export async function loadKernels(source?: KernelsSource): Promise<"wasm" | "typescript"> {
  const g = globalThis as {
    crossOriginIsolated?: boolean;
    SharedArrayBuffer?: unknown;
    process?: { getBuiltinModule?: (id: string) => unknown };
  };
  if (g.crossOriginIsolated === false || g.SharedArrayBuffer === undefined) {
    installKernelBackend("typescript");
    return "typescript";
  }
  installKernelBackend("auto");
  try {
    // In Node (no `fetch` of file: URLs) the file beside this entry is read.
    const fs = g.process?.getBuiltinModule?.("node:fs") as { readFileSync(path: URL): Uint8Array } | undefined;
    if (source === undefined && fs !== undefined) await loadKernelModule(fs.readFileSync(kernelsUrl()));
    else await loadKernelModule(source ?? kernelsUrl());
  } catch {
    installKernelBackend("typescript");
    return "typescript";
  }
  installKernelBackend("auto");
  return hashBackend();
}
