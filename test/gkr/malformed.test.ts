import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { EXT_ZERO } from "../../src/field/extension.js";
import { proveGkr } from "../../src/gkr/prover.js";
import { verifyGkr, type GkrRejectCode, type GkrVerifyResult } from "../../src/gkr/verifier.js";
import { TableWiring } from "../../src/gkr/wiring/table.js";
import { shapeOf } from "../../src/gkr/shape.js";
import { CircuitError } from "../../src/gkr/errors.js";
import { GateKind, makeLayer, type Circuit, type Layer } from "../../src/gkr/circuit.js";
import type { WiringOracle } from "../../src/gkr/wiring/oracle.js";
import { arbCircuitCase, buildCase, transcriptAfterOutputs } from "./random-circuit.js";

const KNOWN_CODES: ReadonlySet<string> = new Set<GkrRejectCode>([
  "BAD_SHAPE",
  "EMPTY_CIRCUIT",
  "MALFORMED_PROOF",
  "LAYER_COUNT",
  "OUTPUT_WIDTH_TOO_LARGE",
  "OUTPUT_LENGTH",
  "NON_CANONICAL_OUTPUT",
  "ROUND_COUNT",
  "MALFORMED_ROUND",
  "DEGREE_TOO_HIGH",
  "NON_CANONICAL",
  "ROUND_SUM_MISMATCH",
  "MALFORMED_EVAL",
  "END_CHECK_FAILED",
]);

/** A two-layer circuit with every gate kind; width bits 2 → 2 → 2. */
function sample(): { circuit: Circuit; witness: Uint32Array[] } {
  const circuit: Circuit = {
    inputWidthBits: 2,
    layers: [
      makeLayer(
        2,
        [
          { kind: GateKind.Mul, out: 0, in1: 1, in2: 2, coeff: 1 },
          { kind: GateKind.Lin, out: 3, in1: 0, in2: 0, coeff: 5 },
        ],
        [{ wire: 1, value: 4 }],
      ),
      makeLayer(2, [
        { kind: GateKind.Pow3, out: 0, in1: 3, in2: 3, coeff: 2 },
        { kind: GateKind.Lin, out: 1, in1: 1, in2: 1, coeff: 1 },
        { kind: GateKind.Mul, out: 2, in1: 0, in2: 2, coeff: 7 },
      ]),
    ],
  };
  return buildCase(circuit, [3, 1, 4, 1]);
}

/** Marks "use the circuit's real outputs" (so that undefined and null can be tested as outputs). */
const REAL_OUTPUTS = Symbol("real outputs");

function verifySample(proof: unknown, outputs: unknown = REAL_OUTPUTS, wiring?: WiringOracle): GkrVerifyResult {
  const { circuit, witness } = sample();
  const out = outputs === REAL_OUTPUTS ? Array.from(witness[0]!) : outputs;
  return verifyGkr(
    shapeOf(circuit),
    wiring ?? new TableWiring(circuit),
    out,
    proof,
    transcriptAfterOutputs(witness[0]!),
  );
}

function honestProof(): { layers: { rounds: unknown[]; evalX: unknown; evalY: unknown }[] } {
  const { circuit, witness } = sample();
  return JSON.parse(JSON.stringify(proveGkr(circuit, witness, transcriptAfterOutputs(witness[0]!)).proof));
}

const codeOf = (r: GkrVerifyResult) => (r.ok ? "ok" : r.code);

