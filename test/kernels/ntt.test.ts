import { test } from "node:test";
import assert from "node:assert/strict";
import { P, random } from "../../src/field/koalabear.js";
import { nttReference } from "../../src/pcs/ntt.js";
import { evaluateNaive } from "../../src/pcs/ntt.js";
import { nttTwiddleTable, wasmNttBackend } from "../../src/kernels/ntt-kernel.js";
import { rootOfUnity } from "../../src/pcs/domain.js";

test("the twiddle table holds ω_(2h)^k at words [h, 2h) and Shoup companions at [n + h, n + 2h)", () => {
  const t = nttTwiddleTable(4);
  assert.equal(t[1], 1);
  assert.equal(t[3], rootOfUnity(2));
  assert.equal(t[16 + 3], Number((BigInt(rootOfUnity(2)) << 32n) / BigInt(P)));
});

test("the WASM NTT kernel equals the TypeScript reference and the definition, base and extension lanes, across the cache block", () => {
  const wasm = wasmNttBackend();
  assert.ok(wasm, "the kernel module is available in the test processes");
  for (const width of [1, 4]) {
    for (const logN of [1, 2, 3, 4, 5, 8, 12, 13, 14]) {
      const n = 1 << logN;
      const inputs = [new Uint32Array(n * width).map(() => random()), new Uint32Array(n * width).fill(P - 1), Uint32Array.from({ length: n * width }, (_, i) => (i < width ? 1 : 0))];
      for (const input of inputs) {
        const a = input.slice();
        const b = input.slice();
        wasm.forward(a, width, logN);
        nttReference(b, width, logN);
        assert.deepEqual(a, b, `width ${width}, 2^${logN}`);
        if (logN <= 6) assert.deepEqual(a, evaluateNaive(input, width, logN));
      }
    }
  }
});
