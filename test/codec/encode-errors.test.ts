import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../src/field/koalabear.js";
import type { Ext } from "../../src/field/extension.js";
import type { LayerProof } from "../../src/gkr/proof.js";
import type { EncodedResult } from "../../src/codec/index.js";
import { EncodeError, encodeProof } from "../../src/codec/index.js";
import { SsgkrError } from "../../src/errors.js";
import { resultOf } from "./fixtures.js";

function assertEncodeError(x: unknown, code: string, details: Record<string, unknown> = {}): void {
  assert.throws(
    () => encodeProof(x as EncodedResult),
    (e: unknown) => {
      assert.ok(e instanceof EncodeError && e instanceof SsgkrError, String(e));
      assert.equal(e.code, code, e.message);
      for (const [k, v] of Object.entries(details)) assert.deepEqual(e.details[k], v, `${code}.${k}: ${e.message}`);
      return true;
    },
  );
}

const x = resultOf([2, 1]);
const withLayers = (layers: unknown): unknown => ({ ...x, proof: { layers } });
const layer0 = x.proof.layers[0]!;
const poly = layer0.rounds[0]!;

test("BadRoundPolyArity{layer, round, got} for any arity but 5 (no padding, no stripping)", () => {
  for (const got of [0, 1, 3, 4, 6]) {
    const bad = Array.from({ length: got }, (_, i) => poly[i % 5]!);
    assertEncodeError(withLayers([layer0, { ...layer0, rounds: [poly, bad] }]), "BadRoundPolyArity", {
      layer: 1,
      round: 1,
      got,
    });
  }
  // Arity is checked before any value.
  const nonCanon: Ext = [P, 0, 0, 0];
  assertEncodeError(
    withLayers([
      { ...layer0, evalX: nonCanon },
      { ...layer0, rounds: [poly.slice(0, 3)] },
    ]),
    "BadRoundPolyArity",
    { layer: 1, round: 0, got: 3 },
  );
});

test("CountOverflow for counts above u32, depth above u32, leaf_max_fields above u16", () => {
  assertEncodeError(withLayers({ length: 2 ** 32 }), "CountOverflow", { value: 2 ** 32 });
  assertEncodeError(
    withLayers([{ rounds: { length: 2 ** 32 + 5 }, evalX: layer0.evalX, evalY: layer0.evalY }]),
    "CountOverflow",
    { value: 2 ** 32 + 5 },
  );
  assertEncodeError({ ...x, identity: { ...x.identity, depth: 2 ** 32 } }, "CountOverflow", { what: "identity.depth" });
  assertEncodeError({ ...x, identity: { ...x.identity, leafMaxFields: 0x10000 } }, "CountOverflow", {
    what: "identity.leafMaxFields",
    max: 0xffff,
  });
  // Limits themselves are fine.
  const ok = encodeProof({ ...x, identity: { ...x.identity, depth: 0xffffffff, leafMaxFields: 0xffff } });
  assert.equal(ok.length, 170 + 198 + 117);
});

test("MessageTooLong{length} above 2^32 − 1 bytes, before allocating", () => {
  // 52 layers sharing one array of 2^20 rounds: 170 + 52·(36 + 81·2^20) bytes > 2^32 − 1.
  const rounds: Ext[][] = new Array(1 << 20).fill(poly);
  const big: LayerProof = { rounds, evalX: layer0.evalX, evalY: layer0.evalY };
  const length = 170 + 52 * (36 + 81 * 2 ** 20);
  assertEncodeError(withLayers(new Array(52).fill(big)), "MessageTooLong", { length });
});

test("NonCanonicalFieldElement{what} for any value outside [0, p)", () => {
  for (const v of [P, P + 5, 0xffffffff, -1, 1.5, Number.NaN]) {
    const e: Ext = [1, 2, v, 3];
    assertEncodeError(withLayers([{ ...layer0, evalY: e }]), "NonCanonicalFieldElement", {
      what: "layers[0].evalY.c2",
    });
    assertEncodeError(
      withLayers([layer0, { ...layer0, rounds: [[poly[0]!, poly[1]!, poly[2]!, poly[3]!, e]] }]),
      "NonCanonicalFieldElement",
      {
        what: "layers[1].rounds[0][4].c2",
      },
    );
    const d = Uint32Array.from(x.identity.commitment) as unknown as number[];
    const arr = Array.from(d);
    arr[6] = v;
    assertEncodeError({ ...x, identity: { ...x.identity, commitment: arr } }, "NonCanonicalFieldElement", {
      what: "identity.commitment[6]",
    });
    assertEncodeError({ ...x, publicInputs: { ...x.publicInputs, valueDigest: arr } }, "NonCanonicalFieldElement", {
      what: "publicInputs.valueDigest[6]",
    });
  }
});

test("identity and statement values the decoder would refuse are refused", () => {
  assertEncodeError({ ...x, identity: { ...x.identity, opKindTag: 3 } }, "UnknownOpKindTag");
  assertEncodeError({ ...x, publicInputs: { ...x.publicInputs, opKindTag: -1 } }, "UnknownOpKindTag");
  assertEncodeError({ ...x, publicInputs: { ...x.publicInputs, opKindTag: 2 } }, "OpKindMismatch", {
    identity: 1,
    statement: 2,
  });
  assertEncodeError({ ...x, identity: { ...x.identity, circuitVersion: 2 } }, "UnsupportedCircuitVersion", {
    version: 2,
  });
  assertEncodeError({ ...x, identity: { ...x.identity, leafEncodingVersion: 0 } }, "UnsupportedLeafEncodingVersion", {
    version: 0,
  });
  assertEncodeError({ ...x, identity: { ...x.identity, strategyId: 1 } }, "UnsupportedLayerStrategy", { strategy: 1 });
});

test("InvalidValue for wrong shapes and an asset_id that is not a u64", () => {
  for (const a of [-1n, 1n << 64n, 5]) {
    assertEncodeError({ ...x, publicInputs: { ...x.publicInputs, assetId: a } }, "InvalidValue", {
      what: "publicInputs.assetId",
    });
  }
  assertEncodeError({ ...x, publicInputs: { ...x.publicInputs, oldRoot: new Uint32Array(7) } }, "InvalidValue", {
    what: "publicInputs.oldRoot",
  });
  assertEncodeError({ ...x, identity: { ...x.identity, depth: -1 } }, "InvalidValue", { what: "identity.depth" });
  assertEncodeError(withLayers([{ ...layer0, evalX: [1, 2, 3] }]), "InvalidValue", { what: "layers[0].evalX" });
  assertEncodeError(withLayers([undefined]), "InvalidValue", { what: "layers[0].rounds" });
  assertEncodeError(withLayers(null), "InvalidValue", { what: "proof.layers" });
  assertEncodeError(null, "InvalidValue", { what: "identity" });
  assertEncodeError({ ...x, publicInputs: undefined }, "InvalidValue", { what: "publicInputs" });
  assertEncodeError({ ...x, proof: 7 }, "InvalidValue", { what: "proof" });
});