test("malformed circuits are typed CircuitErrors in the prover and the table wiring", () => {
  const { circuit, witness } = sample();
  const withLayer0 = (patch: Partial<Layer>): Circuit => ({
    ...circuit,
    layers: [{ ...circuit.layers[0]!, ...patch }, circuit.layers[1]!],
  });
  const cases: [Circuit, string][] = [
    [{ inputWidthBits: 2, layers: [] }, "EMPTY_CIRCUIT"],
    [withLayer0({ gateKind: new Uint8Array([3, 0]) }), "BAD_GATE_KIND"],
    [withLayer0({ gateIn2: new Uint32Array([2, 1]) }), "UNARY_IN2_MISMATCH"],
    [withLayer0({ gateOut: new Uint32Array([4, 3]) }), "WIRE_OUT_OF_RANGE"],
    [withLayer0({ gateIn1: new Uint32Array([1, 9]), gateIn2: new Uint32Array([2, 9]) }), "WIRE_OUT_OF_RANGE"],
    [withLayer0({ gateCoeff: new Uint32Array([P, 1]) }), "NON_CANONICAL_COEFF"],
    [withLayer0({ constValue: new Uint32Array([P]) }), "NON_CANONICAL_COEFF"],
    [withLayer0({ widthBits: 31 }), "BAD_WIDTH"],
    [withLayer0({ gateCoeff: new Uint32Array([1]) }), "BAD_WIDTH"],
    [{ ...circuit, inputWidthBits: -1 }, "BAD_WIDTH"],
  ];
  for (const [c, code] of cases) {
    const isCode = (e: unknown) => e instanceof CircuitError && e.code === code;
    assert.throws(() => proveGkr(c, witness, transcriptAfterOutputs(witness[0]!)), isCode, code);
    assert.throws(() => new TableWiring(c), isCode, code);
  }
});

test("witnesses of the wrong shape are typed CircuitErrors", () => {
  const { circuit, witness } = sample();
  const t = () => transcriptAfterOutputs(witness[0]!);
  const isCode = (code: string) => (e: unknown) => e instanceof CircuitError && e.code === code;
  assert.throws(() => proveGkr(circuit, witness.slice(0, 2), t()), isCode("WITNESS_LENGTH"));
  assert.throws(() => proveGkr(circuit, null as unknown as Uint32Array[], t()), isCode("WITNESS_LENGTH"));
  assert.throws(() => proveGkr(circuit, [witness[0]!, witness[1]!, new Uint32Array(8)], t()), isCode("WITNESS_WIDTH"));
  assert.throws(
    () => proveGkr(circuit, [witness[0]!, [1, 2, 3, 4] as unknown as Uint32Array, witness[2]!], t()),
    isCode("WITNESS_WIDTH"),
  );
  assert.throws(
    () => proveGkr(circuit, [witness[0]!, witness[1]!, new Uint32Array([1, P, 0, 0])], t()),
    isCode("WITNESS_NON_CANONICAL"),
  );
});

test("the sample proof verifies (baseline for the malformed-proof cases)", () => {
  assert.equal(codeOf(verifySample(honestProof())), "ok");
});

