/**
 * The input-claim discharge (src/gkr/input-claim.ts, compat-v1 §13.2 step 10) and GKR verifier
 * checks (src/gkr/verifier.ts) against forgeries that only the targeted check catches.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import { EXT_ONE, extAdd, type Ext } from "../../src/field/extension.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import type { InputClaim } from "../../src/gkr/proof.js";
import { mleEvalBase } from "../../src/sumcheck/mle.js";

const pt = (...cs: number[]): Ext[] => cs.map((c) => [c, c + 1, 2 * c + 3, 7] as Ext);

function claimFor(input: ArrayLike<number>, n: number): InputClaim {
  const padded = new Uint32Array(2 ** n);
  padded.set(Array.from(input));
  const x = pt(...Array.from({ length: n }, (_, i) => 11 + i));
  const y = pt(...Array.from({ length: n }, (_, i) => 101 + 3 * i));
  return { x, evalX: mleEvalBase(padded, x), y, evalY: mleEvalBase(padded, y) };
}

test("an honest claim holds, with the input zero-padded to 2^len(x*)", () => {
  const input = [3, 1, 4, 1, 5];
  assert.equal(checkInputClaim(input, claimFor(input, 3)), true);
  assert.equal(checkInputClaim(Uint32Array.from(input), claimFor(input, 4)), true);
  assert.equal(checkInputClaim([7, 8, 9, 10], claimFor([7, 8, 9, 10], 2)), true);
  assert.equal(checkInputClaim([], claimFor([], 0)), true);
  assert.equal(checkInputClaim([P - 1], claimFor([P - 1], 0)), true);
});

test("eval_x or eval_y of another input is rejected, each on its own", () => {
  const input = [3, 1, 4, 1, 5, 9, 2, 6];
  const other = [3, 1, 4, 1, 5, 9, 2, 7];
  const good = claimFor(input, 3);
  const bad = claimFor(other, 3);
  assert.equal(checkInputClaim(input, { ...good, evalX: bad.evalX }), false);
  assert.equal(checkInputClaim(input, { ...good, evalY: bad.evalY }), false);
  assert.equal(checkInputClaim(input, { ...good, evalY: extAdd(good.evalY, EXT_ONE) }), false);
  // The claims of the other input hold for it and not for this one.
  assert.equal(checkInputClaim(other, bad), true);
  assert.equal(checkInputClaim(input, bad), false);
});

test("mismatched point lengths, oversized inputs and non-canonical values are false, never exceptions", () => {
  const input = [1, 2, 3, 4];
  const good = claimFor(input, 2);
  assert.equal(checkInputClaim(input, { ...good, y: good.y.slice(1) }), false);
  assert.equal(checkInputClaim(input, { ...good, y: [...good.y, good.y[0]!] }), false);
  assert.equal(checkInputClaim([1, 2, 3, 4, 5], good), false, "longer than 2^n");
  assert.equal(checkInputClaim([1, 2, 3, P], { ...good }), false);
  assert.equal(checkInputClaim([1, 2, -1, 4], good), false);
  assert.equal(checkInputClaim([1, 2, 3.5, 4], good), false);
  // More than 30 variables is refused before anything is allocated.
  const wide: InputClaim = {
    x: pt(...new Array(31).fill(1)),
    y: pt(...new Array(31).fill(2)),
    evalX: [0, 0, 0, 0],
    evalY: [0, 0, 0, 0],
  };
  assert.equal(checkInputClaim([], wide), false);
  // An input of exactly 2^n values needs no padding.
  assert.equal(checkInputClaim([0], claimFor([], 0)), true);
});

// ---- GKR verifier (src/gkr/verifier.ts) ----

import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr, ZERO_OUTPUTS, type GkrVerifyResult } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { GateKind, makeLayer, type Circuit } from "../../src/gkr/circuit.js";
import { buildCase, transcriptAfterOutputs } from "./random-circuit.js";

/** Three layers, widths 1 → 2 → 0 → input 2: a single-wire layer (0 width bits) in the middle. */
function narrowCase() {
  const circuit: Circuit = {
    inputWidthBits: 2,
    layers: [
      makeLayer(1, [
        { kind: GateKind.Mul, out: 0, in1: 0, in2: 1, coeff: 3 },
        { kind: GateKind.Lin, out: 1, in1: 2, in2: 2, coeff: 1 },
      ]),
      makeLayer(
        2,
        [
          { kind: GateKind.Pow3, out: 0, in1: 0, in2: 0, coeff: 1 },
          { kind: GateKind.Lin, out: 1, in1: 0, in2: 0, coeff: 2 },
          { kind: GateKind.Lin, out: 2, in1: 0, in2: 0, coeff: 5 },
        ],
        [{ wire: 3, value: 9 }],
      ),
      makeLayer(0, [
        { kind: GateKind.Mul, out: 0, in1: 1, in2: 3, coeff: 1 },
        { kind: GateKind.Lin, out: 0, in1: 2, in2: 2, coeff: 4 },
      ]),
    ],
  };
  return buildCase(circuit, [3, 1, 4, 1]);
}

