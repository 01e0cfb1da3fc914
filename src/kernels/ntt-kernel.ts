/**
 * The WASM backend of the polynomial commitment's NTT (src/pcs/ntt.ts, the seam): copies the
 * values into this thread's kernel memory, runs `ntt_forward` (src/kernels/assembly/ntt.ts) with
 * a cached twiddle table per size, and copies the result back. Same results as `nttReference`
 * (test/kernels/ntt.test.ts).
 */
import { mul } from "../field/koalabear.js";
import { rootOfUnity } from "../pcs/domain.js";
import type { NttBackend } from "../pcs/ntt.js";
import { defaultKernels, type Kernels } from "./kernels.js";
import type { Region } from "./memory.js";

function shoup(b: number): number {
  return Number((BigInt(b) << 32n) / 2130706433n);
}

/** Words [h, 2h): ω_(2h)^k for k < h; words [n + h, n + 2h): their Shoup companions. */
export function nttTwiddleTable(logN: number): Uint32Array {
  const n = 1 << logN;
  const table = new Uint32Array(2 * n);
  for (let h = 1; h < n; h <<= 1) {
    const w = rootOfUnity(Math.log2(2 * h));
    let acc = 1;
    for (let k = 0; k < h; k++) {
      table[h + k] = acc;
      table[n + h + k] = shoup(acc);
      acc = mul(acc, w);
    }
  }
  return table;
}

class WasmNtt implements NttBackend {
  readonly name = "wasm" as const;
  private readonly twiddles = new Map<number, Region>();
  constructor(private readonly kernels: Kernels) {}

  private table(logN: number): Region {
    let r = this.twiddles.get(logN);
    if (r === undefined) {
      r = this.kernels.heap.allocFrom(nttTwiddleTable(logN));
      this.twiddles.set(logN, r);
    }
    return r;
  }

  forward(values: Uint32Array, width: number, logN: number): void {
    if (logN === 0) return;
    const tw = this.table(logN);
    const data = this.kernels.heap.allocFrom(values);
    try {
      this.kernels.instance.raw.ntt_forward(data.ptr, logN, width, tw.ptr);
      values.set(data.view());
    } finally {
      this.kernels.heap.release(data);
    }
  }
}

let backend: WasmNtt | null | undefined;

/** This thread's WASM NTT backend, or null when the kernel module is unavailable. */
export function wasmNttBackend(): NttBackend | null {
  if (backend === undefined) {
    try {
      backend = new WasmNtt(defaultKernels());
    } catch {
      backend = null;
    }
  }
  return backend;
}