test("malformed proof objects are typed rejections", () => {
  const cases: [(p: ReturnType<typeof honestProof>) => unknown, string][] = [
    [() => null, "MALFORMED_PROOF"],
    [() => undefined, "MALFORMED_PROOF"],
    [() => 42, "MALFORMED_PROOF"],
    [() => ({}), "MALFORMED_PROOF"],
    [() => ({ layers: "x" }), "MALFORMED_PROOF"],
    [(p) => ({ layers: p.layers.slice(1) }), "LAYER_COUNT"],
    [(p) => ({ layers: [...p.layers, p.layers[0]] }), "LAYER_COUNT"],
    [(p) => ({ layers: [null, p.layers[1]] }), "MALFORMED_PROOF"],
    [(p) => ({ layers: [{ ...p.layers[0], rounds: null }, p.layers[1]] }), "MALFORMED_ROUND"],
    [(p) => ({ layers: [{ ...p.layers[0], rounds: p.layers[0]!.rounds.slice(1) }, p.layers[1]] }), "ROUND_COUNT"],
    [(p) => ({ layers: [{ ...p.layers[0], rounds: [[], ...p.layers[0]!.rounds] }, p.layers[1]] }), "ROUND_COUNT"],
    [
      (p) => {
        (p.layers[0]!.rounds[0] as unknown[]).push(EXT_ZERO);
        return p;
      },
      "DEGREE_TOO_HIGH",
    ],
    [
      (p) => {
        p.layers[1]!.rounds[2] = "abc";
        return p;
      },
      "MALFORMED_ROUND",
    ],
    [
      (p) => {
        (p.layers[0]!.rounds[0] as unknown[])[0] = [1, 2, 3];
        return p;
      },
      "NON_CANONICAL",
    ],
    [
      (p) => {
        (p.layers[0]!.rounds[1] as unknown[])[4] = [0, 0, 0, P];
        return p;
      },
      "NON_CANONICAL",
    ],
    [
      (p) => {
        (p.layers[0]!.rounds[1] as unknown[])[4] = [0, 0, NaN, 0];
        return p;
      },
      "NON_CANONICAL",
    ],
    [
      (p) => {
        (p.layers[0]!.rounds[1] as unknown[])[4] = [0, 0, 0, 1n];
        return p;
      },
      "NON_CANONICAL",
    ],
    [
      (p) => {
        (p.layers[0]!.rounds[1] as unknown[])[2] = { 0: 1, 1: 2, 2: 3, 3: 4, length: 4 };
        return p;
      },
      "NON_CANONICAL",
    ],
    [
      (p) => {
        p.layers[0]!.evalX = undefined;
        return p;
      },
      "MALFORMED_EVAL",
    ],
    [
      (p) => {
        p.layers[1]!.evalY = [0, 0, 0, -1];
        return p;
      },
      "MALFORMED_EVAL",
    ],
    [
      (p) => {
        p.layers[1]!.evalY = [0, 0, 0, 0, 0];
        return p;
      },
      "MALFORMED_EVAL",
    ],
    [
      (p) => {
        p.layers[0]!.evalY = "0,0,0,0";
        return p;
      },
      "MALFORMED_EVAL",
    ],
  ];
  for (const [mutate, code] of cases) {
    const res = verifySample(mutate(honestProof()));
    assert.equal(codeOf(res), code, `${mutate.toString()}: ${JSON.stringify(res)}`);
  }
});

test("dropping the zero coefficients a_3, a_4 of a y round passes that round but changes the transcript", () => {
  const p = honestProof();
  const s = 2; // width bits of the layer below layer 0
  const rounds = p.layers[0]!.rounds.map((r) => (r as number[][]).slice());
  assert.deepEqual(rounds[s]!.slice(3), [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ]);
  rounds[s] = rounds[s]!.slice(0, 3);
  const res = verifySample({ layers: [{ ...p.layers[0], rounds }, p.layers[1]] });
  assert.equal(res.ok, false);
  assert.ok(
    !res.ok &&
      (res.code === "END_CHECK_FAILED" || (res.code === "ROUND_SUM_MISMATCH" && (res.layer! > 0 || res.round! > s))),
    JSON.stringify(res),
  );
});