type ProofJson = { layers: { rounds: unknown[][]; evalX: unknown; evalY: unknown }[] };

function proofOf(c: ReturnType<typeof narrowCase>): ProofJson {
  return JSON.parse(JSON.stringify(proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!)).proof));
}

function run(c: ReturnType<typeof narrowCase>, proof: unknown, shape = shapeOf(c.circuit)): GkrVerifyResult {
  return verifyGkr(
    shape,
    new TableWiring(c.circuit),
    Array.from(c.witness[0]!),
    proof,
    transcriptAfterOutputs(c.witness[0]!),
  );
}

const at = (r: GkrVerifyResult): string =>
  r.ok ? "ok" : `${r.code}${r.layer === undefined ? "" : `@${r.layer}`}${r.round === undefined ? "" : `.${r.round}`}`;

test("gkr: an honest proof with a zero-width layer verifies and returns the last layer's claim", () => {
  const c = narrowCase();
  const p = proofOf(c);
  const res = run(c, p);
  assert.ok(res.ok, at(res));
  const last = p.layers[p.layers.length - 1]!;
  assert.deepEqual([res.inputClaim.evalX, res.inputClaim.evalY], [last.evalX, last.evalY]);
  assert.equal(res.inputClaim.x.length, 2);
  assert.equal(checkInputClaim(c.input, res.inputClaim), true);
});

test("gkr: rejections name the layer and, for a round, the round", () => {
  const c = narrowCase();
  const p = proofOf(c);
  const sum = proofOf(c);
  (sum.layers[0]!.rounds[2]![0] as number[])[0] = ((sum.layers[0]!.rounds[2]![0] as number[])[0]! + 1) % P;
  assert.equal(at(run(c, sum)), "ROUND_SUM_MISMATCH@0.2");
  const sum2 = proofOf(c);
  (sum2.layers[2]!.rounds[3]![1] as number[])[2] = ((sum2.layers[2]!.rounds[3]![1] as number[])[2]! + 1) % P;
  assert.equal(at(run(c, sum2)), "ROUND_SUM_MISMATCH@2.3");
  const count = proofOf(c);
  count.layers[2]!.rounds.pop();
  assert.equal(at(run(c, count)), "ROUND_COUNT@2");
  const evalX = proofOf(c);
  evalX.layers[1]!.evalX = [0, 0, 0, P];
  assert.equal(at(run(c, evalX)), "MALFORMED_EVAL@1");
  const evalY = proofOf(c);
  evalY.layers[0]!.evalY = [0, 0, 0];
  assert.equal(at(run(c, evalY)), "MALFORMED_EVAL@0");
  const end = proofOf(c);
  end.layers[2]!.evalY = [1, 2, 3, 4];
  assert.equal(at(run(c, end)), "END_CHECK_FAILED@2");
  const notObject = proofOf(c) as { layers: unknown[] };
  notObject.layers[1] = 7;
  assert.equal(at(run(c, notObject)), "MALFORMED_PROOF@1");
  assert.equal(at(run(c, p)), "ok");
});

