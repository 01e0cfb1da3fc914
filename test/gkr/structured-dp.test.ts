import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { inputBitsOf } from "../../src/gkr/circuit.js";
import { CircuitError } from "../../src/gkr/errors.js";
import {
  evaluateStructuredCircuit,
  expandStructuredLayer,
  type StructuredCircuit,
} from "../../src/gkr/structured/linear.js";
import { proveStructuredGkr, structuredLayerOracle } from "../../src/gkr/structured/oracle.js";
import { replicateStructuredCircuit } from "../../src/gkr/structured/copies.js";
import { CopiesLayerOracle, type CopiesBackend } from "../../src/gkr/structured/dp-oracle.js";
import { tsCopiesBackend } from "../../src/gkr/structured/dp-ts-backend.js";
import { eqTableWasm, hasCopiesKernels, wasmCopiesBackend } from "../../src/gkr/structured/dp-wasm.js";
import { KeptVector, evaluateCopiesWasm, hasCopiesEvalKernel } from "../../src/gkr/structured/dp-resident.js";
import {
  evaluateCopiesTs,
  evaluateStructuredCopies,
  proveCopiesGkr,
  residentCopies,
  valuesOf,
} from "../../src/gkr/structured/dp-prover.js";
import { gkrKernels } from "../../src/gkr/wasm/kernels.js";
import { dropRecycledWords, recycledWords } from "../../src/memory/recycled-words.js";
import { eqTable } from "../../src/sumcheck/mle.js";
import { interpolateRoundPoly } from "../../src/sumcheck/interpolate.js";
import type { SumcheckOracle } from "../../src/sumcheck/oracle.js";
import { compileV2 } from "../../src/smt/v2/compile.js";
import { buildV2Input } from "../../src/smt/v2/input.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { OpKind } from "../../src/statement/types.js";
import { DenseLayerOracle } from "../support/dense-oracle.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { Rng, arbStructuredCase } from "./random-structured.js";

const kernels = gkrKernels();
const backends: CopiesBackend[] = [tsCopiesBackend];
if (kernels && hasCopiesKernels(kernels)) backends.push(wasmCopiesBackend(kernels));

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

/** 2^k inputs of the single circuit: random, all-zero or all p − 1 (edge values), back to back. */
/** The inputs of 2^k golden requests of `kind` at depth 3 (seeds offset … offset + 2^k − 1), back to back. */
function v2CopiesInput(compiled: ReturnType<typeof compileV2>, kind: OpKind, k: number, offset: number): Uint32Array {
  const size = 2 ** compiled.circuit.inputWidthBits;
  const input = new Uint32Array(size * 2 ** k);
  for (let c = 0; c < 2 ** k; c++)
    input.set(buildV2Input(compiled.layout, goldenFixture(kind, 3, BigInt(c + offset))), c * size);
  return input;
}

function copiesInput(circuit: StructuredCircuit, k: number, seed: number): Uint32Array {
  const rng = new Rng(seed);
  const n = 2 ** circuit.inputWidthBits;
  const mode = seed % 5;
  return Uint32Array.from({ length: n * 2 ** k }, () => (mode === 0 ? 0 : mode === 1 ? P - 1 : rng.fe()));
}

function coefficients(o: SumcheckOracle): Ext[] {
  const m = o.roundPolynomial();
  return m.kind === "evaluations"
    ? interpolateRoundPoly(m.values)
    : [...m.values, ...Array(5 - m.values.length).fill([0, 0, 0, 0])];
}

test("the data-parallel prover gives the replicated circuit's proof, on every backend (K = 1, 2, 4, 8)", () => {
  assert.ok(
    kernels === null || backends.length === 2,
    "the kernel module has the data-parallel kernels (npm run build:kernels)",
  );
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 3, maxBits: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.nat(),
      (c, k, seed) => {
        const rep = replicateStructuredCircuit(c.circuit, k);
        const wit = evaluateStructuredCircuit(rep, copiesInput(c.circuit, k, seed));
        const ref = proveStructuredGkr(rep, wit, transcriptAfterOutputs(wit[0]!), {
          oracleFactory: structuredLayerOracle,
        });
        for (const backend of backends) {
          const got = proveCopiesGkr(c.circuit, k, wit, transcriptAfterOutputs(wit[0]!), { backend });
          assert.deepEqual(got, ref, backend.name);
        }
      },
    ),
    { numRuns: 80 },
  );
});

