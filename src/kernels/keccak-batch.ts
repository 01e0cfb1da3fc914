/**
 * Batched Keccak-256 (original Keccak padding, the Ethereum keccak256) over byte ranges of one
 * buffer, on the generated WebAssembly module of keccak-wasm.ts. This is the bulk-import fast
 * path; the reference is `keccak_256` of `@noble/hashes` (differential test in
 * test/kernels/keccak.test.ts). It runs in Node and in the browser page alike (the module is
 * small enough for synchronous compilation on a browser's main thread).
 */
import { KECCAK_WASM_BASE64 } from "./keccak-wasm.js";

interface KeccakExports {
  readonly memory: WebAssembly.Memory;
  heap_base(): number;
  keccak256_many(data: number, ranges: number, n: number, out: number): void;
}

let compiled: WebAssembly.Module | undefined;

const align = (x: number) => (x + 63) & ~63;

/** The module's bytes from its base64 text, with `atob` (Node and browsers alike: no `Buffer`). */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const bin = atob(KECCAK_WASM_BASE64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** One module instance with its own memory; one per thread. */
export class KeccakBatch {
  private readonly ex: KeccakExports;
  private readonly base: number;

  constructor() {
    compiled ??= new WebAssembly.Module(moduleBytes());
    this.ex = new WebAssembly.Instance(compiled, {}).exports as unknown as KeccakExports;
    this.base = align(this.ex.heap_base());
  }

  /**
   * Keccak-256 of n byte ranges of `bytes`: range i is [ranges[2i], ranges[2i + 1]), with
   * 0 ≤ start ≤ end ≤ bytes.length (not checked). Returns 32·n bytes, digest i at 32·i.
   */
  hashRanges(bytes: Uint8Array, ranges: Uint32Array, n: number): Uint8Array {
    const dataAt = this.base;
    const rangesAt = align(dataAt + bytes.length);
    const outAt = align(rangesAt + 8 * n);
    const need = outAt + 32 * n;
    const have = this.ex.memory.buffer.byteLength;
    if (need > have) this.ex.memory.grow(Math.ceil((need - have) / 65536));
    const buf = this.ex.memory.buffer;
    new Uint8Array(buf, dataAt, bytes.length).set(bytes);
    new Uint32Array(buf, rangesAt, 2 * n).set(ranges.subarray(0, 2 * n));
    this.ex.keccak256_many(dataAt, rangesAt, n, outAt);
    return new Uint8Array(buf, outAt, 32 * n).slice();
  }

  /** Keccak-256 of n consecutive strings: string i is bytes[offsets[i], offsets[i + 1]). */
  hashPacked(bytes: Uint8Array, offsets: Uint32Array, n: number): Uint8Array {
    const ranges = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      ranges[2 * i] = offsets[i]!;
      ranges[2 * i + 1] = offsets[i + 1]!;
    }
    return this.hashRanges(bytes, ranges, n);
  }
}

let single: KeccakBatch | undefined;
const oneRange = new Uint32Array(2);

/**
 * Keccak-256 of `bytes` (32 bytes) on this thread's instance of the module: the names' keys and
 * identities and the text values' digests of every write (several times faster than
 * `keccak_256` of @noble/hashes, the reference, on names and values).
 * @example keccak256(new TextEncoder().encode("left-pad")) // 32 bytes
 */
export function keccak256(bytes: Uint8Array): Uint8Array {
  single ??= new KeccakBatch();
  oneRange[1] = bytes.length;
  return single.hashRanges(bytes, oneRange, 1);
}
