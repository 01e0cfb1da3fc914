/**
 * UTF-8 validity without importing a Node built-in: Node's `buffer.isUtf8` (SIMD) when the runtime
 * has it (`process.getBuiltinModule`, Node ≥ 20.16), else a fatal `TextDecoder` (browsers, older
 * Node). Both answer the same for every byte string.
 */

/** The `isUtf8` of `node:buffer` when this runtime has one, else undefined. */
function nodeIsUtf8(): ((bytes: Uint8Array) => boolean) | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const buffer = proc?.getBuiltinModule?.("node:buffer") as { isUtf8?: (b: Uint8Array) => boolean } | undefined;
  return buffer?.isUtf8;
}

const strict = new TextDecoder("utf-8", { fatal: true });

/** True iff the bytes are valid UTF-8 (a fatal `TextDecoder`). */
export function decoderIsUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * True iff the bytes are valid UTF-8.
 * @example
 *   isUtf8(new TextEncoder().encode("left-pad")); // true
 *   isUtf8(Uint8Array.of(0xc3)); // false
 */
export const isUtf8: (bytes: Uint8Array) => boolean = nodeIsUtf8() ?? decoderIsUtf8;
