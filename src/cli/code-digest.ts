/**
 * The code digest of the on-disk prepared-circuit cache (prepared-disk.ts): SHA-256 over the
 * contents of every compiled module that a module imports, transitively (relative static imports,
 * re-exports and dynamic imports with a literal specifier), and of the kernel module
 * wasm/kernels.wasm. A cached circuit records the digest of the code that prepared it; code that
 * changed in any file of that closure has another digest, and the file is prepared afresh.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)|import\s+['"](\.[^'"]+)['"]/g;

/** The kernel module the WebAssembly kernels run (the commitment's sponge among them). */
const KERNELS_URL = new URL("../../../wasm/kernels.wasm", import.meta.url);

const memo = new Map<string, string>();

/**
 * Hex SHA-256 of the module files reachable from `entries` by relative imports (each file's URL
 * relative to the first entry's folder, then its contents, in a fixed order) and of
 * wasm/kernels.wasm (or a marker when it is absent). Computed once per process and entry list.
 * @param entries `file:` URLs of compiled modules (.js).
 * A file that cannot be read counts as a marker, so the digest never throws.
 * @example
 *   codeDigest([new URL("../sync/prepared.js", import.meta.url)]); // "3f9a…" (64 hex digits)
 */
export function codeDigest(entries: readonly URL[]): string {
  const key = entries.map((u) => u.href).join("\n");
  const known = memo.get(key);
  if (known !== undefined) return known;
  const seen = new Map<string, Buffer>();
  const stack = [...entries.map((u) => u.href)];
  while (stack.length > 0) {
    const href = stack.pop()!;
    if (seen.has(href)) continue;
    let text: Buffer;
    try {
      text = readFileSync(fileURLToPath(href));
    } catch {
      // a specifier in a comment may name no file; its absence is part of the digest
      seen.set(href, Buffer.from("\0missing\0"));
      continue;
    }
    seen.set(href, text);
    for (const m of text.toString("utf8").matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec !== undefined) stack.push(new URL(spec, href).href);
    }
  }
  const root = new URL(".", entries[0]!).href;
  const hash = createHash("sha256");
  for (const href of [...seen.keys()].sort()) {
    const body = seen.get(href)!;
    hash.update(`${href.startsWith(root) ? href.slice(root.length) : href}\0${body.length}\0`);
    hash.update(body);
  }
  let kernels: Buffer | undefined;
  try {
    kernels = readFileSync(fileURLToPath(KERNELS_URL));
  } catch {
    kernels = undefined;
  }
  hash.update(kernels === undefined ? "no kernels.wasm\0" : `kernels.wasm\0${kernels.length}\0`);
  if (kernels !== undefined) hash.update(kernels);
  const digest = hash.digest("hex");
  memo.set(key, digest);
  return digest;
}
