// GKR layer sumcheck kernels (compat-v1 §10.4 recommended two-phase oracle), driven by
// src/gkr/wasm/oracle.ts. Every table lives in the imported memory in Montgomery form; challenges
// are passed canonical; results leave canonical.
//
// Phase 1 (x rounds) keeps three plane-layout tables of length L: A (lin + booking table), Pw (the
// Pow3 table, only when the layer has Pow3 gates) and V (the layer-below vector: the base table Vb
// before the first challenge, the extension table Vx after it). The round value at node T is
// Σ_{i<L/2} V_T·(A_T + Pw_T·V_T²), t_T = t[i] + T·(t[i+L/2] − t[i]), at T = 0..4 (T = 0..2 without
// Pow3 gates). `gkr_round` binds the previous challenge (fold of every table) and evaluates the
// next round in the same pass over the tables, then interpolates the evaluations to coefficients.
// Phase 2 of layers with Mul gates reuses it with A = mulx, no Pw and V = V(y) (RAW sums).
//
// Layer descriptor (8 words, see src/gkr/wasm/image.ts): linPtr, nLin, mulPtr, nMul, powPtr, nPow,
// constPtr, nConst. Records: Lin/Pow3 (out, in1, coeff), Mul (out, in1, in2, coeff), constants
// (wire, value); coefficients and values in Montgomery form. Wire numbers are masked with the table
// size minus one, so a malformed record can never address memory outside its table.
//
// Output region `out` (OUT_WORDS words, ../abi): words [0, OUT_RESULT) accumulators, results from
// word OUT_RESULT.
//
// Files: gkr-eq.ts (eq tables, claim weights), gkr-fill.ts (phase-1 tables), gkr-round.ts with
// gkr-round-blocks.ts and the generated gkr-round-variants.ts (rounds), gkr-phase2.ts (phase-2
// start), gkr-mle.ts (base-vector MLE); circuit-eval.ts evaluates circuit layers.
export { gkr_eq, gkr_weights } from "./gkr-eq";
export { gkr_fill } from "./gkr-fill";
export { gkr_out_words, gkr_round } from "./gkr-round";
export { gkr_phase2_start } from "./gkr-phase2";
export { gkr_mle_base } from "./gkr-mle";
export { gkr_eval_layer } from "./circuit-eval";
