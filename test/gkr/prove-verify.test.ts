import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { shapeOf, shapeInputBits } from "../../src/gkr/shape.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import { GateKind, evaluateCircuit, makeLayer, type Circuit } from "../../src/gkr/circuit.js";
import type { GkrProof } from "../../src/gkr/proof.js";
import type { WiringOracle } from "../../src/gkr/wiring/oracle.js";
import { arbCircuitCase, arbFe, buildCase, transcriptAfterOutputs, type CircuitCase } from "./random-circuit.js";

function prove(c: CircuitCase) {
  return proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
}

/** Full verification: verifyGkr, then the caller's input-claim check. */
function fullyAccepts(
  circuit: Circuit,
  outputs: ArrayLike<number>,
  proof: unknown,
  input: ArrayLike<number>,
  wiring: WiringOracle = new TableWiring(circuit),
): boolean {
  const res = verifyGkr(shapeOf(circuit), wiring, Array.from(outputs), proof, transcriptAfterOutputs(outputs));
  return res.ok && checkInputClaim(input, res.inputClaim);
}

function cloneProof(p: GkrProof): { layers: { rounds: number[][][]; evalX: number[]; evalY: number[] }[] } {
  return JSON.parse(JSON.stringify(p));
}

function bump(e: number[], c: number, delta: number): void {
  e[c] = (e[c]! + delta) % P;
}

test("honest proofs verify, the input claim matches the input MLE, and the shapes follow §10.3", () => {
  fc.assert(
    fc.property(arbCircuitCase(), (c) => {
      const { proof, inputClaim } = prove(c);
      const shape = shapeOf(c.circuit);
      assert.equal(proof.layers.length, c.circuit.layers.length);
      proof.layers.forEach((l, i) => {
        const s = shapeInputBits(shape, i);
        assert.equal(l.rounds.length, 2 * s);
        assert.ok(l.rounds.every((r) => r.length === 5));
        // y rounds have degree ≤ 2
        for (let j = s; j < 2 * s; j++) assert.ok(l.rounds[j]!.slice(3).every((a) => a.every((v) => v === 0)));
      });
      assert.deepEqual(mleEvalBase(c.input, inputClaim.x), inputClaim.evalX);
      assert.deepEqual(mleEvalBase(c.input, inputClaim.y), inputClaim.evalY);
      const res = verifyGkr(
        shape,
        new TableWiring(c.circuit),
        Array.from(c.witness[0]!),
        proof,
        transcriptAfterOutputs(c.witness[0]!),
      );
      assert.ok(res.ok, JSON.stringify(res));
      assert.deepEqual(res.inputClaim, inputClaim);
      assert.ok(checkInputClaim(c.input, res.inputClaim));
    }),
    { numRuns: 150 },
  );
});

test("the verifier works through the per-claim wiring interface too (no combined evaluation)", () => {
  fc.assert(
    fc.property(arbCircuitCase(), (c) => {
      const table = new TableWiring(c.circuit);
      const plain: WiringOracle = {
        evalPredicate: (l, k, z, x, y) => table.evalPredicate(l, k, z, x, y),
        evalConst: (l, z) => table.evalConst(l, z),
      };
      const { proof } = prove(c);
      assert.ok(fullyAccepts(c.circuit, c.witness[0]!, proof, c.input, plain));
    }),
    { numRuns: 60 },
  );
});

const withRounds = arbCircuitCase({ minBits: 1 });

test("changing any single round coefficient is rejected", () => {
  fc.assert(
    fc.property(
      withRounds,
      fc.nat(),
      fc.nat(),
      fc.nat(4),
      fc.nat(3),
      arbFe.filter((d) => d !== 0),
      (c, li, ri, k, comp, delta) => {
        const { proof } = prove(c);
        const p = cloneProof(proof);
        const layer = p.layers[li % p.layers.length]!;
        if (layer.rounds.length === 0) return;
        const j = ri % layer.rounds.length;
        bump(layer.rounds[j]![k]!, comp, delta);
        const res = verifyGkr(
          shapeOf(c.circuit),
          new TableWiring(c.circuit),
          Array.from(c.witness[0]!),
          p,
          transcriptAfterOutputs(c.witness[0]!),
        );
        assert.equal(res.ok, false);
        assert.equal(!res.ok && res.code, "ROUND_SUM_MISMATCH");
        assert.equal(!res.ok && res.layer, li % p.layers.length);
        assert.equal(!res.ok && res.round, j);
      },
    ),
    { numRuns: 100 },
  );
});