test("data-parallel round polynomials equal the dense oracle's on the expanded replicated layer", () => {
  const arb = fc
    .tuple(arbStructuredCase({ maxDepth: 1, maxBits: 3 }), fc.integer({ min: 0, max: 2 }))
    .chain(([c, k]) => {
      const sOut = c.circuit.layers[0]!.widthBits + k;
      const s = inputBitsOf(c.circuit, 0) + k;
      const pt = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
      return fc.tuple(
        fc.constant(c),
        fc.constant(k),
        fc.array(fc.tuple(pt(sOut), arbExt), { minLength: 1, maxLength: 2 }),
        pt(2 * s),
        fc.nat(),
      );
    });
  fc.assert(
    fc.property(arb, ([c, k, rawClaims, challenges, seed]) => {
      const rep = replicateStructuredCircuit(c.circuit, k);
      const below = evaluateStructuredCircuit(rep, copiesInput(c.circuit, k, seed))[1]!;
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      const s = inputBitsOf(c.circuit, 0);
      for (const backend of backends) {
        const dp = new CopiesLayerOracle(backend, {
          layer: c.circuit.layers[0]!,
          layerIndex: 0,
          copyBits: k,
          inputBits: s,
          below,
          claims,
        });
        const dense = new DenseLayerOracle({
          layer: expandStructuredLayer(rep.layers[0]!),
          layerIndex: 0,
          inputBits: s + k,
          below,
          claims,
        });
        assert.equal(dp.numVariables, dense.numVariables);
        challenges.forEach((r, j) => {
          assert.deepEqual(coefficients(dp), coefficients(dense), `${backend.name} round ${j}`);
          dp.bind(r);
          dense.bind(r);
        });
        assert.deepEqual(dp.evalX(), dense.evalX());
        assert.deepEqual(dp.evalY(), dense.evalY());
      }
    }),
    { numRuns: 60 },
  );
});

test("the data-parallel prover gives the replicated proof of real v2 circuits (depth 3, every kind, K = 1, 2, 4)", () => {
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const compiled = compileV2(kind, { depth: 3 });
    for (const k of [0, 1, 2]) {
      const input = v2CopiesInput(compiled, kind, k, 0);
      const rep = replicateStructuredCircuit(compiled.circuit, k);
      const wit = evaluateStructuredCircuit(rep, input);
      const ref = proveStructuredGkr(rep, wit, transcriptAfterOutputs(wit[0]!));
      for (const backend of backends) {
        assert.deepEqual(
          proveCopiesGkr(compiled.circuit, k, wit, transcriptAfterOutputs(wit[0]!), { backend }),
          ref,
          `kind ${kind} k ${k} ${backend.name}`,
        );
      }
    }
  }
});

test("the data-parallel prover refuses bad copy bits and witnesses of the wrong shape", () => {
  const compiled = compileV2(OpKind.Membership, { depth: 2 });
  const rep = replicateStructuredCircuit(compiled.circuit, 1);
  const input = new Uint32Array(2 ** rep.inputWidthBits);
  const wit = evaluateStructuredCircuit(rep, input);
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof CircuitError ? e.code : String(e);
    }
    return "none";
  };
  assert.equal(
    code(() => proveCopiesGkr(compiled.circuit, 13, wit, transcriptAfterOutputs(wit[0]!))),
    "BAD_OPTION",
  );
  assert.equal(
    code(() => proveCopiesGkr(compiled.circuit, 2, wit, transcriptAfterOutputs(wit[0]!))),
    "WITNESS_WIDTH",
  );
  assert.equal(
    code(() => proveCopiesGkr(compiled.circuit, 1, wit.slice(1), transcriptAfterOutputs(wit[0]!))),
    "WITNESS_LENGTH",
  );
  const bad = wit.map((v) => v.slice());
  bad[3]![5] = P;
  assert.equal(
    code(() => proveCopiesGkr(compiled.circuit, 1, bad, transcriptAfterOutputs(wit[0]!))),
    "WITNESS_NON_CANONICAL",
  );
});

test("the copies' witness equals the replicated circuit's evaluation (TypeScript and WASM, random and edge inputs)", () => {
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 3, maxBits: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.nat(),
      (c, k, seed) => {
        const input = copiesInput(c.circuit, k, seed);
        const ref = evaluateStructuredCircuit(replicateStructuredCircuit(c.circuit, k), input);
        assert.deepEqual(evaluateCopiesTs(c.circuit, k, input), ref);
        if (kernels && hasCopiesEvalKernel(kernels))
          assert.deepEqual(evaluateCopiesWasm(kernels, c.circuit, k, input), ref);
        assert.deepEqual(evaluateStructuredCopies(c.circuit, k, input), ref);
      },
    ),
    { numRuns: 80 },
  );
  const compiled = compileV2(OpKind.Update, { depth: 3 });
  const size = 2 ** compiled.circuit.inputWidthBits;
  const input = new Uint32Array(3 * size);
  assert.throws(
    () => evaluateStructuredCopies(compiled.circuit, 1, input),
    (e) => e instanceof CircuitError && e.code === "INPUT_WIDTH",
  );
  const bad = new Uint32Array(2 * size);
  bad[7] = P;
  assert.throws(
    () => evaluateStructuredCopies(compiled.circuit, 1, bad),
    (e) => e instanceof CircuitError && e.code === "INPUT_WIDTH",
  );
});

