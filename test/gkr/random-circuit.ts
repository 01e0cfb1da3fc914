/**
 * fast-check generators of small random circuits (every gate kind, constants, width bits 0..3)
 * with their input, witness and the transcripts of the §11 step 5 prefix.
 */
import fc from "fast-check";
import { P } from "../../src/field/koalabear.js";
import { type Circuit, type Gate, GateKind, evaluateCircuit, makeLayer } from "../../src/gkr/circuit.js";
import { DuplexChallenger } from "../../src/transcript/challenger.js";
import { PROOF_DOMAIN_TAG } from "../../src/transcript/domains.js";

/** Field elements with the edges 0, 1, p − 1 well represented. */
export const arbFe = fc.oneof(fc.constantFrom(0, 1, 2, P - 1), fc.integer({ min: 0, max: P - 1 }));

export interface CircuitCase {
  readonly circuit: Circuit;
  readonly input: Uint32Array;
  readonly witness: Uint32Array[];
}

export function buildCase(circuit: Circuit, input: ArrayLike<number>): CircuitCase {
  const witness = evaluateCircuit(circuit, input);
  return { circuit, input: witness[witness.length - 1]!, witness };
}

/**
 * A random circuit of 1..maxDepth layers, width bits 0..maxBits per layer and for the input, up
 * to `maxGates` gates (all three kinds) and 3 constants per layer, and a random input.
 */
export function arbCircuitCase(
  opts: { maxDepth?: number; maxBits?: number; maxGates?: number; minBits?: number } = {},
): fc.Arbitrary<CircuitCase> {
  const maxDepth = opts.maxDepth ?? 3;
  const maxBits = opts.maxBits ?? 3;
  const minBits = opts.minBits ?? 0;
  const maxGates = opts.maxGates ?? 12;
  return fc.integer({ min: 1, max: maxDepth }).chain((D) =>
    fc.array(fc.integer({ min: minBits, max: maxBits }), { minLength: D + 1, maxLength: D + 1 }).chain((bits) => {
      const layerArbs = [];
      for (let i = 0; i < D; i++) {
        const outN = 2 ** bits[i]!;
        const inN = 2 ** bits[i + 1]!;
        const gate = fc.record({
          kind: fc.integer({ min: 0, max: 2 }),
          out: fc.integer({ min: 0, max: outN - 1 }),
          in1: fc.integer({ min: 0, max: inN - 1 }),
          in2: fc.integer({ min: 0, max: inN - 1 }),
          coeff: arbFe,
        });
        const cnst = fc.record({ wire: fc.integer({ min: 0, max: outN - 1 }), value: arbFe });
        layerArbs.push(fc.tuple(fc.array(gate, { maxLength: maxGates }), fc.array(cnst, { maxLength: 3 })));
      }
      const inputArb = fc.array(arbFe, { minLength: 2 ** bits[D]!, maxLength: 2 ** bits[D]! });
      return fc.tuple(fc.tuple(...layerArbs), inputArb).map(([layers, input]) => {
        const circuit: Circuit = {
          inputWidthBits: bits[D]!,
          layers: layers.map(([gates, consts], i) =>
            makeLayer(
              bits[i]!,
              gates.map(
                (g): Gate => ({ ...g, kind: g.kind as GateKind, in2: g.kind === GateKind.Mul ? g.in2 : g.in1 }),
              ),
              consts,
            ),
          ),
        };
        return buildCase(circuit, input);
      });
    }),
  );
}

/** A fresh proof transcript that has observed the claimed outputs (the §11 step 5 part). */
export function transcriptAfterOutputs(outputs: ArrayLike<number>): DuplexChallenger {
  const t = DuplexChallenger.withDomain(PROOF_DOMAIN_TAG);
  t.observeMany(outputs);
  return t;
}