test("claimed outputs and shapes of the wrong form are typed rejections", () => {
  const p = honestProof();
  assert.equal(codeOf(verifySample(p, [1, 2, 3])), "OUTPUT_LENGTH");
  assert.equal(codeOf(verifySample(p, "abcd")), "OUTPUT_LENGTH");
  assert.equal(codeOf(verifySample(p, null)), "OUTPUT_LENGTH");
  assert.equal(codeOf(verifySample(p, [0, 0, 0, P])), "NON_CANONICAL_OUTPUT");
  assert.equal(codeOf(verifySample(p, [0, 0, 0, 0.5])), "NON_CANONICAL_OUTPUT");
  assert.equal(codeOf(verifySample(p, Uint32Array.from(sample().witness[0]!))), "ok");
  assert.equal(codeOf(verifySample(p, Float64Array.from(sample().witness[0]!))), "ok");
  assert.equal(codeOf(verifySample(p, new BigUint64Array(4))), "NON_CANONICAL_OUTPUT");
  assert.equal(codeOf(verifySample(p, new DataView(new ArrayBuffer(16)))), "OUTPUT_LENGTH");
  assert.equal(codeOf(verifySample(p, { length: 4, 0: 0, 1: 0, 2: 0, 3: 0 })), "OUTPUT_LENGTH");
  const { circuit, witness } = sample();
  const w = new TableWiring(circuit);
  const out = Array.from(witness[0]!);
  const t = () => transcriptAfterOutputs(witness[0]!);
  assert.equal(
    codeOf(verifyGkr({ layerWidthBits: [], inputWidthBits: 2 }, w, out, { layers: [] }, t())),
    "EMPTY_CIRCUIT",
  );
  assert.equal(codeOf(verifyGkr({ layerWidthBits: [2, 1.5], inputWidthBits: 2 }, w, out, p, t())), "BAD_SHAPE");
  assert.equal(codeOf(verifyGkr(null as never, w, out, p, t())), "BAD_SHAPE");
  assert.equal(
    codeOf(verifyGkr({ layerWidthBits: [64, 2], inputWidthBits: 2 }, w, out, p, t())),
    "OUTPUT_WIDTH_TOO_LARGE",
  );
  assert.equal(codeOf(verifyGkr({ layerWidthBits: [40, 2], inputWidthBits: 2 }, w, out, p, t())), "OUTPUT_LENGTH");
  assert.equal(codeOf(verifyGkr({ layerWidthBits: [2, 2], inputWidthBits: 31 }, w, out, p, t())), "BAD_SHAPE");
});

test("a throwing wiring oracle becomes VERIFIER_EXCEPTION, not an exception", () => {
  const broken: WiringOracle = {
    evalPredicate: () => {
      throw new Error("boom");
    },
    evalConst: () => {
      throw new Error("boom");
    },
  };
  assert.equal(codeOf(verifySample(honestProof(), REAL_OUTPUTS, broken)), "VERIFIER_EXCEPTION");
});

/** Paths to every node of a JSON-like tree. */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (typeof v === "object" && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

test("replacing any node of a proof by an arbitrary value never throws and is rejected unless unchanged", () => {
  const base = honestProof();
  const all = paths(base).filter((p) => p.length > 0);
  fc.assert(
    fc.property(
      fc.nat(all.length - 1),
      fc.anything({ withBigInt: true, withNullPrototype: true, withTypedArray: true, withSparseArray: true }),
      (pi, value) => {
        const p = honestProof();
        const path = all[pi]!;
        let node: Record<string | number, unknown> = p as unknown as Record<string, unknown>;
        for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
        const before = JSON.stringify(node[path[path.length - 1]!]);
        node[path[path.length - 1]!] = value;
        let res: GkrVerifyResult | undefined;
        assert.doesNotThrow(() => {
          res = verifySample(p);
        });
        if (res!.ok) {
          assert.equal(JSON.stringify(value), before, "only an equal replacement may verify");
        } else {
          assert.ok(KNOWN_CODES.has(res!.code), res!.code);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("random circuits: truncated or padded layer lists are typed rejections", () => {
  fc.assert(
    fc.property(arbCircuitCase(), fc.boolean(), (c, drop) => {
      const { proof } = proveGkr(c.circuit, c.witness, transcriptAfterOutputs(c.witness[0]!));
      const layers = drop ? proof.layers.slice(0, -1) : [...proof.layers, proof.layers[0]!];
      const res = verifyGkr(
        shapeOf(c.circuit),
        new TableWiring(c.circuit),
        Array.from(c.witness[0]!),
        { layers },
        transcriptAfterOutputs(c.witness[0]!),
      );
      assert.equal(codeOf(res), "LAYER_COUNT");
    }),
    { numRuns: 30 },
  );
});
