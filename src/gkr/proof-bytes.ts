/**
 * A canonical byte serialization of a GKR proof, laid out like the per-layer part of
 * inner-proof-v1 (compat-v1 §14.1 from offset 166): layer count u32; per layer: round count u32,
 * per round the coefficient count u8 then each coefficient as 4 u32 (c0..c3); then eval_x, eval_y.
 * All integers little-endian. Used to hash and compare proofs (regression tests, benchmarks).
 */
import { element } from "../field/koalabear.js";
import type { Ext } from "../field/extension.js";
import type { GkrProof } from "./proof.js";

/** @throws FieldError if a value is not canonical. */
export function gkrProofBytes(proof: GkrProof): Uint8Array {
  let size = 4;
  for (const l of proof.layers) {
    size += 4 + 32;
    for (const r of l.rounds) size += 1 + 16 * r.length;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let o = 0;
  const u32 = (v: number) => {
    view.setUint32(o, v, true);
    o += 4;
  };
  const ext = (e: Ext, what: string) => {
    for (let c = 0; c < 4; c++) u32(element(e[c], `${what}.c${c}`));
  };
  u32(proof.layers.length);
  proof.layers.forEach((l, i) => {
    u32(l.rounds.length);
    l.rounds.forEach((r, j) => {
      view.setUint8(o++, r.length);
      r.forEach((a, k) => ext(a, `layer ${i} round ${j} coefficient ${k}`));
    });
    ext(l.evalX, `layer ${i} evalX`);
    ext(l.evalY, `layer ${i} evalY`);
  });
  return out;
}