test("gkr: width bits up to 30 pass the shape check (the proof is then judged), 31 do not", () => {
  const c = narrowCase();
  const p = proofOf(c);
  const widths = shapeOf(c.circuit).layerWidthBits;
  assert.equal(at(run(c, p, { layerWidthBits: [widths[0]!, 30, widths[2]!], inputWidthBits: 2 })), "ROUND_COUNT@0");
  assert.equal(at(run(c, p, { layerWidthBits: [widths[0]!, 31, widths[2]!], inputWidthBits: 2 })), "BAD_SHAPE");
  assert.equal(at(run(c, p, { layerWidthBits: widths, inputWidthBits: 30 })), "ROUND_COUNT@2");
  assert.equal(at(run(c, p, { layerWidthBits: widths, inputWidthBits: -1 })), "BAD_SHAPE");
  assert.equal(at(run(c, p, { layerWidthBits: [widths[0]!, -1, widths[2]!], inputWidthBits: 2 })), "BAD_SHAPE");
  assert.equal(at(run(c, p, { layerWidthBits: widths, inputWidthBits: 1.5 })), "BAD_SHAPE");
  assert.equal(at(run(c, p, { layerWidthBits: "2,1,0", inputWidthBits: 2 } as never)), "BAD_SHAPE");
});

test("gkr: a wrong claimed output is caught by layer 0's first round sum", () => {
  const c = narrowCase();
  const p = proofOf(c);
  const outputs = Array.from(c.witness[0]!);
  outputs[1] = (outputs[1]! + 1) % P;
  const t = transcriptAfterOutputs(c.witness[0]!);
  assert.equal(at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), outputs, p, t)), "ROUND_SUM_MISMATCH@0.0");
});

test("gkr: a claimed output changed past a zero tail (the last one, or all zeros made non-zero at the end) is caught by layer 0's first round sum", () => {
  const c = narrowCase();
  const p = proofOf(c);
  const n = c.witness[0]!.length;
  for (const make of [
    () => {
      const o = Array.from(c.witness[0]!);
      o[n - 1] = (o[n - 1]! + 1) % P;
      return o;
    },
    () => {
      const o = Array.from(c.witness[0]!);
      o.fill(0, 1);
      o[n - 1] = 1;
      return o;
    },
  ]) {
    const t = transcriptAfterOutputs(c.witness[0]!);
    assert.equal(at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), make(), p, t)), "ROUND_SUM_MISMATCH@0.0");
  }
});

test("gkr: ZERO_OUTPUTS gives the verdicts of a vector of zeros (claimed outputs not absorbed, as profile v3 proves)", () => {
  const fresh = () => transcriptAfterOutputs([]);
  // outputs out_0 = in_0 − in_0 = 0 and out_1 = in_1 − in_1 = 0
  const zero: Circuit = {
    inputWidthBits: 1,
    layers: [
      makeLayer(1, [
        { kind: GateKind.Lin, out: 0, in1: 0, in2: 0, coeff: 1 },
        { kind: GateKind.Lin, out: 0, in1: 0, in2: 0, coeff: P - 1 },
        { kind: GateKind.Mul, out: 1, in1: 0, in2: 1, coeff: 1 },
        { kind: GateKind.Mul, out: 1, in1: 0, in2: 1, coeff: P - 1 },
      ]),
    ],
  };
  const z = buildCase(zero, [3, 5]);
  assert.deepEqual(Array.from(z.witness[0]!), [0, 0]);
  const zp = proveGkr(z.circuit, z.witness, fresh()).proof;
  const a = verifyGkr(shapeOf(z.circuit), new TableWiring(z.circuit), ZERO_OUTPUTS, zp, fresh());
  const b = verifyGkr(shapeOf(z.circuit), new TableWiring(z.circuit), [0, 0], zp, fresh());
  assert.ok(a.ok && b.ok, `${at(a)} ${at(b)}`);
  assert.deepEqual(a.inputClaim, b.inputClaim);
  // a circuit whose outputs are not zero: its honest proof holds for its outputs, not for ZERO_OUTPUTS
  const c = narrowCase();
  const cp = proveGkr(c.circuit, c.witness, fresh()).proof;
  assert.ok(Array.from(c.witness[0]!).some((v) => v !== 0));
  assert.equal(
    at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), Array.from(c.witness[0]!), cp, fresh())),
    "ok",
  );
  assert.equal(
    at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), ZERO_OUTPUTS, cp, fresh())),
    at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), [0, 0], cp, fresh())),
  );
  assert.notEqual(at(verifyGkr(shapeOf(c.circuit), new TableWiring(c.circuit), ZERO_OUTPUTS, cp, fresh())), "ok");
});
