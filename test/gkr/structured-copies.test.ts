import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import { GateKind, inputBitsOf } from "../../src/gkr/circuit.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { evaluateStructuredCircuit, expandStructuredCircuit } from "../../src/gkr/structured/linear.js";
import { proveStructuredGkr } from "../../src/gkr/structured/oracle.js";
import { StructuredWiring } from "../../src/gkr/structured/wiring.js";
import { CopiesWiring, mulFreeLayers, replicateStructuredCircuit } from "../../src/gkr/structured/copies.js";
import { transcriptAfterOutputs } from "./random-circuit.js";
import { Rng, arbStructuredCase } from "./random-structured.js";

const fe = fc.oneof(fc.constantFrom(0, 1, P - 1), fc.integer({ min: 0, max: P - 1 }));
const arbExt = fc.tuple(fe, fe, fe, fe).map((t) => t as Ext);

test("replicated circuits evaluate each copy as the single circuit on that copy's input", () => {
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 2, maxBits: 4 }),
      fc.integer({ min: 0, max: 2 }),
      fc.nat(),
      (c, k, seed) => {
        const rep = replicateStructuredCircuit(c.circuit, k);
        const rng = new Rng(seed + 1);
        const n = 2 ** c.circuit.inputWidthBits;
        const inputs = Array.from({ length: 2 ** k }, () => Uint32Array.from({ length: n }, () => rng.fe()));
        const all = new Uint32Array(n * 2 ** k);
        inputs.forEach((v, i) => all.set(v, i * n));
        const out = evaluateStructuredCircuit(rep, all)[0]!;
        const w = 2 ** c.circuit.layers[0]!.widthBits;
        inputs.forEach((v, i) =>
          assert.deepEqual(out.slice(i * w, (i + 1) * w), evaluateStructuredCircuit(c.circuit, v)[0]!),
        );
      },
    ),
    { numRuns: 60 },
  );
});

test("copies wiring equals the table wiring of the expanded replicated circuit at random points", () => {
  const arb = fc
    .tuple(arbStructuredCase({ maxDepth: 2, maxBits: 4 }), fc.integer({ min: 0, max: 3 }))
    .chain(([c, k]) => {
      const sOut = c.circuit.layers[0]!.widthBits + k;
      const s = inputBitsOf(c.circuit, 0) + k;
      const pt = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
      return fc.tuple(
        fc.constant(c),
        fc.constant(k),
        fc.array(fc.tuple(pt(sOut), arbExt), { minLength: 1, maxLength: 2 }),
        pt(s),
        pt(s),
      );
    });
  fc.assert(
    fc.property(arb, ([c, k, rawClaims, x, y]) => {
      const ref = new TableWiring(expandStructuredCircuit(replicateStructuredCircuit(c.circuit, k)));
      const w = new CopiesWiring(new StructuredWiring(c.circuit, new TableWiring(c.circuit)), k);
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      assert.deepEqual(w.evalCombined(0, claims, x, y), ref.evalCombined(0, claims, x, y));
      assert.deepEqual(w.evalConstCombined(0, claims), ref.evalConstCombined(0, claims));
      const z = claims[0]!.point;
      for (const kind of [GateKind.Lin, GateKind.Mul, GateKind.Pow3])
        assert.deepEqual(w.evalPredicate(0, kind, z, x, y), ref.evalPredicate(0, kind, z, x, y), `kind ${kind}`);
      assert.deepEqual(w.evalConst(0, z), ref.evalConst(0, z));
    }),
    { numRuns: 120 },
  );
});

test("a replicated circuit proves and verifies with the copies wiring; changing one copy's input is detected", () => {
  fc.assert(
    fc.property(
      arbStructuredCase({ maxDepth: 2, maxBits: 4 }),
      fc.integer({ min: 1, max: 3 }),
      fc.nat(),
      (c, k, pick) => {
        const rep = replicateStructuredCircuit(c.circuit, k);
        const rng = new Rng(pick + 7);
        const input = Uint32Array.from({ length: 2 ** rep.inputWidthBits }, () => rng.fe());
        const wit = evaluateStructuredCircuit(rep, input);
        const { proof } = proveStructuredGkr(rep, wit, transcriptAfterOutputs(wit[0]!));
        const wiring = new CopiesWiring(new StructuredWiring(c.circuit, new TableWiring(c.circuit)), k);
        const res = verifyGkr(shapeOf(rep), wiring, Array.from(wit[0]!), proof, transcriptAfterOutputs(wit[0]!));
        assert.ok(res.ok && checkInputClaim(input, res.inputClaim));
        const bad = input.slice();
        bad[pick % bad.length] = (bad[pick % bad.length]! + 1) % P;
        assert.ok(!checkInputClaim(bad, res.inputClaim));
      },
    ),
    { numRuns: 40 },
  );
  assert.throws(
    () => new CopiesWiring(new TableWiring(expandStructuredCircuit(arbStructuredCaseSample())), 13),
    (e) => e instanceof CircuitError && e.code === "BAD_OPTION",
  );
});

function arbStructuredCaseSample() {
  return fc.sample(arbStructuredCase(), { seed: 3, numRuns: 1 })[0]!.circuit;
}

test("CopiesWiring with the mul-free hint of the circuit equals the replicated table wiring on every layer (with and without Mul gates); the hint skips only layers without Mul", () => {
  let withMul = 0,
    without = 0;
  const arb = fc
    .tuple(arbStructuredCase({ maxDepth: 3, maxBits: 4 }), fc.integer({ min: 0, max: 3 }), fc.nat())
    .chain(([c, k, li]) => {
      const layer = li % c.circuit.layers.length;
      const sOut = c.circuit.layers[layer]!.widthBits + k;
      const s = inputBitsOf(c.circuit, layer) + k;
      const pt = (n: number) => fc.array(arbExt, { minLength: n, maxLength: n });
      return fc.tuple(
        fc.constant(c),
        fc.constant(k),
        fc.constant(layer),
        fc.array(fc.tuple(pt(sOut), arbExt), { minLength: 1, maxLength: 2 }),
        pt(s),
        pt(s),
      );
    });
  fc.assert(
    fc.property(arb, ([c, k, layer, rawClaims, x, y]) => {
      const flags = mulFreeLayers(c.circuit);
      assert.equal(flags[layer], !c.circuit.layers[layer]!.gateKind.some((g) => g === GateKind.Mul));
      if (flags[layer]) without++;
      else withMul++;
      const ref = new TableWiring(expandStructuredCircuit(replicateStructuredCircuit(c.circuit, k)));
      const hinted = new CopiesWiring(new StructuredWiring(c.circuit, new TableWiring(c.circuit)), k, flags);
      const plain = new CopiesWiring(new StructuredWiring(c.circuit, new TableWiring(c.circuit)), k);
      const claims = rawClaims.map(([point, coeff]) => ({ point, coeff }));
      const want = ref.evalCombined(layer, claims, x, y);
      assert.deepEqual(hinted.evalCombined(layer, claims, x, y), want);
      assert.deepEqual(plain.evalCombined(layer, claims, x, y), want);
    }),
    { numRuns: 150 },
  );
  assert.ok(withMul > 0 && without > 0, `layers with Mul ${withMul}, without ${without}`);
});
