/**
 * The WHIR sumcheck (docs/pcs.md §4.5) over Σ_b f̂(b)·ŵ(b), both multilinear and held as their
 * hypercube evaluations (interleaved extension vectors). Round polynomials have degree 2 in the
 * variable bound (variable 0, the low index bit); the prover sends h(0) and h(2), the verifier
 * derives h(1) = claim − h(0).
 */
import { P, add, sub } from "../field/koalabear.js";
import { extMulAddTo } from "../field/ext-inline.js";
import { extAdd, extMul, extScale, extSub, type Ext } from "../field/extension.js";

const INV2 = (P + 1) / 2;

/** [h(0), h(2)] of h(X) = Σ_b' f̂(X, b')·ŵ(X, b'). */
export function roundPolynomial(f: Uint32Array, w: Uint32Array): [Ext, Ext] {
  const h0 = new Uint32Array(4);
  const h2 = new Uint32Array(4);
  const n = f.length / 8;
  for (let i = 0; i < n; i++) {
    const e = 8 * i,
      o = e + 4;
    extMulAddTo(h0, 0, 1, f[e]!, f[e + 1]!, f[e + 2]!, f[e + 3]!, w[e]!, w[e + 1]!, w[e + 2]!, w[e + 3]!);
    // value at X = 2: 2·odd − even
    const f0 = sub(add(f[o]!, f[o]!), f[e]!),
      f1 = sub(add(f[o + 1]!, f[o + 1]!), f[e + 1]!);
    const f2 = sub(add(f[o + 2]!, f[o + 2]!), f[e + 2]!),
      f3 = sub(add(f[o + 3]!, f[o + 3]!), f[e + 3]!);
    const w0 = sub(add(w[o]!, w[o]!), w[e]!),
      w1 = sub(add(w[o + 1]!, w[o + 1]!), w[e + 1]!);
    const w2 = sub(add(w[o + 2]!, w[o + 2]!), w[e + 2]!),
      w3 = sub(add(w[o + 3]!, w[o + 3]!), w[e + 3]!);
    extMulAddTo(h2, 0, 1, f0, f1, f2, f3, w0, w1, w2, w3);
  }
  return [
    [h0[0]!, h0[1]!, h0[2]!, h0[3]!],
    [h2[0]!, h2[1]!, h2[2]!, h2[3]!],
  ];
}

/** h(α) for the degree-2 polynomial through (0, h0), (1, claim − h0), (2, h2). */
export function roundValueAt(claim: Ext, h0: Ext, h2: Ext, alpha: Ext): Ext {
  const h1 = extSub(claim, h0);
  const a1 = extSub(alpha, [1, 0, 0, 0]);
  const a2 = extSub(alpha, [2, 0, 0, 0]);
  const l0 = extScale(extMul(a1, a2), INV2);
  const l1 = extSub([0, 0, 0, 0], extMul(alpha, a2));
  const l2 = extScale(extMul(alpha, a1), INV2);
  return extAdd(extAdd(extMul(h0, l0), extMul(h1, l1)), extMul(h2, l2));
}