test("changing eval_x or eval_y of any layer makes verification fail", () => {
  fc.assert(
    fc.property(
      arbCircuitCase(),
      fc.nat(),
      fc.boolean(),
      fc.nat(3),
      arbFe.filter((d) => d !== 0),
      (c, li, which, comp, delta) => {
        const { proof } = prove(c);
        const p = cloneProof(proof);
        const layer = p.layers[li % p.layers.length]!;
        bump(which ? layer.evalX : layer.evalY, comp, delta);
        assert.equal(fullyAccepts(c.circuit, c.witness[0]!, p, c.input), false);
      },
    ),
    { numRuns: 100 },
  );
});

test("changing a claimed output makes verification fail", () => {
  fc.assert(
    fc.property(
      arbCircuitCase(),
      fc.nat(),
      arbFe.filter((d) => d !== 0),
      (c, oi, delta) => {
        const { proof } = prove(c);
        const outputs = Array.from(c.witness[0]!);
        const k = oi % outputs.length;
        outputs[k] = (outputs[k]! + delta) % P;
        assert.equal(fullyAccepts(c.circuit, outputs, proof, c.input), false);
      },
    ),
    { numRuns: 100 },
  );
});

test("the verifier observing zeros rejects a circuit whose outputs are not zero", () => {
  fc.assert(
    fc.property(
      arbCircuitCase().filter((c) => c.witness[0]!.some((v) => v !== 0)),
      (c) => {
        const { proof } = prove(c);
        const zeros = new Array(c.witness[0]!.length).fill(0);
        assert.equal(fullyAccepts(c.circuit, zeros, proof, c.input), false);
      },
    ),
    { numRuns: 50 },
  );
});

test("changing one input value makes the input-claim check fail", () => {
  fc.assert(
    fc.property(
      arbCircuitCase(),
      fc.nat(),
      arbFe.filter((d) => d !== 0),
      (c, ii, delta) => {
        const { proof } = prove(c);
        const input = Array.from(c.input);
        const k = ii % input.length;
        input[k] = (input[k]! + delta) % P;
        assert.equal(fullyAccepts(c.circuit, c.witness[0]!, proof, input), false);
      },
    ),
    { numRuns: 100 },
  );
});

test("soundness: a proof does not verify against a circuit with one coefficient changed whenever that changes the outputs", () => {
  fc.assert(
    fc.property(
      arbCircuitCase().filter((c) => c.circuit.layers.some((l) => l.gateKind.length > 0)),
      fc.nat(),
      fc.nat(),
      arbFe.filter((d) => d !== 0),
      (c, li, gi, delta) => {
        const { proof } = prove(c);
        const withGates = c.circuit.layers.map((l, i) => i).filter((i) => c.circuit.layers[i]!.gateKind.length > 0);
        const i = withGates[li % withGates.length]!;
        const l = c.circuit.layers[i]!;
        const g = gi % l.gateKind.length;
        const coeff = new Uint32Array(l.gateCoeff);
        coeff[g] = (coeff[g]! + delta) % P;
        const other: Circuit = {
          ...c.circuit,
          layers: c.circuit.layers.map((x, k) => (k === i ? { ...x, gateCoeff: coeff } : x)),
        };
        const changesOutputs = evaluateCircuit(other, c.input)[0]!.some((v, k) => v !== c.witness[0]![k]);
        if (changesOutputs) assert.equal(fullyAccepts(other, c.witness[0]!, proof, c.input), false);
      },
    ),
    { numRuns: 60 },
  );
});

test("width-bit edge cases: a single wire everywhere, and one-bit layers", () => {
  for (const bits of [0, 1]) {
    const circuit: Circuit = {
      inputWidthBits: bits,
      layers: [
        makeLayer(
          bits,
          [
            { kind: GateKind.Mul, out: 0, in1: 0, in2: bits, coeff: 3 },
            { kind: GateKind.Pow3, out: bits, in1: 0, in2: 0, coeff: 5 },
          ],
          [{ wire: 0, value: 7 }],
        ),
        makeLayer(bits, [{ kind: GateKind.Lin, out: 0, in1: bits, in2: bits, coeff: 2 }]),
      ],
    };
    const c = buildCase(circuit, bits === 0 ? [9] : [9, 11]);
    const { proof, inputClaim } = prove(c);
    assert.equal(proof.layers[0]!.rounds.length, 2 * bits);
    assert.equal(inputClaim.x.length, bits);
    assert.ok(fullyAccepts(circuit, c.witness[0]!, proof, c.input));
    assert.equal(fullyAccepts(circuit, c.witness[0]!, proof, bits === 0 ? [10] : [9, 12]), false);
  }
});