test("the WASM backend's eq tables equal eqTable (random and edge points and scales, 0 to 13 coordinates)", {
  skip: kernels === null,
}, () => {
  fc.assert(
    fc.property(
      fc.array(arbExt, { minLength: 0, maxLength: 13 }),
      fc.option(arbExt, { nil: undefined }),
      (point, scale) => {
        const got = eqTableWasm(kernels!, point, scale);
        const ref = eqTable(point, scale);
        assert.equal(got.length, ref.length);
        assert.deepEqual(got.data, ref.data);
      },
    ),
    { numRuns: 120 },
  );
  const backend = wasmCopiesBackend(kernels!);
  assert.deepEqual(backend.eqTable!([[1, 2, 3, 4]], [5, 6, 7, 8]).data, eqTable([[1, 2, 3, 4]], [5, 6, 7, 8]).data);
  assert.throws(
    () =>
      eqTableWasm(
        kernels!,
        Array.from({ length: 31 }, () => [0, 0, 0, 0] as Ext),
      ),
    (e) => e instanceof Error && (e as { code?: string }).code === "BAD_POINT",
  );
});

test("layer vectors kept in kernel memory give the same witness and proofs as fresh copies, across successive proofs of different inputs and after release", {
  skip: kernels === null || !hasCopiesEvalKernel(kernels) || !hasCopiesKernels(kernels),
}, () => {
  const wasm = wasmCopiesBackend(kernels!);
  const check = (circuit: StructuredCircuit, k: number, input: Uint32Array, what: string) => {
    const fresh = evaluateStructuredCopies(circuit, k, input);
    const ref = proveCopiesGkr(circuit, k, fresh, transcriptAfterOutputs(fresh[0]!), { backend: wasm });
    const keep = residentCopies()!;
    try {
      const kept = evaluateStructuredCopies(circuit, k, input, keep);
      assert.ok(keep.live, what);
      const D = kept.length - 1;
      assert.ok(kept[0] instanceof Uint32Array, `${what}: the outputs are copied out`);
      assert.deepEqual(kept[0], fresh[0], what);
      assert.ok(
        kept.slice(1).every((v) => v instanceof KeptVector),
        `${what}: vectors 1..D are kept`,
      );
      assert.equal(valuesOf(kept[D]!), input, `${what}: the kept input is the caller's`);
      // proved from the kept vectors before any is read out (as the provers do)
      assert.deepEqual(
        proveCopiesGkr(circuit, k, kept, transcriptAfterOutputs(valuesOf(kept[0]!)), { backend: wasm }),
        ref,
        what,
      );
      assert.deepEqual(kept.map(valuesOf), fresh, `${what}: read out canonical`);
      // proved twice from the same kept vectors (each layer's oracle must leave them as they were)
      assert.deepEqual(
        proveCopiesGkr(circuit, k, kept, transcriptAfterOutputs(valuesOf(kept[0]!)), { backend: wasm }),
        ref,
        `${what}, again`,
      );
      // released before any is read out: each is read out first, then copied in as any other
      const again = residentCopies()!;
      const unread = evaluateStructuredCopies(circuit, k, input, again);
      again.release();
      assert.equal(again.live, false);
      assert.deepEqual(unread.map(valuesOf), fresh, `${what}: read out at release`);
      assert.deepEqual(
        proveCopiesGkr(circuit, k, unread, transcriptAfterOutputs(valuesOf(unread[0]!)), { backend: wasm }),
        ref,
        `${what}, released`,
      );
      keep.release();
      assert.equal(keep.live, false);
      // released: the vectors are copied in as any others
      assert.deepEqual(
        proveCopiesGkr(circuit, k, kept, transcriptAfterOutputs(valuesOf(kept[0]!)), { backend: wasm }),
        ref,
        `${what}, released`,
      );
    } finally {
      keep.release();
    }
  };
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 3, maxBits: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.nat(),
      (c, k, seed) => {
        check(c.circuit, k, copiesInput(c.circuit, k, seed), `random k ${k}`);
        check(c.circuit, k, copiesInput(c.circuit, k, seed + 1), `random k ${k}, next input`);
      },
    ),
    { numRuns: 40 },
  );
  for (const kind of [OpKind.Membership, OpKind.NonMembership, OpKind.Update]) {
    const compiled = compileV2(kind, { depth: 3 });
    for (const [k, offset] of [
      [2, 0],
      [2, 3],
      [3, 0],
    ] as const) {
      const input = v2CopiesInput(compiled, kind, k, offset);
      check(compiled.circuit, k, input, `kind ${kind} k ${k} requests from ${offset}`);
    }
  }
  // two keepers alive at once, released in either order
  const compiled = compileV2(OpKind.Membership, { depth: 3 });
  const size = 2 ** compiled.circuit.inputWidthBits;
  const inputs = [0, 4].map((o) => {
    const input = new Uint32Array(size * 4);
    for (let c = 0; c < 4; c++)
      input.set(buildV2Input(compiled.layout, goldenFixture(OpKind.Membership, 3, BigInt(c + o))), c * size);
    return input;
  });
  const refs = inputs.map((input) => {
    const w = evaluateStructuredCopies(compiled.circuit, 2, input);
    return proveCopiesGkr(compiled.circuit, 2, w, transcriptAfterOutputs(w[0]!), { backend: wasm });
  });
  const keeps = [residentCopies()!, residentCopies()!];
  const wits = inputs.map((input, i) => evaluateStructuredCopies(compiled.circuit, 2, input, keeps[i]!));
  assert.deepEqual(
    proveCopiesGkr(compiled.circuit, 2, wits[1]!, transcriptAfterOutputs(valuesOf(wits[1]![0]!)), { backend: wasm }),
    refs[1],
  );
  keeps[0]!.release();
  assert.deepEqual(
    proveCopiesGkr(compiled.circuit, 2, wits[1]!, transcriptAfterOutputs(valuesOf(wits[1]![0]!)), { backend: wasm }),
    refs[1],
  );
  assert.deepEqual(
    proveCopiesGkr(compiled.circuit, 2, wits[0]!, transcriptAfterOutputs(valuesOf(wits[0]![0]!)), { backend: wasm }),
    refs[0],
  );
  keeps[1]!.release();
});

