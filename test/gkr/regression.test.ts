/**
 * Byte-level regression: a fixed circuit, input and transcript prefix give a fixed proof. The
 * SHA-256 is over `gkrProofBytes` (the per-layer inner-proof-v1 layout) followed by the input
 * claim (x*, eval_x, y*, eval_y as u32 LE words). Any change to the transcript schedule, the
 * round-polynomial convention or the binding order changes it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Ext } from "../../src/field/extension.js";
import { P } from "../../src/field/koalabear.js";
import { GateKind, makeLayer, type Circuit, type Gate } from "../../src/gkr/circuit.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { gkrProofBytes } from "../../src/gkr/proof-bytes.js";
import { checkInputClaim } from "../../src/gkr/input-claim.js";
import type { InputClaim } from "../../src/gkr/proof.js";
import { denseLayerOracle } from "../support/dense-oracle.js";
import { buildCase, transcriptAfterOutputs } from "./random-circuit.js";

const EXPECTED_SHA256 = "ae45b501c5eb922edb8c27a08535e84b2bc86592238cddf19e418665cfbb131d";

/** Layers 2 → 3 → 1 width bits over an 8-wire input; every gate kind, constants, repeated wires. */
function fixedCircuit(): Circuit {
  const g = (kind: GateKind, out: number, in1: number, in2: number, coeff: number): Gate => ({
    kind,
    out,
    in1,
    in2: kind === GateKind.Mul ? in2 : in1,
    coeff,
  });
  return {
    inputWidthBits: 3,
    layers: [
      makeLayer(
        2,
        [
          g(GateKind.Mul, 0, 0, 1, 1),
          g(GateKind.Lin, 1, 1, 1, P - 1),
          g(GateKind.Pow3, 2, 0, 0, 9),
          g(GateKind.Lin, 3, 0, 0, 4),
          g(GateKind.Mul, 3, 1, 1, 2),
        ],
        [{ wire: 2, value: 17 }],
      ),
      makeLayer(
        1,
        [
          g(GateKind.Mul, 0, 2, 5, 3),
          g(GateKind.Pow3, 1, 7, 7, 1),
          g(GateKind.Lin, 1, 4, 4, 123456789),
          g(GateKind.Lin, 0, 6, 6, P - 2),
        ],
        [
          { wire: 1, value: 5 },
          { wire: 1, value: P - 5 },
        ],
      ),
      makeLayer(
        3,
        [
          g(GateKind.Lin, 0, 0, 0, 1),
          g(GateKind.Mul, 1, 1, 2, 1),
          g(GateKind.Pow3, 2, 3, 3, 2),
          g(GateKind.Mul, 3, 4, 4, 7),
          g(GateKind.Lin, 4, 5, 5, 11),
          g(GateKind.Lin, 5, 6, 6, 13),
          g(GateKind.Pow3, 6, 7, 7, 1),
          g(GateKind.Mul, 7, 0, 7, 1000000007),
        ],
        [
          { wire: 0, value: 1 },
          { wire: 7, value: 2 },
        ],
      ),
    ],
  };
}

const INPUT = [3, 1, 4, 1, 5, 9, 2, 6];

function claimBytes(c: InputClaim): Uint8Array {
  const words: number[] = [];
  const push = (e: Ext) => words.push(...e);
  c.x.forEach(push);
  push(c.evalX);
  c.y.forEach(push);
  push(c.evalY);
  const out = new Uint8Array(4 * words.length);
  const view = new DataView(out.buffer);
  words.forEach((w, i) => view.setUint32(4 * i, w, true));
  return out;
}

test("a fixed circuit and transcript give a fixed proof (sparse and dense oracles)", () => {
  const c = buildCase(fixedCircuit(), INPUT);
  const { proof, inputClaim } = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
  const dense = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!), {
    oracleFactory: denseLayerOracle,
  });
  assert.deepEqual(dense.proof, proof);
  const res = verifyGkr(
    shapeOf(c.circuit),
    new TableWiring(c.circuit),
    Array.from(c.witness[0]!),
    proof,
    transcriptAfterOutputs(c.witness[0]!),
  );
  assert.ok(res.ok && checkInputClaim(INPUT, res.inputClaim));
  const hash = createHash("sha256").update(gkrProofBytes(proof)).update(claimBytes(inputClaim)).digest("hex");
  assert.equal(gkrProofBytes(proof).length, 4 + (4 + 32 + 2 * 1 * 81) + (4 + 32 + 2 * 3 * 81) + (4 + 32 + 2 * 3 * 81));
  assert.equal(hash, EXPECTED_SHA256);
});
