import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { evaluateStructuredCopies, proveCopiesGkr } from "../../src/gkr/structured/dp-prover.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { OpKind } from "../../src/statement/types.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import type { MulBooking } from "../../src/gkr/structured/dp-oracle.js";
import { tsCopiesBackend } from "../../src/gkr/structured/dp-ts-backend.js";
import {
  elementsOf,
  foldList,
  foldPlanes,
  planesOf,
  productEvaluations,
  productEvaluationsPlanes,
} from "../../src/gkr/structured/dp-planes.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);
const arbTable = (bits: number) => fc.array(arbExt, { minLength: 2 ** bits, maxLength: 2 ** bits });

test("plane tables: productEvaluationsPlanes equals productEvaluations and foldPlanes equals foldList, round after round (random and edge values)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(2, 4),
      fc.infiniteStream(arbExt),
      fc.gen(),
      (bits, nq, m, rs, gen) => {
        let es = Array.from({ length: nq }, () => gen(arbTable, bits));
        let ls = Array.from({ length: nq }, () => gen(arbTable, bits));
        const pe = es.map(planesOf),
          pl = ls.map(planesOf);
        const challenges = rs.take(bits);
        for (const r of challenges) {
          assert.deepEqual(
            productEvaluationsPlanes(
              pe.map((e, q) => [e, pl[q]!] as const),
              m,
            ),
            productEvaluations(
              es.map((e, q) => [e, ls[q]!] as const),
              m,
            ),
          );
          es = es.map((e) => foldList(e, r));
          ls = ls.map((l) => foldList(l, r));
          for (const t of [...pe, ...pl]) foldPlanes(t, r);
          pe.forEach((t, q) => assert.deepEqual(elementsOf(t), es[q]));
          pl.forEach((t, q) => assert.deepEqual(elementsOf(t), ls[q]));
        }
        assert.equal(pe[0]!.len, 1);
      },
    ),
    { numRuns: 60 },
  );
});

test("productEvaluationsPlanes stays exact past its unreduced-sum limit (all entries p − 1, more than 2^17 terms)", () => {
  const n = 2 ** 16;
  const big: Ext = [P - 1, P - 1, P - 1, P - 1];
  const mixed: Ext = [P - 1, 0, P - 1, 1];
  const pairs: (readonly [Ext[], Ext[]])[] = [];
  for (let q = 0; q < 5; q++) {
    const e = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? mixed : big));
    const l = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? mixed : big));
    pairs.push([e, l]);
  }
  const want = productEvaluations(pairs, 4);
  assert.deepEqual(
    productEvaluationsPlanes(
      pairs.map(([e, l]) => [planesOf(e), planesOf(l)] as const),
      4,
    ),
    want,
  );
});

test("proveCopiesGkr: an evaluated witness (values not scanned again) and a copy of it (scanned) give the same proof; a non-canonical copy is refused", () => {
  const compiled = compileV2(OpKind.Membership, { depth: 2 });
  const k = 2;
  const input = Uint32Array.from({ length: 4 * 2 ** compiled.circuit.inputWidthBits }, (_, i) => (i * 2654435761) % P);
  const wit = evaluateStructuredCopies(compiled.circuit, k, input);
  const copy = wit.map((v) => v.slice());
  assert.deepEqual(
    proveCopiesGkr(compiled.circuit, k, wit, transcriptAfterOutputs(wit[0]!)),
    proveCopiesGkr(compiled.circuit, k, copy, transcriptAfterOutputs(copy[0]!)),
  );
  copy[2]![7] = P;
  assert.throws(
    () => proveCopiesGkr(compiled.circuit, k, copy, transcriptAfterOutputs(copy[0]!)),
    (e: unknown) => e instanceof CircuitError && e.code === "WITNESS_NON_CANONICAL",
  );
});

test("the dense tables with Mul booking (dp_mul_booking) give the TypeScript backend's round values (random and edge values, several claims)", () => {
  const kernels = gkrKernels();
  if (!kernels || !hasCopiesKernels(kernels)) return;
  const wasm = wasmCopiesBackend(kernels);
  // The dense tables serve the k ≥ 1 copy rounds (entries c·m + j, halved by the top copy bit).
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 2 }),
      fc.boolean(),
      fc.gen(),
      (k, s, m0, G, nq, withPow, gen) => {
        const K = 2 ** k,
          n = 2 ** s;
        const m = Math.min(m0 * 5, n);
        const below = Uint32Array.from({ length: K * n }, () => gen(() => fe));
        const lanes = Int32Array.from({ length: m }, (_, j) => j);
        const mul: MulBooking = {
          slots: Int32Array.from({ length: G }, () => gen(() => fc.integer({ min: 0, max: m - 1 }))),
          in2: Uint32Array.from({ length: G }, () => gen(() => fc.integer({ min: 0, max: n - 1 }))),
          u: Array.from({ length: nq }, () => Uint32Array.from({ length: 4 * G }, () => gen(() => fe))),
        };
        const e = Array.from({ length: nq }, () => Array.from({ length: K }, () => gen(() => arbExt)));
        const pw = withPow
          ? Array.from({ length: nq }, () => Uint32Array.from({ length: 4 * m }, () => gen(() => fe)))
          : null;
        const a = tsCopiesBackend.load(below, K, n).dense(lanes, mul, e, pw);
        const loaded = wasm.load(below, K, n);
        const b = loaded.dense(lanes, mul, e, pw);
        try {
          const deg = withPow ? 4 : 2;
          const rs = gen(() => fc.array(arbExt, { minLength: k, maxLength: k }));
          for (const r of rs) {
            assert.deepEqual(b.evaluations(deg), a.evaluations(deg));
            a.bind(r);
            b.bind(r);
          }
          assert.deepEqual(b.readA(m), a.readA(m));
        } finally {
          b.dispose();
          loaded.dispose();
        }
      },
    ),
    { numRuns: 80 },
  );
});
