import { test } from "node:test";
import assert from "node:assert/strict";
import { EXT_ZERO } from "../../src/field/extension.js";
import { constCount, gateCount, inputBitsOf, type Circuit } from "../../src/gkr/circuit.js";
import type { GkrProof } from "../../src/gkr/proof.js";
import { encodeProof, expectedEncodedSize } from "../../src/codec/index.js";
import { compile } from "../../src/smt/compile.js";
import { goldenFixture } from "../../src/smt/fixture.js";
import { encodeSyncResult } from "../../src/sync/encoded.js";
import { prepare } from "../../src/sync/prepared.js";
import { provePrepared } from "../../src/sync/prove.js";
import { OpKind, opKindTag, type CircuitIdentity } from "../../src/statement/types.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update] as const;

/** compat-v1 §18: gates, constants and encoded proof bytes at depth 24. */
const SPEC_D24: Record<string, { gates: number; consts: number; bytes: number }> = {
  [OpKind.Membership]: { gates: 240208, consts: 4144, bytes: 176948 },
  [OpKind.NonMembership]: { gates: 240328, consts: 4144, bytes: 181646 },
  [OpKind.Update]: { gates: 476584, consts: 8288, bytes: 186992 },
};

/**
 * Sizes at depths 28 and 32 given by the §14.1 formula on the compiled shapes (the size benchmark
 * measured the same values on real proofs of F(kind, depth, 5)).
 */
const FORMULA_BYTES: Record<string, Record<number, number>> = {
  [OpKind.Membership]: { 28: 181970, 32: 182132 },
  [OpKind.NonMembership]: { 28: 181970, 32: 182132 },
  [OpKind.Update]: { 28: 200762, 32: 201086 },
};

/** 170 + Σ_layers (36 + 162·s_in), written out from §14.1. */
function formula(circuit: Circuit): number {
  let size = 170;
  for (let i = 0; i < circuit.layers.length; i++) size += 36 + 162 * inputBitsOf(circuit, i);
  return size;
}

function inputBits(circuit: Circuit): number[] {
  return circuit.layers.map((_, i) => inputBitsOf(circuit, i));
}

/** A proof of the right shape (2·s_in rounds of 5 zero coefficients per layer) without proving. */
function zeroProof(circuit: Circuit): GkrProof {
  const zeroRound = [EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO, EXT_ZERO];
  return {
    layers: inputBits(circuit).map((s) => ({
      rounds: Array.from({ length: 2 * s }, () => zeroRound),
      evalX: EXT_ZERO,
      evalY: EXT_ZERO,
    })),
  };
}

function identityOf(kind: OpKind, depth: number): CircuitIdentity {
  return {
    opKindTag: opKindTag(kind),
    depth,
    circuitVersion: 1,
    leafEncodingVersion: 1,
    leafMaxFields: 31,
    strategyId: 0,
    commitment: new Uint32Array(8),
  };
}

const compiled = new Map<string, Circuit>();
function circuitOf(kind: OpKind, depth: number): Circuit {
  const key = `${kind}/${depth}`;
  if (!compiled.has(key)) compiled.set(key, compile(kind, { depth }).circuit);
  return compiled.get(key)!;
}

for (const kind of KINDS) {
  test(`d24 kind ${kind}: 118 layers, §18 gates/consts, formula gives the §18 proof size`, () => {
    const c = circuitOf(kind, 24);
    assert.equal(c.layers.length, 118);
    assert.equal(
      c.layers.reduce((n, l) => n + gateCount(l), 0),
      SPEC_D24[kind]!.gates,
    );
    assert.equal(
      c.layers.reduce((n, l) => n + constCount(l), 0),
      SPEC_D24[kind]!.consts,
    );
    assert.equal(formula(c), SPEC_D24[kind]!.bytes);
    assert.equal(expectedEncodedSize(inputBits(c)), SPEC_D24[kind]!.bytes);
  });

  for (const depth of [28, 32]) {
    test(`d${depth} kind ${kind}: 118 layers; encoder length = formula = ${FORMULA_BYTES[kind]![depth]} bytes`, () => {
      const c = circuitOf(kind, depth);
      assert.equal(c.layers.length, 118);
      const size = formula(c);
      assert.equal(size, FORMULA_BYTES[kind]![depth]);
      assert.equal(expectedEncodedSize(inputBits(c)), size);
      const bytes = encodeProof({
        identity: identityOf(kind, depth),
        publicInputs: goldenFixture(kind, depth, 5n).publicInputs,
        proof: zeroProof(c),
      });
      assert.equal(bytes.length, size);
      // The total length field at offset 13 carries the same number.
      assert.equal(new DataView(bytes.buffer, bytes.byteOffset).getUint32(13, true), size);
    });
  }
}

test("d24 layer width bits match §9.7 (membership: 0–29 → 8, 30–85 → 9, 86–117 → 10, input 9)", () => {
  const c = circuitOf(OpKind.Membership, 24);
  c.layers.forEach((l, i) => assert.equal(l.widthBits, i <= 29 ? 8 : i <= 85 ? 9 : 10, `layer ${i}`));
  assert.equal(c.inputWidthBits, 9);
});

test("membership proof grows by 2.93 % from depth 24 to depth 32 (§18 sizes, formula)", () => {
  const a = formula(circuitOf(OpKind.Membership, 24));
  const b = formula(circuitOf(OpKind.Membership, 32));
  assert.equal(Math.round(((b - a) / a) * 10000) / 100, 2.93);
});

test("real proofs at depth 4 have the formula's size and 118 layers", () => {
  for (const kind of KINDS) {
    const prep = prepare(kind, { depth: 4 });
    const bytes = encodeSyncResult(prep, provePrepared(prep, goldenFixture(kind, 4, 5n)));
    assert.equal(prep.circuit.layers.length, 118);
    assert.equal(bytes.length, formula(prep.circuit));
  }
});
