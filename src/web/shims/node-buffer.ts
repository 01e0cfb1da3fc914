/** Browser stand-in for `node:buffer` (bundled in place of it by scripts/build-web.mjs). */
const strict = new TextDecoder("utf-8", { fatal: true });

/** True iff the bytes are valid UTF-8 (as Node's `buffer.isUtf8`). */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
