import { test } from "node:test";
import assert from "node:assert/strict";
import { P } from "../../../src/field/koalabear.js";
import { SsgkrError } from "../../../src/errors.js";
import { typescriptHashBackend } from "../../../src/hash/backend.js";
import { goldenFixture } from "../../../src/smt/fixture.js";
import type { OpRequest } from "../../../src/smt/operation.js";
import { dummyRequest } from "../../../src/smt/v2/dummy.js";
import { buildV2Input } from "../../../src/smt/v2/input.js";
import { buildV2Inputs } from "../../../src/smt/v2/input-batch.js";
import { v2Layout } from "../../../src/smt/v2/layout.js";
import { syncConfig } from "../../../src/smt/config.js";
import { OpKind } from "../../../src/statement/types.js";

const KINDS = [OpKind.Membership, OpKind.NonMembership, OpKind.Update];

function concat(layout: ReturnType<typeof v2Layout>, rs: readonly OpRequest[]): Uint32Array {
  const size = 2 ** layout.inputBits;
  const out = new Uint32Array(size * rs.length);
  rs.forEach((r, i) => out.set(buildV2Input(layout, r), i * size));
  return out;
}

test("batched input vectors equal K reference vectors, every kind, depths 1/3/24/64, leaf bounds 10/31/63, with repeated and dummy requests", () => {
  for (const kind of KINDS) {
    for (const [depth, B] of [
      [1, 10],
      [3, 31],
      [24, 31],
      [64, 63],
    ] as const) {
      const layout = v2Layout(kind, depth, B);
      const dummy = dummyRequest(kind, syncConfig({ depth, leafMaxFields: B }));
      const key = (i: number) =>
        depth >= 63 ? (BigInt(i) * 0x9e3779b97f4a7c15n) % 2n ** 64n : BigInt(i) % (1n << BigInt(depth));
      const rs: OpRequest[] = B === 31 ? [0, 1, 2, 3, 5].map((i) => goldenFixture(kind, depth, key(i))) : [];
      rs.push(dummy, dummy, dummy);
      if (rs.length > 3) rs.push(rs[0]!);
      const want = concat(layout, rs);
      assert.deepEqual(buildV2Inputs(layout, rs), want, `kind ${kind} d${depth} B${B} (WASM)`);
      assert.deepEqual(
        buildV2Inputs(layout, rs, typescriptHashBackend.permuteMany),
        want,
        `kind ${kind} d${depth} B${B} (TypeScript)`,
      );
    }
  }
  assert.equal(buildV2Inputs(v2Layout(OpKind.Membership, 3, 31), []).length, 0);
});

test("a bad request fails with the reference builder's code, naming its operation", () => {
  const layout = v2Layout(OpKind.Update, 3, 31);
  const good = [0, 1, 2].map((i) => goldenFixture(OpKind.Update, 3, BigInt(i)));
  const cases: [string, OpRequest][] = [
    [
      "PATH_LENGTH_MISMATCH",
      { ...good[1]!, witness: { ...good[1]!.witness, siblings: good[1]!.witness.siblings.slice(1) } },
    ],
    [
      "NON_CANONICAL",
      { ...good[1]!, witness: { ...good[1]!.witness, siblings: good[1]!.witness.siblings.map((s) => s.map(() => P)) } },
    ],
    ["BAD_KEY", { ...good[1]!, operation: { ...good[1]!.operation, key: -1n } } as OpRequest],
    ["OP_KIND_MISMATCH", goldenFixture(OpKind.Membership, 3, 1n)],
  ];
  for (const [code, bad] of cases) {
    let refCode = "";
    try {
      buildV2Input(layout, bad);
    } catch (e) {
      refCode = (e as SsgkrError).code;
    }
    assert.throws(
      () => buildV2Inputs(layout, [good[0]!, bad, good[2]!]),
      (e) => e instanceof SsgkrError && e.code === refCode && e.details["operation"] === 1,
      code,
    );
  }
});