test("successive evaluations on recycled vectors give the fresh witnesses and the same proofs; recycle is idempotent and the input is never taken", {
  skip: kernels === null || !hasCopiesEvalKernel(kernels) || !hasCopiesKernels(kernels),
}, () => {
  dropRecycledWords();
  const wasm = wasmCopiesBackend(kernels!);
  let reused = 0;
  const given = new WeakSet<Uint32Array>();
  const count = (vectors: readonly Uint32Array[]) => {
    if (vectors.some((v) => given.has(v))) reused++;
  };
  const run = (circuit: Parameters<typeof evaluateStructuredCopies>[0], k: number, input: Uint32Array) => {
    const truth = evaluateCopiesTs(circuit, k, input);
    // without a lease: may take listed vectors, never gives them back
    const fresh = evaluateStructuredCopies(circuit, k, input);
    count(fresh);
    assert.deepEqual(fresh, truth);
    const ref = proveCopiesGkr(circuit, k, fresh, transcriptAfterOutputs(fresh[0]!), { backend: wasm });
    const keep = residentCopies()!;
    let kept: Uint32Array[];
    try {
      const held = evaluateStructuredCopies(circuit, k, input, keep);
      assert.deepEqual(
        proveCopiesGkr(circuit, k, held, transcriptAfterOutputs(valuesOf(held[0]!)), { backend: wasm }),
        ref,
      );
      kept = held.map(valuesOf);
      count(kept);
      assert.deepEqual(kept, truth);
    } finally {
      keep.recycle();
      keep.recycle();
    }
    assert.equal(kept[kept.length - 1], input, "the input is the caller's");
    const words = kept.slice(1, -1).reduce((s, v) => s + v.length, 0);
    assert.ok(recycledWords() >= words, "the inner vectors are listed");
    // scribble on the listed vectors: the next evaluation must overwrite every word it hands out
    for (const v of kept.slice(1, -1)) {
      v.fill(0xffffffff);
      given.add(v);
    }
    // a vector never read out has no values once its keeper recycled
    const lost = residentCopies()!;
    const unread = evaluateStructuredCopies(circuit, k, input, lost);
    lost.recycle();
    if (unread.length > 2)
      assert.throws(
        () => valuesOf(unread[1]!),
        (e) => e instanceof Error && (e as { code?: string }).code === "BAD_REGION",
      );
    assert.equal(valuesOf(unread[unread.length - 1]!), input);
  };
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 3, maxBits: 5 }),
      fc.integer({ min: 0, max: 3 }),
      fc.nat(),
      (c, k, seed) => {
        run(c.circuit, k, copiesInput(c.circuit, k, seed));
        run(c.circuit, k, copiesInput(c.circuit, k, seed + 1));
      },
    ),
    { numRuns: 30 },
  );
  const compiled = compileV2(OpKind.Update, { depth: 3 });
  for (const offset of [0, 4]) run(compiled.circuit, 2, v2CopiesInput(compiled, OpKind.Update, 2, offset));
  assert.ok(reused > 0, "some evaluations took recycled vectors");
  dropRecycledWords();
});
